/**
 * Spooling a stream to a private temp file: probing needs a seekable file (ffprobe, libvips: an MP4
 * index may sit at the end), and a stream can be read only once, so it is written to disk first. The
 * file is 0600 in an owner-stamped 0700 directory under the OS temp dir; `cleanup` removes it on every
 * path out, the exit hook if the caller forgets, and the next run's sweep if the process is killed.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addAbortSignal, Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { AbortedError, HappyMediaError, InvalidArgumentError } from '../../core/errors.js';
import { AtomicFileWriter } from './atomic-file.js';
import { diskError } from './disk-error.js';
import { createPrivateDirectory } from './private-dir.js';

/** Prefix of spool directories under the OS temp dir (an owner stamp follows). */
export const SPOOL_DIR_PREFIX = 'happy-media-spool-';

/** A spooled copy of a stream. */
export interface SpooledFile {
  /** Path of the private copy. */
  path: string;
  /** Bytes written. */
  size: number;
  /** Removes the copy and its directory (idempotent). */
  cleanup(): Promise<void>;
}

/** Options of {@link spoolToPrivateFile}. */
export interface SpoolOptions {
  /** The exact length the stream must have. */
  expectedSize?: number | undefined;
  /** Cancels with `ERR_ABORTED`; nothing is left on disk. */
  signal?: AbortSignal | undefined;
}

function toNodeReadable(stream: ReadableStream<Uint8Array> | NodeJS.ReadableStream): Readable {
  if (typeof (stream as ReadableStream<Uint8Array>).getReader === 'function') {
    return Readable.fromWeb(stream as unknown as WebReadableStream<Uint8Array>);
  }
  if (stream instanceof Readable) return stream;
  if (typeof (stream as NodeJS.ReadableStream).pipe === 'function') {
    return new Readable().wrap(stream as NodeJS.ReadableStream);
  }
  throw new InvalidArgumentError(
    'expected a Web or Node readable stream for `stream` but received an object',
  );
}

function sizeMismatch(expected: number, received: string): InvalidArgumentError {
  return new InvalidArgumentError(`expected ${expected} bytes for \`size\` but the stream gave ${received}`);
}

/**
 * Writes `stream` to a private temp file.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when the stream's length differs from
 *   `expectedSize` (shorter or longer: the same mistake, the same code).
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts.
 * @throws {DiskError} `ERR_DISK` when the temp file cannot be written or the stream fails.
 * @example
 * ```ts
 * const spooled = await spoolToPrivateFile(request.body, { expectedSize: 1234 });
 * try { await probeMedia(spooled.path); } finally { await spooled.cleanup(); }
 * ```
 */
export async function spoolToPrivateFile(
  stream: ReadableStream<Uint8Array> | NodeJS.ReadableStream,
  options: SpoolOptions = {},
): Promise<SpooledFile> {
  const { expectedSize, signal } = options;
  const source = toNodeReadable(stream);
  if (signal) addAbortSignal(signal, source);
  const dir = await createPrivateDirectory(tmpdir(), SPOOL_DIR_PREFIX);
  const path = join(dir.path, 'input');
  let size = 0;
  try {
    // The file is private and removed after use: fsync would only cost time.
    const writer = await AtomicFileWriter.create(dir.path, { sync: false });
    try {
      for await (const chunk of source) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
        size += bytes.length;
        if (expectedSize !== undefined && size > expectedSize) {
          throw sizeMismatch(expectedSize, 'more');
        }
        await writer.write(bytes);
      }
      if (expectedSize !== undefined && size !== expectedSize) {
        throw sizeMismatch(expectedSize, `${size} bytes`);
      }
      await writer.commit(path);
    } catch (error) {
      await writer.abort();
      throw error;
    }
  } catch (error) {
    source.destroy();
    await dir.remove();
    if (signal?.aborted) throw new AbortedError(undefined, { cause: error });
    throw error instanceof HappyMediaError ? error : diskError('spool the stream to', error, path);
  }
  return { path, size, cleanup: () => dir.remove() };
}
