/**
 * EXIF orientation: where a picture's pixels say "turn me before showing". Cameras store the sensor's
 * rows as they came and record the turn in EXIF tag 0x0112; sharp's `autoOrient` applies it, so the
 * universal decoders must too, or a portrait phone photo would get a landscape ThumbHash.
 *
 * @module
 */

/** EXIF orientation values 1 to 8 (1 is "as stored"). */
export type Orientation = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

const ORIENTATION_TAG = 0x0112;
/** Entries of IFD0 read at most: a real IFD0 has a few dozen; a hostile count must not cost a loop. */
const MAX_IFD_ENTRIES = 512;

/**
 * The orientation in a TIFF structure (the payload of a JPEG `Exif\0\0` segment or a PNG `eXIf` chunk):
 * IFD0's tag 0x0112. Anything malformed, missing or out of range reads as 1 (a damaged EXIF block must
 * not stop a picture from getting its placeholder; sharp ignores it the same way).
 */
export function tiffOrientation(tiff: Uint8Array): Orientation {
  if (tiff.length < 8) return 1;
  const little = tiff[0] === 0x49 && tiff[1] === 0x49;
  const big = tiff[0] === 0x4d && tiff[1] === 0x4d;
  if (!little && !big) return 1;
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  if (view.getUint16(2, little) !== 42) return 1;
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > tiff.length) return 1;
  const count = Math.min(view.getUint16(ifd, little), MAX_IFD_ENTRIES);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > tiff.length) return 1;
    if (view.getUint16(entry, little) !== ORIENTATION_TAG) continue;
    // SHORT (type 3), one value, stored in the first two bytes of the value field.
    if (view.getUint16(entry + 2, little) !== 3) return 1;
    const value = view.getUint16(entry + 8, little);
    return value >= 1 && value <= 8 ? (value as Orientation) : 1;
  }
  return 1;
}

/**
 * Applies `orientation` to 8-bit RGBA pixels: returns the pixels as they are meant to be seen, and their
 * size (orientations 5 to 8 swap width and height).
 *
 * @example
 * ```ts
 * orient(100, 75, rgba, 6); // { width: 75, height: 100, rgba } turned 90° clockwise
 * ```
 */
export function orient(
  width: number,
  height: number,
  rgba: Uint8Array,
  orientation: Orientation,
): { width: number; height: number; rgba: Uint8Array } {
  if (orientation === 1) return { width, height, rgba };
  const swap = orientation >= 5;
  const outWidth = swap ? height : width;
  const outHeight = swap ? width : height;
  const out = new Uint8Array(rgba.length);
  // One 32-bit word per pixel (a view needs 4-byte alignment: copy the rare unaligned input).
  const aligned = rgba.byteOffset % 4 === 0 ? rgba : rgba.slice();
  const source = new Uint32Array(aligned.buffer, aligned.byteOffset, width * height);
  const target = new Uint32Array(out.buffer, 0, width * height);
  for (let y = 0; y < outHeight; y++) {
    for (let x = 0; x < outWidth; x++) {
      // Where output pixel (x, y) comes from in the stored image.
      let sx: number;
      let sy: number;
      switch (orientation) {
        case 2: // mirrored horizontally
          sx = width - 1 - x;
          sy = y;
          break;
        case 3: // turned 180°
          sx = width - 1 - x;
          sy = height - 1 - y;
          break;
        case 4: // mirrored vertically
          sx = x;
          sy = height - 1 - y;
          break;
        case 5: // transposed
          sx = y;
          sy = x;
          break;
        case 6: // to be turned 90° clockwise
          sx = y;
          sy = height - 1 - x;
          break;
        case 7: // transversed
          sx = width - 1 - y;
          sy = height - 1 - x;
          break;
        default: // 8: to be turned 90° counter-clockwise
          sx = width - 1 - y;
          sy = x;
          break;
      }
      target[y * outWidth + x] = source[sy * width + sx]!;
    }
  }
  return { width: outWidth, height: outHeight, rgba: out };
}
