/**
 * The one way a file-system failure becomes a library error: {@link DiskError} (`ERR_DISK`) naming the
 * action, the path when there is one (paths are not secrets; file contents never appear), and the errno
 * code. Library errors pass through unchanged, so wrapping a callback's failure never hides its code.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { DiskError, HappyMediaError } from '../../core/errors.js';

/**
 * Wraps `cause` as `ERR_DISK`, or returns it when it already is a {@link HappyMediaError}.
 *
 * @param action what was being done, as a verb phrase (`'read'`, `'create a temp file in'`).
 * @param path the file or directory acted on, when there is one.
 * @example
 * ```ts
 * try { await open(path, 'r'); } catch (cause) { throw diskError('open', cause, path); }
 * ```
 */
export function diskError(action: string, cause: unknown, path?: string): HappyMediaError {
  if (cause instanceof HappyMediaError) return cause;
  const code = (cause as NodeJS.ErrnoException | null | undefined)?.code;
  const where = path === undefined ? '' : ` ${JSON.stringify(path)}`;
  const hint = code === 'ENOENT' ? 'check the path' : 'check free space and permissions';
  return new DiskError(`could not ${action}${where}${code ? ` (${code})` : ''}: ${hint}`, { cause });
}
