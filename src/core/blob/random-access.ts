/**
 * Random access: decrypt any plaintext range of a blob by reading only the chunks it covers, from any
 * {@link RangeSource} (a buffer, a file, a store, a URL).
 *
 * Opening a reader reads the header (and checks the commitment), then reads and authenticates the final
 * chunk, so `plaintextSize` is trustworthy before anything else is read: a truncated or extended blob is
 * rejected here, not at the end of playback. Chunks in between are verified as they are read.
 *
 * A range is read whole (`read`) or streamed (`stream`): the covering chunks arrive as one stream from the
 * source, and every chunk is opened as soon as its last byte arrived, so a player's response starts after
 * the first verified chunk instead of after the whole range (a seek's first frame). No byte of a chunk
 * leaves before its tag verified (the cipher returns nothing of a batch that fails); a source that ends
 * early or sends more than asked for is a `DecryptionError`.
 *
 * @module
 */
import { assertBytes, assertNonNegativeInteger } from '../bytes.js';
import { AbortedError, DecryptionError, InvalidArgumentError } from '../errors.js';
import { type ChunkCipher, createChunkCipher } from './chunk-cipher.js';
import {
  BLOB_BATCH_CHUNKS,
  BLOB_CHUNK_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_KEY_SIZE,
  BLOB_SEALED_CHUNK_SIZE,
  type BlobOptions,
  checkPlaintextLimit,
  openBlobHeader,
  resolveBlobOptions,
} from './format.js';
import { blobLayout, chunkOffset } from './sizes.js';
import { ChunkSplitter } from './stream.js';

/**
 * Chunks per source read of {@link BlobReader.read}: 1024 (16 MiB of ciphertext). A 1 MiB read is one
 * source read; a long one is read in spans, the next read overlapping the current span's decryption.
 */
const READ_SPAN_CHUNKS = 1024;

/** Reads byte ranges of a ciphertext: a buffer, a file handle, an HTTP Range reader, a storage ref. */
export interface RangeSource {
  /** Total ciphertext length in bytes. */
  size(): Promise<number>;
  /** Reads exactly `length` bytes at `offset` (fewer only at the end of the data). */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
  /**
   * Optional: the same bytes as {@link RangeSource.read}, in order, as they arrive (a download's pieces),
   * so that {@link BlobReader.stream} can verify and release the first chunks before the last arrive.
   * Each piece must stay unchanged after it is yielded.
   */
  stream?(offset: number, length: number, signal?: AbortSignal): AsyncIterable<Uint8Array>;
}

/** Decrypted random access to one blob. */
export interface BlobReader {
  /** Plaintext length, authenticated by the final chunk. */
  readonly plaintextSize: number;
  /**
   * Decrypts plaintext bytes `[offset, offset + length)`, reading only the chunks they lie in; each
   * chunk is verified before any of its bytes is returned. The result may be a view into an array that
   * also holds the rest of the chunks it lies in (verified plaintext of the same blob, at most 32 KiB
   * more): copy it (`.slice()`) before transferring its `.buffer`.
   *
   * @throws {InvalidArgumentError} when the range is not inside `[0, plaintextSize]`.
   * @throws {DecryptionError} when a chunk does not verify or the source returns short data.
   * @throws {AbortedError} when `signal` is aborted.
   */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
  /**
   * The plaintext bytes `[offset, offset + length)` in order, as each chunk verifies: a player's response
   * can start after the first chunk of a range arrived, instead of after the whole range was read. Reads
   * the source's {@link RangeSource.stream} when it has one, else spans through `read`. Nothing of a chunk
   * is yielded before its tag verified; a chunk that fails ends the iteration with the error, after the
   * chunks before it. Pieces are views (see {@link BlobReader.read}).
   *
   * @throws {InvalidArgumentError} when the range is not inside `[0, plaintextSize]` (at the first step).
   * @throws {DecryptionError} when a chunk does not verify or the source returns short or extra data.
   * @throws {AbortedError} when `signal` is aborted.
   */
  stream(offset: number, length: number, signal?: AbortSignal): AsyncGenerator<Uint8Array, void, undefined>;
}

/**
 * A {@link RangeSource} over bytes in memory (returns views into `bytes`, which must not change).
 *
 * @throws {InvalidArgumentError} when `bytes` is not a `Uint8Array`.
 * @example
 * ```ts
 * const reader = await openBlobRandomAccess(bufferRangeSource(blob), blobKey, { context: mediaBlobContext(ref) });
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

/** Checks that `[offset, offset + length)` lies inside the plaintext. */
function assertRange(offset: number, length: number, plaintextSize: number): void {
  assertNonNegativeInteger(offset, 'offset');
  assertNonNegativeInteger(length, 'length');
  if (offset + length > plaintextSize) {
    throw new InvalidArgumentError(
      `expected a range inside the ${plaintextSize}-byte plaintext for \`offset\`/\`length\` but received ${offset}+${length}`,
    );
  }
}

/** Views of the full-size sealed chunks that `bytes` (a whole number of them) holds, in order. */
function sealedChunks(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += BLOB_SEALED_CHUNK_SIZE) {
    chunks.push(bytes.subarray(at, at + BLOB_SEALED_CHUNK_SIZE));
  }
  return chunks;
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
 * const reader = await openBlobRandomAccess(fileRangeSource('video.bin'), blobKey, { context: unboundBlobContext() });
 * const firstMegabyte = await reader.read(0, Math.min(reader.plaintextSize, 1 << 20));
 * ```
 */
export async function openBlobRandomAccess(
  source: RangeSource,
  key: Uint8Array,
  options: BlobOptions,
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
  const keys = openBlobHeader(key, header, resolved.context);
  const cipher: ChunkCipher = await createChunkCipher(resolved.aesGcm, keys.aeadKey, keys.baseNonce);
  keys.aeadKey.fill(0);

  const { finalIndex, finalSealedSize } = layout;
  const finalSealed = await readExactly(source, chunkOffset(finalIndex), finalSealedSize);
  const finalPlain = await cipher.open(finalIndex, [finalSealed]);

  return {
    plaintextSize: layout.plaintextSize,
    async *stream(offset, length, signal) {
      assertRange(offset, length, layout.plaintextSize);
      yield* streamChunks({ source, cipher, finalIndex, finalPlain }, offset, length, signal);
    },
    async read(offset, length, signal) {
      assertRange(offset, length, layout.plaintextSize);
      if (length === 0) return new Uint8Array(0);
      const end = offset + length;
      const first = Math.floor(offset / BLOB_CHUNK_SIZE);
      const last = Math.floor((end - 1) / BLOB_CHUNK_SIZE);
      // The final chunk was verified at open; reuse it rather than reading it again.
      const lastRead = Math.min(last, finalIndex - 1);
      /** Reads the sealed chunks `[start, start + span)`, capped at the last one to read. */
      const readSpan = (start: number) =>
        readExactly(
          source,
          chunkOffset(start),
          (Math.min(lastRead, start + READ_SPAN_CHUNKS - 1) - start + 1) * BLOB_SEALED_CHUNK_SIZE,
          signal,
        );
      if (last < finalIndex && last - first < READ_SPAN_CHUNKS) {
        // The common case (a player's range, a 1 MiB read): one span, one cipher call, whose output is
        // returned as a view: each chunk's plaintext is copied once (by the cipher, after its tag
        // verified), and no zero-filled array is made only to be overwritten.
        const plain = await cipher.open(first, sealedChunks(await readSpan(first)));
        const from = offset - first * BLOB_CHUNK_SIZE;
        return plain.subarray(from, from + length);
      }
      const out = new Uint8Array(length);
      let written = 0;
      const copyOut = (chunkIndex: number, plain: Uint8Array) => {
        const chunkStart = chunkIndex * BLOB_CHUNK_SIZE;
        const from = Math.max(offset, chunkStart) - chunkStart;
        const to = Math.min(end, chunkStart + plain.length) - chunkStart;
        out.set(plain.subarray(from, to), written);
        written += to - from;
      };
      // One source read per span (not per batch), and the next span is read while this one is decrypted.
      let pending = first <= lastRead ? readSpan(first) : undefined;
      for (let spanStart = first; pending !== undefined; spanStart += READ_SPAN_CHUNKS) {
        const bytes = await pending;
        const nextStart = spanStart + READ_SPAN_CHUNKS;
        pending = nextStart <= lastRead ? readSpan(nextStart) : undefined;
        try {
          const count = bytes.length / BLOB_SEALED_CHUNK_SIZE;
          // Batches of a span are opened together: concurrently for an asynchronous AES-GCM (WebCrypto).
          const opening: (Uint8Array | Promise<Uint8Array>)[] = [];
          const sealed = sealedChunks(bytes);
          for (let b = 0; b < count; b += BLOB_BATCH_CHUNKS) {
            opening.push(cipher.open(spanStart + b, sealed.slice(b, b + BLOB_BATCH_CHUNKS)));
          }
          const opened = await Promise.all(opening);
          // Every chunk before the final one is full-size, so chunk i of a batch is at i * 16384.
          for (const [k, batch] of opened.entries()) {
            for (let at = 0; at < batch.length; at += BLOB_CHUNK_SIZE) {
              copyOut(
                spanStart + k * BLOB_BATCH_CHUNKS + at / BLOB_CHUNK_SIZE,
                batch.subarray(at, at + BLOB_CHUNK_SIZE),
              );
            }
          }
        } catch (error) {
          // The prefetched span is abandoned; keep its failure from surfacing as an unhandled rejection.
          pending?.catch(() => undefined);
          throw error;
        }
      }
      if (last === finalIndex) copyOut(finalIndex, finalPlain);
      return out;
    },
  };
}

/**
 * Chunks per source request: 16 (256 KiB), the next requested when the consumer has taken the last.
 * A player's open-ended request (`bytes=0-`, the whole rest of the file) is often abandoned after a few
 * frames, and a seek's request at the next seek, so what an abandoned request downloaded and never played
 * stays within one window (windows that grow let a player that only partly played a blob download
 * nearly all of it: docs/blob-format.md, "Random access"). A range of at most {@link ONE_REQUEST_CHUNKS}
 * (512 KiB) is one request: a seek's 256 KiB covers 17 chunks, and splitting it 16 + 1 would cost a
 * second round trip. Within a request, chunks are released as they arrive.
 */
const WINDOW_CHUNKS = 16;
const ONE_REQUEST_CHUNKS = 2 * WINDOW_CHUNKS;

/** What {@link streamChunks} needs of an open reader. */
interface OpenBlobParts {
  readonly source: RangeSource;
  readonly cipher: ChunkCipher;
  /** Index of the final chunk, verified at open. */
  readonly finalIndex: number;
  /** Plaintext of the final chunk (not read again). */
  readonly finalPlain: Uint8Array;
}

/** The source's bytes `[offset, offset + length)`: its own stream, or one `read`. */
async function* sourcePieces(
  source: RangeSource,
  offset: number,
  length: number,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (source.stream) yield* source.stream(offset, length, signal);
  else yield await source.read(offset, length, signal);
}

/**
 * Yields the verified plaintext of `[offset, offset + length)` (already checked to lie inside the blob),
 * chunk batch by chunk batch, as the sealed chunks arrive.
 */
async function* streamChunks(
  blob: OpenBlobParts,
  offset: number,
  length: number,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (length === 0) return;
  const end = offset + length;
  const first = Math.floor(offset / BLOB_CHUNK_SIZE);
  const last = Math.floor((end - 1) / BLOB_CHUNK_SIZE);
  const lastRead = Math.min(last, blob.finalIndex - 1);
  /** The part of `plain` (chunks from `index` on, each full-size but the final one) inside the range. */
  const cut = (index: number, plain: Uint8Array) => {
    const start = index * BLOB_CHUNK_SIZE;
    const from = Math.max(offset, start) - start;
    const to = Math.min(end, start + plain.length) - start;
    return plain.subarray(from, Math.max(from, to));
  };
  // Sealed chunks are opened where they lie in a piece; one split across two pieces is gathered first.
  const chunks = new ChunkSplitter(BLOB_SEALED_CHUNK_SIZE);
  const covering = lastRead - first + 1;
  const windowChunks = covering <= ONE_REQUEST_CHUNKS ? covering : WINDOW_CHUNKS;
  for (let window = first; window <= lastRead; window += windowChunks) {
    const expected = (Math.min(lastRead, window + windowChunks - 1) - window + 1) * BLOB_SEALED_CHUNK_SIZE;
    let received = 0;
    let index = window;
    for await (const piece of sourcePieces(blob.source, chunkOffset(window), expected, signal)) {
      if (signal?.aborted) throw new AbortedError();
      if (!(piece instanceof Uint8Array)) throw new DecryptionError();
      received += piece.length;
      if (received > expected) throw new DecryptionError();
      const ready = chunks.push(piece);
      if (ready.length > 0) {
        const plain = await blob.cipher.open(index, ready);
        const inRange = cut(index, plain);
        index += ready.length;
        if (inRange.length > 0) yield inRange;
      }
    }
    // Fewer bytes than the window's chunks: the source is short, which an authentic blob never is.
    if (received !== expected) throw new DecryptionError();
  }
  if (last === blob.finalIndex) {
    const inRange = cut(blob.finalIndex, blob.finalPlain);
    if (inRange.length > 0) yield inRange;
  }
}
