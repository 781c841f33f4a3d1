/**
 * All-or-nothing files: bytes go to an exclusive 0600 temp file `.<label>.<stamp>.partial` in the
 * destination's directory (same file system, so the final rename is atomic), which is fsynced and
 * renamed onto its final name only when the whole job succeeded. On failure the temp file is removed;
 * on a crash its owner stamp lets a later run remove it (`sweep.ts`), and a file written beside an
 * output is also recorded so that the next run of any command finds it (`pending-record.ts`).
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { diskError } from './disk-error.js';
import { removeOnExit } from './exit-cleanup.js';
import { newOwnerStamp } from './owner-stamp.js';
import { recordPending } from './pending-record.js';
import { PRIVATE_FILE_MODE } from './private-dir.js';
import { MAX_WRITE_CALL_BYTES } from './write-size.js';

/**
 * Bytes written between two early writebacks of a file that is fsynced at its commit (see
 * {@link AtomicFileWriter.writeParts}): large enough that the flushes stay few, small enough that the
 * commit's own fsync finds little left to write.
 */
export const WRITEBACK_EVERY_BYTES = 32 * 1024 * 1024;

/** Options of {@link AtomicFileWriter.create}. */
export interface AtomicFileOptions {
  /** Readable part of the temp name, e.g. the destination's base name (default `happy-media`). */
  label?: string;
  /** fsync before the rename (default true: a power cut cannot publish an empty file). */
  sync?: boolean;
  /**
   * Record the temp file for the crash sweep of any later command (`pending-record.ts`); for files
   * outside this library's private directories, whose location no sweep knows (default false).
   */
  record?: boolean;
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
  readonly #sync: boolean;
  readonly #forget: () => void;
  readonly #unrecord: () => Promise<void>;
  #open = true;
  #written = 0;
  /** Where the next bytes passed go (ahead of {@link bytesWritten} while writes run). */
  #end = 0;
  /** Bytes written when the last early writeback started. */
  #writebackMark = 0;
  /** The early writeback running, if any (it never rejects: a failure is kept for the commit). */
  #writeback: Promise<void> | undefined;
  #writebackFailed = false;
  #writebackFailure: unknown;

  private constructor(handle: FileHandle, partialPath: string, sync: boolean, unrecord: () => Promise<void>) {
    this.#handle = handle;
    this.#partialPath = partialPath;
    this.#sync = sync;
    this.#forget = removeOnExit(partialPath);
    this.#unrecord = unrecord;
  }

  /**
   * Opens a new temp file with mode 0600 inside `dir` (exclusive create: never follows or reuses an
   * existing file).
   *
   * @throws {DiskError} `ERR_DISK` when the file cannot be created.
   */
  static async create(dir: string, options: AtomicFileOptions = {}): Promise<AtomicFileWriter> {
    // The label is cut so that a long destination name still leaves room for the stamp (NAME_MAX 255).
    const label = [...(options.label ?? 'happy-media')].slice(0, 64).join('');
    const stamp = newOwnerStamp();
    const partialPath = join(dir, `.${label}.${stamp}.partial`);
    // Recorded before it exists, so that no moment leaves an unrecorded file behind a kill.
    const unrecord = options.record ? await recordPending(partialPath, stamp) : async () => undefined;
    try {
      const handle = await open(partialPath, 'wx', PRIVATE_FILE_MODE);
      return new AtomicFileWriter(handle, partialPath, options.sync ?? true, unrecord);
    } catch (cause) {
      await unrecord();
      throw diskError('create a private temp file in', cause, dir);
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
    await this.writeParts([bytes]);
  }

  /**
   * Appends `parts` in order with gathering writes (`writev`) of at most {@link MAX_WRITE_CALL_BYTES}
   * each, instead of one call per part (and never one huge call: see `write-size.ts`). The arrays must
   * not change until the promise settles.
   *
   * The bytes take their place in the file when this is called (positioned writes after everything
   * passed before), so several calls may run at once and finish in any order: a caller can keep the
   * thread pool writing while its own thread is busy. Any failure fails the file (it is never committed
   * with a hole: the caller aborts it).
   *
   * A file fsynced at its commit is also written back early, every {@link WRITEBACK_EVERY_BYTES} (an
   * `fdatasync` in the thread pool while the writing goes on): otherwise the page cache holds the whole
   * file until the commit, whose fsync then waits for all of it while nothing else runs. A failed early
   * writeback fails the commit (the kernel reports a writeback error once per descriptor, so the commit's
   * own fsync could not be trusted to see it again).
   *
   * @throws {DiskError} `ERR_DISK` on a write failure (disk full, I/O error).
   */
  async writeParts(parts: readonly Uint8Array[]): Promise<void> {
    let left = parts.filter((part) => part.length > 0);
    let position = this.#end;
    for (const part of left) this.#end += part.length;
    try {
      while (left.length > 0) {
        // The next call's parts: up to MAX_WRITE_CALL_BYTES, the last one cut as a view.
        const call: Uint8Array[] = [];
        let room = MAX_WRITE_CALL_BYTES;
        for (const part of left) {
          if (room === 0) break;
          call.push(part.length <= room ? part : part.subarray(0, room));
          room -= Math.min(room, part.length);
        }
        // Short writes are possible: drop what was written and go on with the rest.
        let { bytesWritten } = await this.#handle.writev(call, position);
        this.#written += bytesWritten;
        position += bytesWritten;
        if (this.#sync && this.#written - this.#writebackMark >= WRITEBACK_EVERY_BYTES)
          this.#startWriteback();
        while (left.length > 0 && bytesWritten >= (left[0] as Uint8Array).length) {
          bytesWritten -= (left[0] as Uint8Array).length;
          left = left.slice(1);
        }
        if (bytesWritten > 0) left = [(left[0] as Uint8Array).subarray(bytesWritten), ...left.slice(1)];
      }
    } catch (cause) {
      throw diskError('write the temp file', cause, this.#partialPath);
    }
  }

  /** Starts an `fdatasync` of what is written so far, unless one is running. */
  #startWriteback(): void {
    if (this.#writeback !== undefined || !this.#open) return;
    this.#writebackMark = this.#written;
    this.#writeback = this.#handle.datasync().then(
      () => {
        this.#writeback = undefined;
      },
      (cause: unknown) => {
        this.#writeback = undefined;
        if (!this.#writebackFailed) {
          this.#writebackFailed = true;
          this.#writebackFailure = cause;
        }
      },
    );
  }

  /**
   * Flushes to stable storage, closes, and renames to `finalPath` (same directory or file system).
   *
   * @throws {DiskError} `ERR_DISK` when fsync, close or rename fails; the temp file is then removed.
   */
  async commit(finalPath: string): Promise<void> {
    try {
      await this.#writeback;
      if (this.#writebackFailed) throw this.#writebackFailure;
      if (this.#sync) await this.#handle.sync();
      this.#open = false;
      await this.#handle.close();
      await rename(this.#partialPath, finalPath);
      this.#forget();
      await this.#unrecord();
    } catch (cause) {
      await this.abort();
      throw diskError('move the finished file to', cause, finalPath);
    }
  }

  /** Closes and deletes the temp file; never throws (it runs on error paths). */
  async abort(): Promise<void> {
    if (this.#open) {
      this.#open = false;
      // Never close the descriptor under an fdatasync still running in the thread pool.
      await this.#writeback;
      await this.#handle.close().catch(() => undefined);
    }
    await unlink(this.#partialPath).catch(() => undefined);
    this.#forget();
    await this.#unrecord();
  }
}
