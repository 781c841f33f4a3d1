/**
 * The CLI's one error boundary: every command's action runs through here, so every failure prints
 * `happy-media: ERR_CODE: message` on stderr and exits 1 (2 for bad usage). Stack traces are shown only
 * with `HAPPY_MEDIA_DEBUG=1`; secrets are never part of a message, so printing it is safe.
 *
 * @module
 */
import { HappyMediaError } from '../index.js';
import { EXIT_FAILURE, EXIT_USAGE } from './exit-codes.js';
import { terminalText } from './terminal-text.js';

/** What the CLI adds to an error of the library: the flags or commands that act on it. */
const hints = new WeakMap<object, string>();

/**
 * Attaches `hint` to `error`, printed as `happy-media: hint: …` under it: the library's messages name
 * options, never the CLI's flags, so the CLI adds them. Returns `error`, to be thrown on.
 *
 * @example
 * ```ts
 * await sendMedia(file, { store }).catch((error) => { throw withHint(error, storeErrorHint(spec, error)); });
 * ```
 */
export function withHint(error: unknown, hint: string | undefined): unknown {
  if (hint && typeof error === 'object' && error !== null) hints.set(error, hint);
  return error;
}

/** Formats any thrown value as the CLI's one-line error. */
export function formatCliError(error: unknown): string {
  // A message may quote a server or a file: its control characters are shown, never acted on.
  if (error instanceof HappyMediaError) return `happy-media: ${error.code}: ${terminalText(error.message)}`;
  const message = error instanceof Error ? error.message : String(error);
  return `happy-media: ERR_INTERNAL: ${terminalText(message)}`;
}

/** Prints the error and sets the exit code; returns the code for callers that want it. */
export function reportCliError(error: unknown): number {
  process.stderr.write(`${formatCliError(error)}\n`);
  const hint = typeof error === 'object' && error !== null ? hints.get(error) : undefined;
  if (hint) process.stderr.write(`happy-media: hint: ${terminalText(hint)}\n`);
  if (process.env.HAPPY_MEDIA_DEBUG === '1' && error instanceof Error && error.stack) {
    process.stderr.write(`${error.stack}\n`);
  }
  const code = error instanceof HappyMediaError && error.code === 'ERR_USAGE' ? EXIT_USAGE : EXIT_FAILURE;
  process.exitCode = code;
  return code;
}

/**
 * Wraps a commander action so that errors are reported uniformly instead of crashing with a stack.
 *
 * @example
 * ```ts
 * program.command('keygen').action(runAction(async () => { ... }));
 * ```
 */
export function runAction<A extends unknown[]>(action: (...args: A) => Promise<void> | void) {
  return async (...args: A): Promise<void> => {
    try {
      await action(...args);
    } catch (error) {
      reportCliError(error);
    }
  };
}
