/**
 * A pull-based Web stream over a byte range of an open file. Written by hand rather than with
 * `Readable.toWeb(createReadStream())` so that reading happens only when the consumer pulls (one chunk
 * in flight, bounded memory) and the file is closed on every path: end, cancel, abort, error.
 *
 * @module
 */
import type { FileHandle } from 'node:fs/promises';
import { AbortedError, DiskError, HappyMediaError, StorageError } from '../../core/errors.js';

/** Default bytes read per pull. */
export const FILE_STREAM_CHUNK_BYTES = 256 * 1024;

/** Options of {@link fileHandleStream}. */
export interface FileStreamOptions {
  /** First byte (default 0). */
  start?: number;
  /** End, exclusive (required: the caller knows the size it announced). */
  end: number;
  /** Bytes per pull (default {@link FILE_STREAM_CHUNK_BYTES}). */
  chunkBytes?: number;
  /** Ends the stream with `ERR_ABORTED`. */
  signal?: AbortSignal;
}

/**
 * Streams `[start, end)` of `handle` and closes the handle when the stream is done, cancelled or failed.
 * A file that turns out shorter than `end` errors the stream (the size was announced up front).
 */
export function fileHandleStream(handle: FileHandle, options: FileStreamOptions): ReadableStream<Uint8Array> {
  const { end, signal } = options;
  const chunkBytes = options.chunkBytes ?? FILE_STREAM_CHUNK_BYTES;
  let position = options.start ?? 0;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      async start(controller) {
        if (position >= end) {
          await close();
          controller.close();
        }
      },
      async pull(controller) {
        if (signal?.aborted) {
          await close();
          controller.error(new AbortedError('reading the file was aborted', { cause: signal.reason }));
          return;
        }
        try {
          const want = Math.min(chunkBytes, end - position);
          const chunk = new Uint8Array(want);
          const { bytesRead } = await handle.read(chunk, 0, want, position);
          if (bytesRead === 0) {
            throw new StorageError(
              `the file ended at byte ${position} but ${end} bytes were expected (it changed while being read)`,
              {
                code: 'ERR_UPLOAD_FAILED',
              },
            );
          }
          position += bytesRead;
          controller.enqueue(bytesRead === want ? chunk : chunk.subarray(0, bytesRead));
          if (position >= end) {
            await close();
            controller.close();
          }
        } catch (error) {
          await close();
          const code = (error as NodeJS.ErrnoException).code;
          controller.error(
            error instanceof HappyMediaError
              ? error
              : new DiskError(`could not read the file${code ? ` (${code})` : ''}`, { cause: error }),
          );
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}
