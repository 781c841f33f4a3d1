/**
 * The one way "this input path cannot be read" becomes a library error: {@link ProbeError} with
 * `ERR_UNREADABLE_INPUT` and the message `cannot read "<path>": <reason>`, so the same mistake (a
 * missing file, a directory, no permission) reads the same from probing, envelopes, validation and
 * encryption. Paths are not secrets; file contents never appear.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { ProbeError } from '../../core/errors.js';

/** The reason for a path that exists but is not a regular file. */
export const NOT_A_REGULAR_FILE = 'not a regular file (a directory, device or pipe)';

/**
 * Why opening or examining an input failed, in words, from its errno code.
 *
 * @example
 * ```ts
 * readFailureReason(Object.assign(new Error(), { code: 'ENOENT' })); // 'no such file'
 * ```
 */
export function readFailureReason(cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException | null | undefined)?.code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return NOT_A_REGULAR_FILE;
  return code ?? (cause instanceof Error ? cause.message : String(cause));
}

/**
 * `ERR_UNREADABLE_INPUT` for `path`.
 *
 * @param reason what is wrong with it, and what to do when that is not obvious
 *   ({@link readFailureReason} of the errno error, or {@link NOT_A_REGULAR_FILE}).
 * @param cause the underlying error, when there is one.
 * @example
 * ```ts
 * try { await open(path, 'r'); } catch (cause) { throw unreadableInput(path, readFailureReason(cause), cause); }
 * ```
 */
export function unreadableInput(path: string, reason: string, cause?: unknown): ProbeError {
  return new ProbeError(`cannot read ${JSON.stringify(path)}: ${reason}`, {
    code: 'ERR_UNREADABLE_INPUT',
    ...(cause === undefined ? {} : { cause }),
  });
}
