/**
 * Private directories and the write-fsync-rename file writer that playback uses for decrypted bytes.
 *
 * A decrypted file is written under a temporary name in a directory only the current user can enter
 * (0700), with mode 0600, and appears under its final name only after {@link AtomicFileWriter.commit}
 * (fsync, then rename). An aborted writer removes its partial file, so a failure leaves nothing behind.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { chmod, type FileHandle, mkdir, mkdtemp, open, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DiskError } from '../../core/errors.js';
import { removeOnExit } from './exit-cleanup.js';

/** Mode of every directory playback creates: owner only. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of every file playback creates: owner read/write only. */
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

/** Wraps a file-system failure as the disk leg's error, without echoing file contents. */
export function diskError(what: string, cause: unknown): DiskError {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return new DiskError(`${what} failed${code ? ` (${code})` : ''}: check free space and permissions`, {
    cause,
  });
}

/**
 * Creates `<root>/<prefix><pid>-<random>` with mode 0700 and registers it for removal at exit.
 * The pid in the name lets a later run sweep it if this process dies without cleaning up.
 *
 * @throws {DiskError} `ERR_DISK` when the directory cannot be created.
 */
export async function createPrivateDirectory(root: string, prefix: string): Promise<PrivateDirectory> {
  let path: string;
  try {
    await mkdir(root, { recursive: true, mode: PRIVATE_DIR_MODE });
    path = await mkdtemp(join(root, `${prefix}${process.pid}-`));
    // mkdtemp already uses 0700; chmod makes it explicit whatever the platform does.
    await chmod(path, PRIVATE_DIR_MODE);
  } catch (cause) {
    throw diskError(`creating a private directory under ${root}`, cause);
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

/**
 * Writes one file under a temporary name and publishes it atomically.
 *
 * @example
 * ```ts
 * const writer = await AtomicFileWriter.create(dir);
 * try { await writer.write(bytes); await writer.commit(join(dir, 'photo.jpg')); }
 * catch (e) { await writer.abort(); throw e; }
 * ```
 */
export class AtomicFileWriter {
  readonly #handle: FileHandle;
  readonly #partialPath: string;
  #open = true;
  #written = 0;

  private constructor(handle: FileHandle, partialPath: string) {
    this.#handle = handle;
    this.#partialPath = partialPath;
  }

  /**
   * Opens a new `.partial` file with mode 0600 inside `dir` (exclusive create: never follows or reuses an
   * existing file).
   *
   * @throws {DiskError} `ERR_DISK` when the file cannot be created.
   */
  static async create(dir: string): Promise<AtomicFileWriter> {
    const partialPath = join(dir, `.${randomBytes(12).toString('hex')}.partial`);
    try {
      const handle = await open(partialPath, 'wx', PRIVATE_FILE_MODE);
      return new AtomicFileWriter(handle, partialPath);
    } catch (cause) {
      throw diskError('creating a private temp file', cause);
    }
  }

  /** Path of the file being written (its bytes are readable there before the commit). */
  get partialPath(): string {
    return this.#partialPath;
  }

  /** Bytes written so far. */
  get bytesWritten(): number {
    return this.#written;
  }

  /**
   * Appends `bytes` (the whole view, whatever its offset in its buffer).
   *
   * @throws {DiskError} `ERR_DISK` on a write failure (disk full, I/O error).
   */
  async write(bytes: Uint8Array): Promise<void> {
    let at = 0;
    try {
      while (at < bytes.length) {
        const { bytesWritten } = await this.#handle.write(bytes, at, bytes.length - at);
        at += bytesWritten;
      }
    } catch (cause) {
      throw diskError('writing the temp file', cause);
    }
    this.#written += bytes.length;
  }

  /**
   * Flushes to stable storage, closes, and renames to `finalPath` (same directory or file system).
   *
   * @throws {DiskError} `ERR_DISK` when fsync, close or rename fails; the partial file is then removed.
   */
  async commit(finalPath: string): Promise<void> {
    try {
      await this.#handle.sync();
      this.#open = false;
      await this.#handle.close();
      await rename(this.#partialPath, finalPath);
    } catch (cause) {
      await this.abort();
      throw diskError('publishing the temp file', cause);
    }
  }

  /** Closes and deletes the partial file; never throws (it runs on error paths). */
  async abort(): Promise<void> {
    if (this.#open) {
      this.#open = false;
      await this.#handle.close().catch(() => undefined);
    }
    await unlink(this.#partialPath).catch(() => undefined);
  }
}
