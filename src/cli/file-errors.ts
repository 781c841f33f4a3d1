/**
 * How the CLI reports its own file reads and writes (its input paths, stdin, stdout) as library errors:
 * `ERR_UNREADABLE_INPUT` for an input path that cannot be read, `ERR_DISK` for any other file-system
 * failure, worded as the library words its own (`cannot read "<path>": <reason>`, `could not <action>
 * "<path>" (<errno>): <hint>`), so the same mistake reads the same from a command and from an API.
 * Paths are not secrets; file contents never appear.
 *
 * @module
 */
import { DiskError, HappyMediaError, ProbeError } from '../errors.js';

/** The reason for a path that exists but is not a regular file. */
export const NOT_A_REGULAR_FILE = 'not a regular file (a directory, device or pipe)';

/** The errno code of a Node file-system error, if it has one. */
function errnoCode(cause: unknown): string | undefined {
  return (cause as NodeJS.ErrnoException | null | undefined)?.code;
}

/**
 * Why opening or examining an input failed, in words, from its errno code.
 *
 * @example
 * ```ts
 * readFailureReason(Object.assign(new Error(), { code: 'ENOENT' })); // 'no such file'
 * ```
 */
export function readFailureReason(cause: unknown): string {
  const code = errnoCode(cause);
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return NOT_A_REGULAR_FILE;
  return code ?? (cause instanceof Error ? cause.message : String(cause));
}

/**
 * `ERR_UNREADABLE_INPUT` for the input `path`.
 *
 * @param reason what is wrong with it, and what to do when that is not obvious.
 * @param cause the underlying error, when there is one.
 */
export function unreadableInput(path: string, reason: string, cause?: unknown): ProbeError {
  return new ProbeError(`cannot read ${JSON.stringify(path)}: ${reason}`, {
    code: 'ERR_UNREADABLE_INPUT',
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Wraps `cause` as `ERR_DISK`, or returns it when it already is a {@link HappyMediaError}.
 *
 * @param action what was being done, as a verb phrase (`'read'`, `'write to stdout'`).
 * @param path the file acted on, when there is one.
 */
export function diskError(action: string, cause: unknown, path?: string): HappyMediaError {
  if (cause instanceof HappyMediaError) return cause;
  const code = errnoCode(cause);
  const where = path === undefined ? '' : ` ${JSON.stringify(path)}`;
  const hint = code === 'ENOENT' ? 'check the path' : 'check free space and permissions';
  return new DiskError(`could not ${action}${where}${code ? ` (${code})` : ''}: ${hint}`, { cause });
}
