/**
 * Spooling a stream to a private temp file: ffprobe seeks (the MP4 index may sit at the end) and so does
 * libvips for several formats, so a stream is written to disk first. The file lives in a fresh
 * directory made by `mkdtemp` (mode 0700) and is created exclusively with mode 0600; `cleanup` removes
 * the directory, and it runs on every path out, including errors and aborts.
 *
 * @module
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { AbortedError, DiskError, InvalidArgumentError } from '../../core/errors.js';

/** A spooled copy of a stream. */
export interface SpooledFile {
  /** Path of the private copy. */
  path: string;
  /** Bytes written. */
  size: number;
  /** Removes the copy and its directory (idempotent). */
  cleanup(): Promise<void>;
}

function toNodeReadable(stream: ReadableStream<Uint8Array> | NodeJS.ReadableStream): NodeJS.ReadableStream {
  if (typeof (stream as ReadableStream<Uint8Array>).getReader === 'function') {
    return Readable.fromWeb(stream as unknown as WebReadableStream<Uint8Array>);
  }
  if (typeof (stream as NodeJS.ReadableStream).pipe === 'function') return stream as NodeJS.ReadableStream;
  throw new InvalidArgumentError(
    'expected a Web or Node readable stream for `stream` but received an object',
  );
}

/**
 * Writes `stream` to a private temp file.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when the stream's length differs from `expectedSize`.
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts.
 * @throws {DiskError} `ERR_DISK` when the temp file cannot be written.
 */
export async function spoolToTempFile(
  stream: ReadableStream<Uint8Array> | NodeJS.ReadableStream,
  options: { expectedSize?: number | undefined; signal?: AbortSignal | undefined } = {},
): Promise<SpooledFile> {
  const source = toNodeReadable(stream);
  const dir = await mkdtemp(join(tmpdir(), 'happy-media-probe-'));
  const path = join(dir, 'input');
  const cleanup = () => rm(dir, { recursive: true, force: true });
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (options.expectedSize !== undefined && size > options.expectedSize) {
        callback(
          new InvalidArgumentError(
            `expected ${options.expectedSize} bytes for \`size\` but the stream gave more`,
          ),
        );
        return;
      }
      callback(null, chunk);
    },
  });
  try {
    await pipeline(source, counter, createWriteStream(path, { flags: 'wx', mode: 0o600 }), {
      signal: options.signal,
    });
  } catch (error) {
    await cleanup();
    if (options.signal?.aborted) throw new AbortedError(undefined, { cause: error });
    if (error instanceof InvalidArgumentError) throw error;
    throw new DiskError(`could not spool the stream to a temp file: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (options.expectedSize !== undefined && size !== options.expectedSize) {
    await cleanup();
    throw new InvalidArgumentError(
      `expected ${options.expectedSize} bytes for \`size\` but the stream gave ${size} bytes`,
    );
  }
  return { path, size, cleanup };
}
