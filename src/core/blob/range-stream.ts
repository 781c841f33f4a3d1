/**
 * Streaming a plaintext range of a blob (`BlobReader.stream`): the covering chunks are read as one
 * stream from the source, and every chunk is opened as soon as its last byte arrived, so a player's
 * response starts after the first verified chunk instead of after the whole range (a seek's first frame).
 *
 * No byte of a chunk leaves before its tag verified (the cipher returns nothing of a batch that fails);
 * a source that ends early or sends more than asked for is a `DecryptionError`, as for `read`.
 *
 * @module
 */
import { AbortedError, DecryptionError } from '../errors.js';
import type { ChunkCipher } from './chunk-cipher.js';
import { ChunkSplitter } from './chunk-splitter.js';
import { BLOB_CHUNK_SIZE, BLOB_SEALED_CHUNK_SIZE } from './constants.js';
import type { RangeSource } from './random-access.js';
import { chunkOffset } from './sizes.js';

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
export interface OpenBlobParts {
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
export async function* streamChunks(
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
