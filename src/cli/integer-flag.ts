/**
 * Whole-number flags of the command line (`--port`, `--timeout`, `--max-bytes`, ...), read one way: decimal
 * digits only (no sign, exponent, hex or fraction), a safe integer, within the flag's range; anything else is
 * bad usage (exit 2) naming the flag.
 *
 * @module
 */
import { UsageError } from './usage-error.js';

/** The range a flag accepts (default: any non-negative safe integer). */
export interface IntegerRange {
  min?: number;
  max?: number;
}

function expected({ min = 0, max }: IntegerRange): string {
  if (max !== undefined) return `an integer from ${min} to ${max}`;
  if (min === 0) return 'a non-negative integer';
  if (min === 1) return 'a positive integer';
  return `an integer of at least ${min}`;
}

/**
 * Reads the integer `text` given for `flag`.
 *
 * @throws {UsageError} `ERR_USAGE` when it is not decimal digits, not a safe integer, or out of `range`.
 * @example
 * ```ts
 * const port = parseIntegerFlag(options.port, '--port', { max: 65535 });
 * ```
 */
export function parseIntegerFlag(text: string, flag: string, range: IntegerRange = {}): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = range;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(
      `expected ${expected(range)} for ${flag} but received ${JSON.stringify(text.slice(0, 40))}`,
    );
  }
  return value;
}

/**
 * {@link parseIntegerFlag} for a flag that may be absent (`undefined` stays `undefined`).
 *
 * @throws {UsageError} `ERR_USAGE` as {@link parseIntegerFlag}.
 * @example
 * ```ts
 * const retries = optionalIntegerFlag(flags.retries, '--retries', { max: 100 });
 * ```
 */
export function optionalIntegerFlag(
  text: string | undefined,
  flag: string,
  range: IntegerRange = {},
): number | undefined {
  return text === undefined ? undefined : parseIntegerFlag(text, flag, range);
}
