/**
 * Why a Node input path cannot be read, in words, for `unreadableInput` (core/unreadable-input.ts: the
 * one `ERR_UNREADABLE_INPUT`, shared with an app's expo-file-system source).
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */

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
