/**
 * Size arithmetic: plaintext length ⇄ ciphertext length, and where chunk `k` lies. Pure functions, so an
 * upload can be announced with its exact length before the first byte is encrypted.
 *
 * @module
 */
import { assertNonNegativeInteger } from '../bytes.js';
import { FormatError, LimitError } from '../errors.js';
import {
  BLOB_CHUNK_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_MAX_CHUNKS,
  BLOB_SEALED_CHUNK_SIZE,
  BLOB_TAG_SIZE,
} from './format.js';

/**
 * Number of chunks a plaintext of `plaintextLength` bytes is cut into. The final chunk is always shorter
 * than a full chunk, so a multiple of 16 KiB gets one extra, empty chunk.
 *
 * @throws {InvalidArgumentError} when `plaintextLength` is not a non-negative safe integer.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` past 2^38 chunks.
 */
export function chunkCount(plaintextLength: number): number {
  assertNonNegativeInteger(plaintextLength, 'plaintextLength');
  const count = Math.floor(plaintextLength / BLOB_CHUNK_SIZE) + 1;
  if (count > BLOB_MAX_CHUNKS) {
    throw new LimitError(
      `a blob holds at most 2^38 chunks (4 PiB) but ${plaintextLength} bytes need ${count}; split the data`,
    );
  }
  return count;
}

/**
 * Exact ciphertext length of a plaintext of `plaintextLength` bytes:
 * `56 + plaintextLength + 16 * (floor(plaintextLength / 16384) + 1)`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when the length is not a non-negative safe integer.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` past 2^38 chunks.
 * @example
 * ```ts
 * ciphertextSize(0);     // 72: header + one empty chunk
 * ciphertextSize(16384); // 16472: a full chunk and an empty final one
 * ```
 */
export function ciphertextSize(plaintextLength: number): number {
  const count = chunkCount(plaintextLength);
  const total = BLOB_HEADER_SIZE + plaintextLength + count * BLOB_TAG_SIZE;
  if (!Number.isSafeInteger(total)) {
    throw new LimitError(`a ${plaintextLength}-byte plaintext is too large to encrypt as one blob`);
  }
  return total;
}

/** The layout a ciphertext length implies: number of full chunks and size of the sealed final chunk. */
export interface BlobLayout {
  /** Plaintext length. */
  plaintextSize: number;
  /** Index of the final chunk (equal to the number of full chunks before it). */
  finalIndex: number;
  /** Ciphertext bytes of the final chunk, tag included (16 to 16399). */
  finalSealedSize: number;
}

/**
 * The layout of a ciphertext of `ciphertextLength` bytes, or `undefined` when no valid message has that
 * length (shorter than header + one tag, or a last chunk that is full-size or shorter than a tag).
 */
export function blobLayout(ciphertextLength: number): BlobLayout | undefined {
  if (!Number.isSafeInteger(ciphertextLength) || ciphertextLength < BLOB_HEADER_SIZE + BLOB_TAG_SIZE) {
    return undefined;
  }
  const body = ciphertextLength - BLOB_HEADER_SIZE;
  const finalIndex = Math.floor(body / BLOB_SEALED_CHUNK_SIZE);
  const finalSealedSize = body % BLOB_SEALED_CHUNK_SIZE;
  // A remainder of 0 would make the last chunk full-size (a truncated message); under 16 cannot hold a tag.
  if (finalSealedSize < BLOB_TAG_SIZE || finalIndex >= BLOB_MAX_CHUNKS) return undefined;
  return {
    plaintextSize: finalIndex * BLOB_CHUNK_SIZE + finalSealedSize - BLOB_TAG_SIZE,
    finalIndex,
    finalSealedSize,
  };
}

/**
 * Exact plaintext length of a valid ciphertext of `ciphertextLength` bytes.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when the length is not a non-negative safe integer.
 * @throws {FormatError} `ERR_FORMAT` when no valid ciphertext has this length (shorter than 72 bytes, or a
 * final chunk that is full-size or shorter than its tag).
 * @example
 * ```ts
 * plaintextSize(72);    // 0
 * plaintextSize(16456); // throws FormatError: the final chunk would be full-size
 * ```
 */
export function plaintextSize(ciphertextLength: number): number {
  assertNonNegativeInteger(ciphertextLength, 'ciphertextLength');
  const layout = blobLayout(ciphertextLength);
  if (layout === undefined) {
    throw new FormatError(
      `expected the length of a Cobblestone-256 blob for \`ciphertextLength\` but received ${ciphertextLength}: ` +
        'a blob is 56 header bytes then chunks of 16400 bytes and a final chunk of 16 to 16399 bytes (the data may be truncated)',
    );
  }
  return layout.plaintextSize;
}

/** Ciphertext offset of chunk `index`. */
export function chunkOffset(index: number): number {
  return BLOB_HEADER_SIZE + index * BLOB_SEALED_CHUNK_SIZE;
}
