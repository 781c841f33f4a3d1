/**
 * The one way "this input cannot be read" becomes a library error, on every platform (Node's probe and
 * CLI, an app's expo-file-system source): {@link ProbeError} with `ERR_UNREADABLE_INPUT` and the message
 * `cannot read "<path>": <reason>`, so the same mistake (a missing file, a directory, no permission)
 * reads the same wherever it is met. Paths and URIs are not secrets; file contents never appear.
 *
 * @module
 */
import { ProbeError } from './errors.js';

/**
 * `ERR_UNREADABLE_INPUT` for `path` (a file path, or a file's URI).
 *
 * @param reason what is wrong with it, and what to do when that is not obvious.
 * @param cause the underlying error, when there is one.
 * @example
 * ```ts
 * try { handle = file.open(); } catch (cause) { throw unreadableInput(file.uri, 'no such file', cause); }
 * ```
 */
export function unreadableInput(path: string, reason: string, cause?: unknown): ProbeError {
  return new ProbeError(`cannot read ${JSON.stringify(path)}: ${reason}`, {
    code: 'ERR_UNREADABLE_INPUT',
    ...(cause === undefined ? {} : { cause }),
  });
}
