/**
 * A {@link RangeSource} over a local file, for random access to an encrypted blob on disk.
 *
 * @module
 */
import { readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import type { RangeSource } from '../../core/blob/random-access.js';
import { assertBytes, assertNonNegativeInteger, describeValue } from '../../core/bytes.js';
import { AbortedError, InvalidArgumentError } from '../../core/errors.js';
import { diskError } from '../fs/disk-error.js';

/** A file-backed range source; call `close()` when done. */
export interface FileRangeSource extends RangeSource {
  /** Closes the file handle (safe to call twice). */
  close(): Promise<void>;
}

/** Options of {@link fileRangeSource}. */
export interface FileRangeSourceOptions {
  /**
   * Read on the calling thread (`readSync`) instead of in libuv's thread pool (default false). For a
   * file in the page cache, random access then runs faster, most of all on a machine whose cores are
   * busy: each hand-over to the thread pool and back costs the main thread more than copying the bytes,
   * and the pool's thread competes with it for a core. But every read then blocks the event loop for as
   * long as it takes: a cold disk's seek, a network file system's round trip. For a process that does
   * nothing else meanwhile (a command-line tool, a worker of its own), not for a server.
   */
  blockingReads?: boolean;
}

/**
 * Opens `path` lazily (on the first `size()`/`read()`) and reads ranges with positioned reads, so
 * nothing but the requested bytes is ever held in memory; `readInto` reads into the reader's own arrays
 * (random access reuses them from read to read, and reads its next window while decrypting this one).
 * With `blockingReads`, each read runs on the calling thread ({@link FileRangeSourceOptions}).
 *
 * @throws {DiskError} `ERR_DISK` (from `size`/`read`) when the file cannot be opened or read.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `options.blockingReads` is not a boolean.
 * @example
 * ```ts
 * const source = fileRangeSource('clip.bin');
 * try {
 *   const reader = await openBlobRandomAccess(source, blobKey, { context: unboundBlobContext() });
 *   const head = await reader.read(0, 1024);
 * } finally { await source.close(); }
 * ```
 */
export function fileRangeSource(path: string, options: FileRangeSourceOptions = {}): FileRangeSource {
  const blocking = options.blockingReads ?? false;
  if (typeof blocking !== 'boolean') {
    throw new InvalidArgumentError(
      `expected a boolean for \`options.blockingReads\` but received ${describeValue(blocking)}`,
    );
  }
  let opening: Promise<FileHandle> | undefined;
  let closed = false;
  const handle = (): Promise<FileHandle> => {
    if (closed) return Promise.reject(diskError('read (source closed)', undefined, path));
    opening ??= open(path, 'r').catch((cause: unknown) => {
      throw diskError('open', cause, path);
    });
    return opening;
  };
  /** Reads into `out` from `offset` until it is full or the file ends; resolves with the bytes read. */
  const readInto = async (offset: number, out: Uint8Array, signal?: AbortSignal): Promise<number> => {
    assertNonNegativeInteger(offset, 'offset');
    assertBytes(out, 'out');
    if (signal?.aborted) throw new AbortedError();
    const file = await handle();
    let filled = 0;
    try {
      while (filled < out.length) {
        const bytesRead = blocking
          ? readSync(file.fd, out, filled, out.length - filled, offset + filled)
          : (await file.read(out, filled, out.length - filled, offset + filled)).bytesRead;
        if (bytesRead === 0) break; // end of file
        filled += bytesRead;
      }
    } catch (cause) {
      throw diskError('read', cause, path);
    }
    return filled;
  };
  return {
    async size() {
      try {
        return (await (await handle()).stat()).size;
      } catch (cause) {
        throw diskError('stat', cause, path);
      }
    },
    async read(offset, length, signal) {
      assertNonNegativeInteger(length, 'length');
      // Not zero-filled (a megabyte per random-access read): every byte handed out is read from the file,
      // and a short read is returned as a copy, so the uninitialised tail is never reachable.
      const raw = Buffer.allocUnsafeSlow(length);
      const out = new Uint8Array(raw.buffer, raw.byteOffset, length);
      const filled = await readInto(offset, out, signal);
      return filled === length ? out : out.slice(0, filled);
    },
    readInto,
    async close() {
      closed = true;
      if (opening) await (await opening.catch(() => undefined))?.close();
      opening = undefined;
    },
  };
}
