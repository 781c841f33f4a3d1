/**
 * Whether a path is a file this process may run, the one check behind finding ffmpeg/ffprobe and any
 * child's binary on the `PATH`.
 *
 * @module
 */
import { accessSync, constants, statSync } from 'node:fs';

/**
 * Whether `path` is a regular file (after symlinks) that this process may execute.
 *
 * @param path - an absolute or relative path.
 * @example
 * ```ts
 * if (isExecutableFile('/usr/bin/ffprobe')) spawnChild('/usr/bin/ffprobe', ['-version']);
 * ```
 */
export function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
