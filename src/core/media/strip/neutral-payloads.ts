/**
 * What a metadata block is overwritten with when it must stay in place (same size, so no offset moves):
 * an EXIF block that keeps only the orientation, and an XMP packet that says nothing. Everything after
 * them, up to the block's old size, is padding a reader skips (zeros after a TIFF structure, spaces
 * after an XML element).
 *
 * @module
 */
import type { Orientation } from '../orientation.js';

/** Bytes of a TIFF header, an IFD0 with the one orientation entry, and the next-IFD link. */
export const ORIENTATION_TIFF_BYTES = 8 + 2 + 12 + 4;

/**
 * A TIFF structure (the body of an EXIF block) of exactly `length` bytes whose IFD0 holds only tag
 * 0x0112, `orientation` (big-endian, then zeros). Undefined when `length` is too small to hold it.
 *
 * @example
 * ```ts
 * orientationOnlyTiff(6, 1404); // 'MM\0*', IFD0 { 0x0112: 6 }, then 1378 zeros
 * ```
 */
export function orientationOnlyTiff(orientation: Orientation, length: number): Uint8Array | undefined {
  if (length < ORIENTATION_TIFF_BYTES) return undefined;
  const tiff = new Uint8Array(length);
  const view = new DataView(tiff.buffer);
  tiff.set([0x4d, 0x4d, 0x00, 0x2a]); // big-endian TIFF
  view.setUint32(4, 8); // IFD0 right after the header
  view.setUint16(8, 1); // one entry
  view.setUint16(10, 0x0112); // Orientation
  view.setUint16(12, 3); // SHORT
  view.setUint32(14, 1); // one value
  view.setUint16(18, orientation); // in the first two bytes of the value field
  view.setUint32(22, 0); // no IFD1 (and so no embedded thumbnail)
  return tiff;
}

/** An XMP packet that describes nothing. */
const EMPTY_XMP = '<x:xmpmeta xmlns:x="adobe:ns:meta/"/>';

/**
 * An XMP packet of exactly `length` bytes that describes nothing: an empty `x:xmpmeta` element, then
 * spaces (only spaces when it does not fit).
 */
export function emptyXmp(length: number): Uint8Array {
  const out = new Uint8Array(length).fill(0x20);
  if (length >= EMPTY_XMP.length) {
    for (let i = 0; i < EMPTY_XMP.length; i++) out[i] = EMPTY_XMP.charCodeAt(i);
  }
  return out;
}
