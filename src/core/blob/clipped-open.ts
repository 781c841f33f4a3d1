/**
 * Opening chunks straight into a plaintext range's own array: random access decrypts the chunks that
 * cover a range into the array the caller gets (or gave), keeping only the bytes inside the range, so a
 * read makes no array of whole chunks to copy the range out of afterwards.
 *
 * @module
 */
import { settleAllThenThrow } from '../settle-all.js';
import type { ChunkCipher } from './chunk-cipher.js';
import { BLOB_CHUNK_SIZE, BLOB_TAG_SIZE } from './format.js';

/**
 * Opens consecutive sealed chunks `first`, `first + 1`, ... (full-size chunks, each overlapping the range)
 * and writes the part of their plaintext that lies in the range `[start, start + out.length)` of the
 * blob's plaintext into `out`, at its place there. Each chunk's bytes reach `out` only once its tag
 * verified; on failure `out` may hold verified bytes of the range, for the caller to wipe.
 *
 * The chunks wholly inside the range are opened straight into `out` (`openInto`); only a first and a
 * last chunk the range cuts are opened into arrays of their own and copied in part.
 */
export function openClipped(
  cipher: ChunkCipher,
  first: number,
  sealed: readonly Uint8Array[],
  out: Uint8Array,
  start: number,
): void | Promise<void> {
  /** Where chunk `i` of the batch starts in `out` (negative when the range starts inside it). */
  const at = (i: number) => (first + i) * BLOB_CHUNK_SIZE - start;
  const inside = (i: number) =>
    at(i) >= 0 && at(i) + (sealed[i] as Uint8Array).length - BLOB_TAG_SIZE <= out.length;
  let from = 0;
  let to = sealed.length;
  const steps: (void | Promise<void>)[] = [];
  if (to > 0 && !inside(0)) {
    steps.push(openPart(cipher, first, sealed[0] as Uint8Array, out, at(0)));
    from = 1;
  }
  if (to > from && !inside(to - 1)) {
    steps.push(openPart(cipher, first + to - 1, sealed[to - 1] as Uint8Array, out, at(to - 1)));
    to -= 1;
  }
  if (to > from) steps.push(cipher.openInto(first + from, sealed.slice(from, to), out, at(from)));
  if (!steps.some((step) => step instanceof Promise)) return;
  // Every call settles before the failure is reported: none writes into `out` after the caller wiped it.
  return settleAllThenThrow(steps);
}

/** Opens one chunk the range cuts, and copies its part inside `out` (the chunk starts at `at` there). */
function openPart(
  cipher: ChunkCipher,
  index: number,
  sealed: Uint8Array,
  out: Uint8Array,
  at: number,
): void | Promise<void> {
  const copy = (plain: Uint8Array) => copyClipped(plain, out, at);
  const plain = cipher.open(index, [sealed]);
  return plain instanceof Uint8Array ? copy(plain) : plain.then(copy);
}

/**
 * Copies the part of one chunk's verified plaintext `plain` that lies inside `out` into it, the chunk
 * starting at `at` in `out` (negative when `out` starts inside the chunk).
 */
export function copyClipped(plain: Uint8Array, out: Uint8Array, at: number): void {
  const skip = Math.max(0, -at);
  const part = plain.subarray(skip, Math.max(skip, Math.min(plain.length, out.length - at)));
  if (part.length > 0) out.set(part, at + skip);
}
