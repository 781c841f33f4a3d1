/**
 * Boxes of the ISO base media file format (ISO/IEC 14496-12): the container of MP4, MOV, 3GP, HEIC/HEIF
 * and AVIF. Every box starts with a 32-bit size and a four-character type (a 64-bit size follows when the
 * size is 1; size 0 runs to the end of what contains it; a `uuid` box carries 16 more bytes of type).
 * Only headers are read here; what a box holds is its reader's business. Nothing here trusts a size: a
 * box that claims to run past its container is reported as not there.
 *
 * @module
 */

/** One box: where it starts and ends, and where its payload starts, as offsets in the bytes given. */
export interface IsoBox {
  /** The four-character type (`ftyp`, `moov`, `meta`, ...). */
  type: string;
  /** Offset of the box's first byte (its size field). */
  start: number;
  /** Offset of the payload: after the size, type, any 64-bit size and a `uuid` box's extended type. */
  payload: number;
  /** Offset just past the box. */
  end: number;
}

/** Bytes a box header takes at most: size, type, 64-bit size and a `uuid` box's 16-byte type. */
export const ISO_BOX_HEADER_MAX_BYTES = 32;

/** A 32-bit big-endian unsigned integer at `at`. */
export function u32be(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

/** A 16-bit big-endian unsigned integer at `at`. */
export function u16be(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

/** A 64-bit big-endian unsigned integer at `at`, or undefined above `Number.MAX_SAFE_INTEGER`. */
export function u64be(bytes: Uint8Array, at: number): number | undefined {
  const value = u32be(bytes, at) * 2 ** 32 + u32be(bytes, at + 4);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** The four characters at `at` (Latin-1). */
export function fourCc(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
}

/**
 * The header of the box at `at` in `bytes`, which holds the box's container up to `end` (offsets in
 * `bytes`, plus `base` when `bytes` is a window of a larger file: then `end` and the result are file
 * offsets too, and `bytes` must hold at least the header). Undefined when the header is cut off, its
 * size is impossible (smaller than its header) or the box runs past `end`.
 *
 * @example
 * ```ts
 * const ftyp = readIsoBox(head, 0, fileSize); // { type: 'ftyp', start: 0, payload: 8, end: 24 }
 * ```
 */
export function readIsoBox(bytes: Uint8Array, at: number, end: number, base = 0): IsoBox | undefined {
  const local = at - base;
  if (at + 8 > end || local < 0 || local + 8 > bytes.length) return undefined;
  let size: number | undefined = u32be(bytes, local);
  const type = fourCc(bytes, local + 4);
  let payload = at + 8;
  if (size === 1) {
    if (at + 16 > end || local + 16 > bytes.length) return undefined;
    size = u64be(bytes, local + 8);
    if (size === undefined) return undefined;
    payload = at + 16;
  } else if (size === 0) {
    size = end - at;
  }
  if (type === 'uuid') payload += 16;
  if (size < payload - at || at + size > end) return undefined;
  return { type, start: at, payload, end: at + size };
}

/**
 * The boxes one after another from `start` to `end` in `bytes` (a container's payload), stopping at the
 * first that does not fit (what follows a damaged header cannot be located).
 *
 * @example
 * ```ts
 * for (const child of isoBoxes(bytes, moov.payload, moov.end)) if (child.type === 'trak') readTrack(child);
 * ```
 */
export function* isoBoxes(bytes: Uint8Array, start: number, end: number): Generator<IsoBox> {
  for (let at = start; at < end; ) {
    const box = readIsoBox(bytes, at, end);
    if (box === undefined) return;
    yield box;
    at = box.end;
  }
}

/** The first child of type `type` between `start` and `end`, if any. */
export function findIsoBox(bytes: Uint8Array, start: number, end: number, type: string): IsoBox | undefined {
  for (const box of isoBoxes(bytes, start, end)) if (box.type === type) return box;
  return undefined;
}
