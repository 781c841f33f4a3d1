/**
 * One JSON line of output. `JSON.stringify` recurses once per level of nesting, so a value nested deeper
 * than the stack allows (an authentic envelope holding `[[[[…]]]]` 100 000 levels deep: `JSON.parse`
 * reads it, printing it overflows the stack) threw a `RangeError` the CLI reported as `ERR_INTERNAL`.
 * Commands that print a value they did not build (decrypted envelopes, records read from a server, what
 * an agent's log held) go
 * through {@link jsonLine}, which reports that as `ERR_LIMIT_EXCEEDED`.
 *
 * @module
 */
import { LimitError } from '../errors.js';
import { terminalText } from './terminal-text.js';

/**
 * `value` as one line of JSON (with the newline).
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when `value` nests too deeply to be printed.
 * @example
 * ```ts
 * process.stdout.write(jsonLine(openRaw(envelope, key)));
 * ```
 */
export function jsonLine(value: unknown): string {
  try {
    return `${terminalText(JSON.stringify(value))}\n`;
  } catch (cause) {
    if (cause instanceof RangeError) {
      throw new LimitError(
        'the value nests too deeply to be printed as JSON (more levels than the JSON printer can follow); neither Happy nor happy-media writes such values',
        { cause },
      );
    }
    throw cause;
  }
}
