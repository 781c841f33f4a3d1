/**
 * File to file encryption and decryption with bounded memory and all-or-nothing output.
 *
 * @module
 */

import type { BlobOptions } from '../../core/blob/format.js';
import { openBlobRandomAccess } from '../../core/blob/random-access.js';
import {
  BlobDecryptor,
  BlobEncryptor,
  type BlobEngine,
  type EngineOutput,
  pumpEngine,
} from '../../core/blob/stream.js';
import type { AtomicFileWriter } from '../fs/atomic-file.js';
import { writeFileAllOrNothing } from '../fs/output-file.js';
import { readFileAhead } from '../fs/read-ahead.js';
import { WriteBehind } from '../fs/write-behind.js';
import { fileRangeSource } from './file-range-source.js';
import { checkPlaintextRange, writePlaintextRange } from './plaintext-range.js';

/** Options of {@link decryptFile}: blob options plus an optional plaintext range. */
export interface DecryptFileOptions extends BlobOptions {
  /** First plaintext byte to write (default 0). With `offset` or `length`, only the chunks needed are read. */
  offset?: number;
  /** Number of plaintext bytes to write (default: to the end). */
  length?: number;
}

/**
 * The write-behind of a file job: a push of one read-ahead piece (1 MiB) makes about 1 MiB of output,
 * four 256 KiB batches. All four are written at once (positioned writes in the thread pool) while the
 * next piece is sealed or opened, and the ring holds two pieces' output and the batch being filled, so
 * the cipher goes on while a piece's output is still being written (docs/blob-format.md, "Single thread").
 */
const FILE_WRITE_BEHIND = { buffers: 9, writes: 4 };

/**
 * Pushes `input` (a file read ahead, or the CLI's stdin) through `engine` into the all-or-nothing file
 * `outPath`, with the disk working beside the engine: the next piece is read while this one is sealed or
 * opened (`read-ahead.ts`; the engines copy what they keep of a piece, so its buffer can be reused) and
 * the output is written behind (`write-behind.ts`), so the main thread does not sit waiting for its own
 * reads and writes (docs/blob-format.md, "Single thread").
 *
 * @internal The one sequential file path: `encryptFile`, `decryptFile` and the CLI's `encrypt`/`decrypt`.
 * @throws what the engine throws; {@link DiskError} `ERR_DISK` when reading or writing fails.
 */
export function engineToFile(
  input: AsyncIterable<Uint8Array | string>,
  engine: BlobEngine,
  outPath: string,
): Promise<void> {
  return writeFileAllOrNothing(outPath, async (out: AtomicFileWriter) => {
    const behind = new WriteBehind((parts) => out.writeParts(parts), FILE_WRITE_BEHIND);
    try {
      await pumpEngine(input, engine, (bytes) => behind.add(bytes));
      await behind.flush();
    } catch (error) {
      // No write may still be running when the caller closes and removes the temp file.
      await behind.settle();
      throw error;
    }
  });
}

/**
 * Encrypts the file `inPath` into a Cobblestone-256 blob at `outPath`, streaming (memory stays flat for
 * any size). The output appears only when complete (private temp file beside it, then rename).
 *
 * @param key 32-byte blob key.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad key or option (before any file is touched).
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` past `maxPlaintextBytes`.
 * @throws {DiskError} `ERR_DISK` when reading or writing fails.
 * @example
 * ```ts
 * await encryptFile('clip.mp4', 'clip.bin', blobKey, { context: unboundBlobContext() });
 * ```
 */
export async function encryptFile(
  inPath: string,
  outPath: string,
  key: Uint8Array,
  options: BlobOptions,
): Promise<void> {
  const engine = new BlobEncryptor(key, options, { output: recycledOutput() });
  await engineToFile(readFileAhead(inPath), engine, outPath);
}

/**
 * Output arrays for an engine that {@link engineToFile} drives over {@link readFileAhead}'s pieces: its
 * write-behind copies every output piece before the next push, and a push of at most 1 MiB yields at most
 * two batches (64 chunks each), so two arrays in turn suffice. Reused, they cost no allocation per piece,
 * and the batches land in memory the cache already holds, where fresh arrays cost a page fault per 4 KiB.
 */
function recycledOutput(): EngineOutput {
  const arrays: Uint8Array[] = [];
  let turn = 0;
  return (length) => {
    turn ^= 1;
    let array = arrays[turn];
    if (array === undefined || array.length < length) {
      array = new Uint8Array(length);
      arrays[turn] = array;
    }
    return array.subarray(0, length);
  };
}

/**
 * Decrypts the blob `inPath` into `outPath`. The output appears only after every chunk it contains
 * verified (private temp file, mode 0600, beside it; renamed at the end); after any failure `outPath`
 * does not exist (or keeps its earlier content). With `offset`/`length` only that plaintext range is
 * written, reading only the chunks it needs; the final chunk is authenticated first, so a truncated
 * blob is rejected even when the range is not at its end.
 *
 * @param key 32-byte blob key.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or context, modification, truncation,
 * reordering or trailing data.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad key, option or a range past the end.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` past `maxPlaintextBytes`.
 * @throws {DiskError} `ERR_DISK` when reading or writing fails.
 * @example
 * ```ts
 * await decryptFile('clip.bin', 'clip.mp4', blobKey, { context: unboundBlobContext() });
 * await decryptFile('stored.bin', 'first-mib.mp4', blobKey, { context: mediaBlobContext(ref), offset: 0, length: 1 << 20 });
 * ```
 */
export async function decryptFile(
  inPath: string,
  outPath: string,
  key: Uint8Array,
  options: DecryptFileOptions,
): Promise<void> {
  const { offset, length, ...blobOptions } = options ?? {};
  if (offset === undefined && length === undefined) {
    const engine = new BlobDecryptor(key, blobOptions, { output: recycledOutput() });
    await engineToFile(readFileAhead(inPath), engine, outPath);
    return;
  }
  checkPlaintextRange({ offset, length });
  const source = fileRangeSource(inPath);
  try {
    const reader = await openBlobRandomAccess(source, key, blobOptions);
    await writePlaintextRange(reader, outPath, { offset, length });
  } finally {
    await source.close();
  }
}
