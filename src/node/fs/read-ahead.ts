/**
 * Sequential file reading with the next read always in flight, into two buffers used in turn.
 *
 * Why not `createReadStream`: it allocates a fresh buffer for every read, whose pages the kernel must fault
 * in (slower than reading a cached file itself), and its reads take turns with the sealing, so
 * `encryptFile` would pay the sum of both. Two reused buffers fault nothing after the first reads, and
 * with one read running while the previous piece is sealed, reading and sealing overlap (figures:
 * docs/blob-format.md, "Single thread").
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { type FileHandle, open } from 'node:fs/promises';
import { diskError } from './disk-error.js';

/** Bytes per read: large enough to amortise the call, small enough to keep memory flat (two of them). */
export const READ_AHEAD_BYTES = 1024 * 1024;

/**
 * Yields the bytes of the file at `path` in order, in pieces of at most `pieceBytes`, reading the next
 * piece while the caller works on this one.
 *
 * Each piece is a view into one of two buffers that are reused: it is valid only until the caller asks
 * for the next piece (copy what must outlive that). The file is closed when the loop ends, however it
 * ends, after any read still running.
 *
 * @throws {DiskError} `ERR_DISK` when the file cannot be opened or read.
 * @example
 * ```ts
 * for await (const piece of readFileAhead('clip.mp4')) await engine.push(piece); // push copies what it keeps
 * ```
 */
export async function* readFileAhead(
  path: string,
  pieceBytes = READ_AHEAD_BYTES,
): AsyncGenerator<Uint8Array, void, undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (cause) {
    throw diskError('read', cause, path);
  }
  const buffers = [new Uint8Array(pieceBytes), new Uint8Array(pieceBytes)];
  let position = 0;
  let turn = 0;
  let inFlight: Promise<{ bytesRead: number }> | undefined;
  try {
    // A pipe or a device has no positions (pread fails with ESPIPE): read it where it stands. One read is
    // in flight at a time, so the order is the same either way.
    const positioned = (await handle.stat()).isFile();
    const readInto = (buffer: Uint8Array) => handle.read(buffer, 0, pieceBytes, positioned ? position : null);
    inFlight = readInto(buffers[0] as Uint8Array);
    for (;;) {
      const { bytesRead } = await inFlight;
      inFlight = undefined;
      if (bytesRead === 0) return;
      const piece = (buffers[turn] as Uint8Array).subarray(0, bytesRead);
      position += bytesRead;
      turn ^= 1;
      // The other buffer's piece was handed out before the last one, so the caller is done with it.
      inFlight = readInto(buffers[turn] as Uint8Array);
      yield piece;
    }
  } catch (cause) {
    throw diskError('read', cause, path);
  } finally {
    // Never close the descriptor under a read still running in the thread pool.
    if (inFlight) await inFlight.catch(() => undefined);
    await handle.close().catch(() => undefined);
  }
}
