/**
 * Why a Node input path cannot be read, in words, for `unreadableInput` (core/unreadable-input.ts: the
 * one `ERR_UNREADABLE_INPUT`, shared with an app's expo-file-system source).
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { unreadableInput } from '../../core/unreadable-input.js';

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
 * The `stat` of the input file at `path`, checked to be a regular file before anything reads it (opening
 * a named pipe would block until a writer appears).
 *
 * @throws {ProbeError} `ERR_UNREADABLE_INPUT` when `path` is missing, cannot be examined or is not a
 *   regular file.
 */
export async function statInputFile(path: string): Promise<Stats> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    throw unreadableInput(path, readFailureReason(error), error);
  }
  if (!info.isFile()) throw unreadableInput(path, NOT_A_REGULAR_FILE);
  return info;
}
