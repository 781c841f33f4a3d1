/**
 * Random access: decrypt any plaintext range of a blob by reading only the chunks it covers.
 *
 * Opening a reader reads the header (and checks the commitment), then reads and authenticates the final
 * chunk, so `plaintextSize` is trustworthy before anything else is read: a truncated or extended blob is
 * rejected here, not at the end of playback. Chunks in between are verified as they are read.
 *
 * @module
 */
import { assertBytes, assertNonNegativeInteger } from '../bytes.js';
import { AbortedError, DecryptionError, InvalidArgumentError } from '../errors.js';
import type { ChunkCipher } from './backend.js';
import {
  BLOB_BATCH_CHUNKS,
  BLOB_CHUNK_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_KEY_SIZE,
  BLOB_SALT_SIZE,
  BLOB_SEALED_CHUNK_SIZE,
} from './constants.js';
import { deriveBlobKeys, verifyCommitment } from './key-schedule.js';
import { type BlobOptions, checkPlaintextLimit, resolveBlobOptions } from './options.js';
import { blobLayout, chunkOffset } from './sizes.js';

/** Reads byte ranges of a ciphertext: a buffer, a file handle, an HTTP Range reader, a storage ref. */
export interface RangeSource {
  /** Total ciphertext length in bytes. */
  size(): Promise<number>;
  /** Reads exactly `length` bytes at `offset` (fewer only at the end of the data). */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
}

/** Decrypted random access to one blob. */
export interface BlobReader {
  /** Plaintext length, authenticated by the final chunk. */
  readonly plaintextSize: number;
  /**
   * Decrypts plaintext bytes `[offset, offset + length)`, reading only the chunks they lie in; each
   * chunk is verified before any of its bytes is returned.
   *
   * @throws {InvalidArgumentError} when the range is not inside `[0, plaintextSize]`.
   * @throws {DecryptionError} when a chunk does not verify or the source returns short data.
   * @throws {AbortedError} when `signal` is aborted.
   */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
}

/**
 * A {@link RangeSource} over bytes in memory (returns views into `bytes`, which must not change).
 *
 * @throws {InvalidArgumentError} when `bytes` is not a `Uint8Array`.
 * @example
 * ```ts
 * const reader = await openBlobRandomAccess(bufferRangeSource(blob), blobKey);
 * ```
 */
export function bufferRangeSource(bytes: Uint8Array): RangeSource {
  assertBytes(bytes, 'bytes');
  return {
    size: async () => bytes.length,
    read: async (offset, length, signal) => {
      if (signal?.aborted) throw new AbortedError();
      assertNonNegativeInteger(offset, 'offset');
      assertNonNegativeInteger(length, 'length');
      return bytes.subarray(offset, Math.min(bytes.length, offset + length));
    },
  };
}

/** Reads exactly `length` bytes or fails: a source that returns less than it announced is not authentic. */
async function readExactly(
  source: RangeSource,
  offset: number,
  length: number,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  if (signal?.aborted) throw new AbortedError();
  const bytes = await source.read(offset, length, signal);
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) throw new DecryptionError();
  return bytes;
}

/**
 * Opens a blob for random access.
 *
 * @param source where the ciphertext is read from.
 * @param key 32-byte blob key.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when the length is impossible (truncated or extended),
 * the commitment or the final chunk does not verify (wrong key or context, modification).
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the plaintext is longer than `maxPlaintextBytes`.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad key or option.
 * @example
 * ```ts
 * const reader = await openBlobRandomAccess(fileRangeSource('video.bin'), blobKey);
 * const firstMegabyte = await reader.read(0, Math.min(reader.plaintextSize, 1 << 20));
 * ```
 */
export async function openBlobRandomAccess(
  source: RangeSource,
  key: Uint8Array,
  options?: BlobOptions,
): Promise<BlobReader> {
  assertBytes(key, 'key', BLOB_KEY_SIZE);
  const resolved = resolveBlobOptions(options);
  if (typeof source !== 'object' || source === null || typeof source.read !== 'function') {
    throw new InvalidArgumentError('expected a RangeSource with size() and read() for `source`');
  }
  const size = await source.size();
  const layout = blobLayout(size);
  if (layout === undefined) throw new DecryptionError();
  checkPlaintextLimit(layout.plaintextSize, resolved);

  const header = await readExactly(source, 0, BLOB_HEADER_SIZE);
  const keys = deriveBlobKeys(key, header.subarray(0, BLOB_SALT_SIZE), resolved.context);
  verifyCommitment(header.subarray(BLOB_SALT_SIZE), keys);
  const cipher: ChunkCipher = await resolved.backend.createChunkCipher(keys.aeadKey, keys.baseNonce);
  keys.aeadKey.fill(0);

  const { finalIndex, finalSealedSize } = layout;
  const finalSealed = await readExactly(source, chunkOffset(finalIndex), finalSealedSize);
  const finalPlain = await cipher.open(finalIndex, [finalSealed]);

  return {
    plaintextSize: layout.plaintextSize,
    async read(offset, length, signal) {
      assertNonNegativeInteger(offset, 'offset');
      assertNonNegativeInteger(length, 'length');
      if (offset + length > layout.plaintextSize) {
        throw new InvalidArgumentError(
          `expected a range inside the ${layout.plaintextSize}-byte plaintext for \`offset\`/\`length\` but received ${offset}+${length}`,
        );
      }
      const out = new Uint8Array(length);
      if (length === 0) return out;
      const end = offset + length;
      const first = Math.floor(offset / BLOB_CHUNK_SIZE);
      const last = Math.floor((end - 1) / BLOB_CHUNK_SIZE);
      let written = 0;
      for (let batchStart = first; batchStart <= last; batchStart += BLOB_BATCH_CHUNKS) {
        const batchEnd = Math.min(last, batchStart + BLOB_BATCH_CHUNKS - 1);
        // The final chunk was verified at open; reuse it rather than reading it again.
        const readEnd = Math.min(batchEnd, finalIndex - 1);
        const plains: Uint8Array[] = [];
        if (readEnd >= batchStart) {
          const count = readEnd - batchStart + 1;
          const bytes = await readExactly(
            source,
            chunkOffset(batchStart),
            count * BLOB_SEALED_CHUNK_SIZE,
            signal,
          );
          const sealed: Uint8Array[] = [];
          for (let i = 0; i < count; i++) {
            sealed.push(bytes.subarray(i * BLOB_SEALED_CHUNK_SIZE, (i + 1) * BLOB_SEALED_CHUNK_SIZE));
          }
          const opened = await cipher.open(batchStart, sealed);
          // Every chunk before the final one is full-size, so chunk i of the batch is at i * 16384.
          for (let i = 0; i < count; i++)
            plains.push(opened.subarray(i * BLOB_CHUNK_SIZE, (i + 1) * BLOB_CHUNK_SIZE));
        }
        if (batchEnd === finalIndex) plains.push(finalPlain);
        for (let i = 0; i < plains.length; i++) {
          const chunkStart = (batchStart + i) * BLOB_CHUNK_SIZE;
          const plain = plains[i] as Uint8Array;
          const from = Math.max(offset, chunkStart) - chunkStart;
          const to = Math.min(end, chunkStart + plain.length) - chunkStart;
          out.set(plain.subarray(from, to), written);
          written += to - from;
        }
      }
      return out;
    },
  };
}
