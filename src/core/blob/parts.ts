/**
 * One blob in parts: media larger than one attachment of its store (Happy's server takes 10 MiB each) is
 * still ONE Cobblestone-256 blob, whose ciphertext is cut into consecutive parts of a whole number of
 * chunks (part 0 also holds the 56-byte header). Each part is stored as an attachment of its own, and a
 * manifest under the message's ref names them in order (manifest.ts). Because chunk `k` always sits at
 * ciphertext offset `56 + k·16400` and holds plaintext `[16384·k, 16384·(k+1))`, the layout follows from
 * two numbers (the plaintext size and the chunks per part): which bytes part `i` holds in the ciphertext
 * and in the plaintext, and which parts a byte range touches. So a reader fetches only the parts a range
 * lies in, and a sender makes any part again from the file alone, with the blob's salt (not secret)
 * (docs/blob-format.md, "Media in parts").
 *
 * @module
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { assertBytes, assertNonNegativeInteger } from '../bytes.js';
import { InternalError, InvalidArgumentError, LimitError } from '../errors.js';
import {
  BLOB_CHUNK_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_SALT_SIZE,
  BLOB_SEALED_CHUNK_SIZE,
  BLOB_TAG_SIZE,
  type BlobOptions,
} from './format.js';
import { ciphertextSize } from './sizes.js';
import { BlobEncryptor } from './stream.js';

/** Most chunks a part may hold (16 GiB of plaintext): bounds what a reader accepts from a manifest. */
export const MAX_CHUNKS_PER_PART = 2 ** 20;

/** A byte range `[offset, offset + length)`. */
export interface ByteSpan {
  /** First byte. */
  offset: number;
  /** Number of bytes. */
  length: number;
}

/** How one blob is cut into parts: everything follows from the plaintext size and the chunks per part. */
export interface PartLayout {
  /** Plaintext bytes of the whole blob. */
  readonly plaintextSize: number;
  /** Chunks in every part but the last (which holds the rest, its final chunk included). */
  readonly chunksPerPart: number;
  /** Ciphertext bytes of the whole blob: `ciphertextSize(plaintextSize)`. */
  readonly ciphertextSize: number;
  /** Number of parts (at least 1; every part holds at least one byte). */
  readonly count: number;
}

/**
 * The layout of a blob of `plaintextSize` bytes cut every `chunksPerPart` chunks.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a size that is not a non-negative integer, or
 *   chunks per part outside 1 to {@link MAX_CHUNKS_PER_PART}.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` past the format's 2^38 chunks.
 * @example
 * ```ts
 * partLayout(100 * 2 ** 20, 639).count; // 11 parts of at most 10 479 656 bytes
 * ```
 */
export function partLayout(plaintextSize: number, chunksPerPart: number): PartLayout {
  assertNonNegativeInteger(plaintextSize, 'plaintextSize');
  assertNonNegativeInteger(chunksPerPart, 'chunksPerPart', MAX_CHUNKS_PER_PART);
  if (chunksPerPart === 0) {
    throw new InvalidArgumentError('expected at least 1 for `chunksPerPart` but received 0');
  }
  const total = ciphertextSize(plaintextSize);
  const count = Math.ceil((total - BLOB_HEADER_SIZE) / (chunksPerPart * BLOB_SEALED_CHUNK_SIZE));
  return { plaintextSize, chunksPerPart, ciphertextSize: total, count };
}

/**
 * The most whole chunks a part may hold so that every part (part 0 with the header) stays within
 * `maxPartBytes`: 639 for Happy's 10 485 760 bytes (10 479 656 bytes in part 0, 10 479 600 in the others).
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when not even one chunk and the header fit.
 */
export function chunksPerPartWithin(maxPartBytes: number): number {
  assertNonNegativeInteger(maxPartBytes, 'maxPartBytes');
  const chunks = Math.min(
    MAX_CHUNKS_PER_PART,
    Math.floor((maxPartBytes - BLOB_HEADER_SIZE) / BLOB_SEALED_CHUNK_SIZE),
  );
  if (chunks < 1) {
    throw new LimitError(
      `a part of at most ${maxPartBytes} bytes cannot hold the ${BLOB_HEADER_SIZE}-byte header and one ${BLOB_SEALED_CHUNK_SIZE}-byte chunk`,
    );
  }
  return chunks;
}

function checkIndex(layout: PartLayout, index: number): void {
  assertNonNegativeInteger(index, 'index');
  if (index >= layout.count) {
    throw new InvalidArgumentError(
      `expected a part index below ${layout.count} for \`index\` but received ${index}`,
    );
  }
}

/** Where part `index` lies in the blob's ciphertext (part 0 starts at 0, with the header). */
export function partCiphertext(layout: PartLayout, index: number): ByteSpan {
  checkIndex(layout, index);
  const step = layout.chunksPerPart * BLOB_SEALED_CHUNK_SIZE;
  const offset = index === 0 ? 0 : BLOB_HEADER_SIZE + index * step;
  const end = Math.min(BLOB_HEADER_SIZE + (index + 1) * step, layout.ciphertextSize);
  return { offset, length: end - offset };
}

/** The plaintext bytes part `index` holds (the last part's may be empty: its final chunk only). */
export function partPlaintext(layout: PartLayout, index: number): ByteSpan {
  checkIndex(layout, index);
  const step = layout.chunksPerPart * BLOB_CHUNK_SIZE;
  const offset = index * step;
  return { offset, length: Math.min(offset + step, layout.plaintextSize) - offset };
}

/**
 * The parts a ciphertext range `[offset, offset + length)` touches, first and last (inclusive); for an
 * empty range, `last < first`.
 */
export function partsTouching(
  layout: PartLayout,
  offset: number,
  length: number,
): { first: number; last: number } {
  assertNonNegativeInteger(offset, 'offset');
  assertNonNegativeInteger(length, 'length');
  const step = layout.chunksPerPart * BLOB_SEALED_CHUNK_SIZE;
  const at = (byte: number) =>
    Math.min(layout.count - 1, byte < BLOB_HEADER_SIZE ? 0 : Math.floor((byte - BLOB_HEADER_SIZE) / step));
  if (length === 0) return { first: at(offset), last: at(offset) - 1 };
  return { first: at(offset), last: at(offset + length - 1) };
}

/** A part made from its plaintext: its bytes and the digest a resumed send compares (see {@link sealPart}). */
export interface SealedPart {
  /** The part's ciphertext: bytes `partCiphertext(layout, index)` of the blob. */
  bytes: Uint8Array;
  /** SHA-256 of the part's chunk tags (32 bytes): a digest of its content that reveals nothing without the key. */
  digest: Uint8Array;
}

/**
 * Makes part `index` of a blob in parts from the plaintext it holds (`partPlaintext(layout, index)`,
 * given in pieces of any size): the chunks from `index · chunksPerPart` on, sealed with the blob's `salt`
 * under `options.context` (the parts' context, `partsBlobContext(binding)`), the header first in part 0
 * and the final chunk last in the last part. The same salt, context, key and plaintext give the same
 * bytes, so a part is made again after an interrupted send from the file alone.
 *
 * The same salt with other plaintext would reuse nonces, which AES-GCM does not survive: a caller that
 * makes a part again compares its `digest` with the one recorded when that part was first made, and sends
 * nothing of it when they differ. The digest hashes the chunks' 16-byte GCM tags, which depend on every
 * plaintext byte and on the key: it tells a changed file without holding anything that reveals the
 * plaintext to someone without the key.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad key, salt, option or index, or when the
 *   pieces hold more or fewer bytes than the part's plaintext (a file that changed size meanwhile).
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` past the format's limits.
 * @example
 * ```ts
 * const layout = partLayout(size, chunksPerPartWithin(HAPPY_MAX_ATTACHMENT_BYTES));
 * const { bytes, digest } = await sealPart(blobKey, { context: partsBlobContext(binding) }, salt, layout, 3, pieces);
 * ```
 */
export async function sealPart(
  key: Uint8Array,
  options: BlobOptions,
  salt: Uint8Array,
  layout: PartLayout,
  index: number,
  plaintext: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): Promise<SealedPart> {
  assertBytes(salt, 'salt', BLOB_SALT_SIZE);
  const span = partCiphertext(layout, index);
  const plain = partPlaintext(layout, index);
  const encryptor = new BlobEncryptor(key, options, {
    salt,
    firstChunk: index * layout.chunksPerPart,
  });
  const out = new Uint8Array(span.length);
  let at = 0;
  const emit = (pieces: Uint8Array[]) => {
    for (const piece of pieces) {
      if (at + piece.length > out.length) throw new InternalError('a part came out longer than its layout');
      out.set(piece, at);
      at += piece.length;
    }
  };
  const header = await encryptor.start();
  if (index === 0) emit([header]);
  let fed = 0;
  const tooLong = () =>
    new InvalidArgumentError(
      `expected ${plain.length} bytes of plaintext for part ${index} but received more (did the file change?)`,
    );
  for await (const piece of plaintext) {
    assertBytes(piece, 'plaintext piece');
    fed += piece.length;
    if (fed > plain.length) throw tooLong();
    emit(await encryptor.push(piece));
  }
  if (fed !== plain.length) {
    throw new InvalidArgumentError(
      `expected ${plain.length} bytes of plaintext for part ${index} but received ${fed} (did the file change?)`,
    );
  }
  // Only the last part ends the blob; any other ends on a whole chunk, which push already sealed.
  if (index === layout.count - 1) emit(await encryptor.finish());
  if (at !== out.length) throw new InternalError('a part came out shorter than its layout');
  return { bytes: out, digest: partDigest(out, index === 0) };
}

/** SHA-256 of the tags of the chunks in a part (after the header in part 0). */
function partDigest(part: Uint8Array, withHeader: boolean): Uint8Array {
  const hash = sha256.create();
  for (let at = withHeader ? BLOB_HEADER_SIZE : 0; at < part.length; at += BLOB_SEALED_CHUNK_SIZE) {
    const end = Math.min(at + BLOB_SEALED_CHUNK_SIZE, part.length);
    hash.update(part.subarray(end - BLOB_TAG_SIZE, end));
  }
  return hash.digest();
}
