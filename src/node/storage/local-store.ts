/**
 * The embedded store: blobs as files in a directory, no setup. A blob is written to a private temp file
 * in the same directory tree and renamed onto its name only when complete and synced, so a crash or an
 * abort never leaves a half blob under a real ref. Temp files of a process that died mid-upload are swept
 * from `.partial/` when the store is first used (rules in `../fs/sweep.ts`).
 *
 * @module
 */
import { type Stats, statSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { assertNonNegativeInteger } from '../../core/bytes.js';
import { AbortedError, HappyMediaError, InvalidArgumentError, StorageError } from '../../core/errors.js';
import {
  type BlobBody,
  type BlobRange,
  type BlobStore,
  checkRange,
  clipRange,
  createWithPut,
  emptyStream,
  type GetOptions,
  mediaRefId,
  type WriteOptions,
} from '../../core/storage/blob-store.js';
import { readSizedBody } from '../../core/storage/sized-body.js';
import { AtomicFileWriter } from '../fs/atomic-file.js';
import { diskError } from '../fs/disk-error.js';
import { PRIVATE_DIR_MODE } from '../fs/private-dir.js';
import { PARTIAL_FILE_NAMES, sweepStale } from '../fs/sweep.js';
import { fileHandleStream } from './file-stream.js';

/** Bytes gathered before one write to disk: encrypted chunks arrive at ~16 KiB, syscalls want more. */
const WRITE_BUFFER_BYTES = 1024 * 1024;

/**
 * Upload temp files in `.partial/`: `.<id>.<stamp>.partial`, and `<id>.<16 hex digits>` from releases
 * before owner stamps (removed by age).
 */
const STORE_PARTIAL_NAMES = {
  stamped: PARTIAL_FILE_NAMES.stamped,
  unstamped: /^[A-Za-z0-9_-]{1,128}\.[0-9a-f]{16}$/,
};

/** Options of {@link LocalBlobStore}. */
export interface LocalBlobStoreOptions {
  /** fsync each blob before it becomes visible (default true: a power cut cannot leave an empty blob). */
  fsync?: boolean;
}

/**
 * The default blob directory: `$HAPPY_MEDIA_BLOB_DIR`, else `$XDG_DATA_HOME/happy-media/blobs`, else
 * `~/.local/share/happy-media/blobs` (the XDG default).
 */
export function defaultBlobDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HAPPY_MEDIA_BLOB_DIR) return resolve(env.HAPPY_MEDIA_BLOB_DIR);
  const dataHome = env.XDG_DATA_HOME ? resolve(env.XDG_DATA_HOME) : join(homedir(), '.local', 'share');
  return join(dataHome, 'happy-media', 'blobs');
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function notFound(ref: string): StorageError {
  return new StorageError(`no blob is stored under ${ref}`, { code: 'ERR_NOT_FOUND' });
}

/**
 * A {@link BlobStore} over a local directory. Layout: `<dir>/media/<id>` per blob, `<dir>/.partial/`
 * for uploads in progress (same file system, so the final rename is atomic). Directories are created
 * 0700 and files 0600.
 *
 * @example
 * ```ts
 * const store = new LocalBlobStore('/var/lib/happy-media/blobs');
 * await store.put(ref, encrypted, ciphertextSize(file.size));
 * const stream = await store.get(ref, { offset: 0, length: 56 });
 * ```
 */
export class LocalBlobStore implements BlobStore {
  /** Absolute directory the blobs live in. */
  readonly dir: string;
  private readonly fsync: boolean;
  private ready: Promise<void> | undefined;

  /**
   * @param dir Directory of the store (created on first write); defaults to {@link defaultBlobDir}.
   * @throws {InvalidArgumentError} when `dir` is not a non-empty string.
   */
  constructor(dir: string = defaultBlobDir(), options: LocalBlobStoreOptions = {}) {
    if (typeof dir !== 'string' || dir.length === 0) {
      throw new InvalidArgumentError(
        'expected a directory path for `dir` but received an empty or non-string value',
      );
    }
    this.dir = resolve(dir);
    this.fsync = options.fsync ?? true;
    // A store that is a file can never hold a blob: say so now, not at the first request.
    let existing: Stats | undefined;
    try {
      existing = statSync(this.dir);
    } catch {
      // Absent (created on first write) or unreadable (the first write says why).
    }
    if (existing !== undefined && !existing.isDirectory()) {
      throw new InvalidArgumentError(
        `expected a directory for \`dir\` but ${JSON.stringify(this.dir)} is ${existing.isFile() ? 'a file' : 'not a directory'}`,
      );
    }
  }

  /** Path of the file that holds `ref` (validated). */
  pathOf(ref: string): string {
    return join(this.dir, 'media', mediaRefId(ref));
  }

  private ensureDirs(): Promise<void> {
    this.ready ??= (async () => {
      try {
        await mkdir(join(this.dir, 'media'), { recursive: true, mode: PRIVATE_DIR_MODE });
        await mkdir(join(this.dir, '.partial'), { recursive: true, mode: PRIVATE_DIR_MODE });
      } catch (cause) {
        this.ready = undefined;
        throw diskError('create the store directory', cause, this.dir);
      }
      // Uploads of processes killed mid-way (ciphertext, but it piles up); live uploaders keep theirs.
      sweepStale(join(this.dir, '.partial'), STORE_PARTIAL_NAMES);
    })();
    return this.ready;
  }

  /**
   * Takes a complete file of ciphertext as the blob `ref` by renaming it into place: no byte is written
   * a second time, and the blob appears whole or not at all, as with {@link LocalBlobStore.put}. The file
   * must be complete (and synced, when the store syncs) and nothing may write to it any more: from here
   * it is the store's. False, with nothing moved, when `path` lies on another file system than the store
   * (a rename cannot cross it): the caller then copies it in with {@link LocalBlobStore.put}.
   *
   * @throws {StorageError} `ERR_INVALID_REF` for a bad ref.
   * @throws {DiskError} `ERR_DISK` when the file system fails (`path` missing included).
   * @example
   * ```ts
   * if (!(await store.adopt(ref, upload))) await store.put(ref, fileStream(upload), size);
   * ```
   */
  async adopt(ref: string, path: string): Promise<boolean> {
    const target = this.pathOf(ref);
    await this.ensureDirs();
    try {
      await rename(path, target);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EXDEV') return false;
      throw diskError('move the complete file into the store as', error, target);
    }
  }

  /**
   * Stores a new blob of exactly `size` bytes under a fresh ref (`media/<cuid2>`) and returns it once
   * stored: a file written under `.partial/` and renamed into place when complete. `body(ref)` is called before the first byte is read.
   *
   * @throws the errors of {@link LocalBlobStore.put}.
   * @example
   * ```ts
   * const { ref } = await store.create(ciphertextSize(n), (ref) =>
   *   plaintext.pipeThrough(createEncryptStream(blobKey, { context: mediaBlobContext(ref) })));
   * ```
   */
  create(size: number, body: BlobBody, options?: WriteOptions): Promise<{ ref: string }> {
    return createWithPut(this, size, body, options);
  }

  /**
   * Stores exactly `size` bytes from `body` under `ref`, atomically.
   *
   * @throws {StorageError} `ERR_INVALID_REF` for a bad ref; `ERR_UPLOAD_FAILED` when the body is shorter
   *   or longer than `size`.
   * @throws {AbortedError} `ERR_ABORTED` when `options.signal` aborts.
   * @throws {DiskError} `ERR_DISK` when the file system fails.
   */
  async put(
    ref: string,
    body: ReadableStream<Uint8Array>,
    size: number,
    options: WriteOptions = {},
  ): Promise<void> {
    const target = this.pathOf(ref);
    assertNonNegativeInteger(size, 'size');
    await this.ensureDirs();
    const writer = await AtomicFileWriter.create(join(this.dir, '.partial'), {
      label: mediaRefId(ref),
      sync: this.fsync,
    });
    try {
      const buffer = new Uint8Array(Math.min(WRITE_BUFFER_BYTES, Math.max(size, 1)));
      let filled = 0;
      for await (const chunk of readSizedBody(body, size, options)) {
        let at = 0;
        while (at < chunk.length) {
          const n = Math.min(buffer.length - filled, chunk.length - at);
          buffer.set(chunk.subarray(at, at + n), filled);
          filled += n;
          at += n;
          if (filled === buffer.length) {
            await writer.write(buffer);
            filled = 0;
          }
        }
      }
      await writer.write(buffer.subarray(0, filled));
    } catch (error) {
      await writer.abort();
      throw error;
    }
    await writer.commit(target);
  }

  /**
   * Streams the blob or a range of it.
   *
   * @throws {StorageError} `ERR_NOT_FOUND` when absent, `ERR_INVALID_REF` for a bad ref.
   * @throws {InvalidArgumentError} for a range starting past the end.
   */
  async get(ref: string, range?: BlobRange, options: GetOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const path = this.pathOf(ref);
    checkRange(range);
    if (options.signal?.aborted)
      throw new AbortedError('the download was aborted', { cause: options.signal.reason });
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (cause) {
      if (isNotFound(cause)) throw notFound(ref);
      throw diskError('open the blob', cause, path);
    }
    let start: number;
    let end: number;
    let size: number;
    try {
      size = (await handle.stat()).size;
      const clipped = range ? clipRange(range, size) : { offset: 0, length: size };
      start = clipped.offset;
      end = clipped.offset + clipped.length;
    } catch (error) {
      await handle.close();
      throw error instanceof HappyMediaError ? error : diskError('read the blob', error, path);
    }
    if (start === end) {
      await handle.close();
      return emptyStream();
    }
    options.onSize?.(size);
    return fileHandleStream(handle, { start, end, signal: options.signal });
  }

  /**
   * Size of the stored blob.
   *
   * @throws {StorageError} `ERR_NOT_FOUND` when absent.
   */
  async head(ref: string): Promise<{ size: number }> {
    const path = this.pathOf(ref);
    try {
      return { size: (await stat(path)).size };
    } catch (cause) {
      if (isNotFound(cause)) throw notFound(ref);
      throw diskError('read the blob', cause, path);
    }
  }

  /** Deletes the blob; a missing ref is not an error. */
  async delete(ref: string): Promise<void> {
    const path = this.pathOf(ref);
    try {
      await unlink(path);
    } catch (cause) {
      if (!isNotFound(cause)) throw diskError('delete the blob', cause, path);
    }
  }
}
