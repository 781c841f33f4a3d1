/**
 * Spooling a stream to a private temp file: probing needs a seekable file (sharp, ffprobe), and a stream
 * can be read only once, so a stream without a ready probe is written to disk first and then read twice
 * (probe, then encrypt). Memory stays bounded; the file is 0600 in a 0700 directory and always removed.
 *
 * @module
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskError } from '../../core/errors.js';
import { readSizedBody } from '../storage/sized-body.js';

/** A spooled copy of a stream and the function that removes it. */
export interface SpooledFile {
  /** Path of the private copy. */
  path: string;
  /** Removes the file and its directory; safe to call twice. */
  cleanup(): Promise<void>;
}

/**
 * Writes exactly `size` bytes of `stream` to a private temp file.
 *
 * @throws {StorageError} `ERR_UPLOAD_FAILED` when the stream is shorter or longer than `size`.
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts (nothing is left on disk).
 * @throws {DiskError} `ERR_DISK` when the temp file cannot be written.
 */
export async function spoolToPrivateFile(
  stream: ReadableStream<Uint8Array>,
  size: number,
  signal?: AbortSignal,
): Promise<SpooledFile> {
  let dir: string;
  try {
    dir = await mkdtemp(join(tmpdir(), 'happy-media-send-'));
  } catch (cause) {
    throw new DiskError('could not create a private temp directory to spool the input', { cause });
  }
  const cleanup = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'input');
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      for await (const chunk of readSizedBody(stream, size, { signal })) {
        let at = 0;
        while (at < chunk.length) at += (await handle.write(chunk, at, chunk.length - at)).bytesWritten;
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
  return { path, cleanup };
}
