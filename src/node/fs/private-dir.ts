/**
 * Private directories: created with mode 0700 under an owner-stamped name, registered for removal at
 * process exit, and swept by a later run if the process dies first (`sweep.ts`).
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { chmod, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { diskError } from './disk-error.js';
import { removeOnExit } from './exit-cleanup.js';
import { newOwnerStamp } from './owner-stamp.js';

/** Mode of every private directory: owner only. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of every private file: owner read/write only. */
export const PRIVATE_FILE_MODE = 0o600;

/** A private directory that is removed on {@link PrivateDirectory.remove} or at process exit. */
export interface PrivateDirectory {
  /** Absolute path of the directory. */
  readonly path: string;
  /** Removes the directory and everything in it (idempotent). */
  remove(): Promise<void>;
  /** Keeps the directory past process exit (used when a cache takes it over). */
  keep(): void;
}

/**
 * Creates `<root>/<prefix><pid>-<created>-<random>` with mode 0700 (exclusively: an existing entry is an
 * error, never reused) and registers it for removal at exit. `root` is created 0700 if missing.
 *
 * @throws {DiskError} `ERR_DISK` when the directory cannot be created.
 * @example
 * ```ts
 * const dir = await createPrivateDirectory(tmpdir(), 'happy-media-spool-');
 * try { ... } finally { await dir.remove(); }
 * ```
 */
export async function createPrivateDirectory(root: string, prefix: string): Promise<PrivateDirectory> {
  const path = join(root, `${prefix}${newOwnerStamp()}`);
  try {
    await mkdir(root, { recursive: true, mode: PRIVATE_DIR_MODE });
    await mkdir(path, { mode: PRIVATE_DIR_MODE });
    // The umask may have narrowed the mode further; make it exactly 0700 whatever the platform does.
    await chmod(path, PRIVATE_DIR_MODE);
  } catch (cause) {
    throw diskError('create a private directory under', cause, root);
  }
  const forget = removeOnExit(path);
  let removed = false;
  return {
    path,
    async remove() {
      if (removed) return;
      removed = true;
      try {
        await rm(path, { recursive: true, force: true });
      } finally {
        forget();
      }
    },
    keep() {
      forget();
    },
  };
}
