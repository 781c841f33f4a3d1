/**
 * The picture formats a phone or a browser hands around, told apart by their first bytes: what names a
 * verified photo (whose message carries no MIME type) where file-type is not available, and what the
 * ThumbHash decoder names when it refuses a format.
 *
 * @module
 */

/** Bytes {@link imageMimeType} needs from the start of the file. */
export const IMAGE_TYPE_HEAD_BYTES = 16;

const HEIF_BRANDS = /^(heic|heix|hevc|heim|heis|hevm|hevs|mif1|msf1)$/;

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, Math.min(bytes.length, at + length)));
}

/**
 * The MIME type of a JPEG, PNG, GIF, WebP, HEIC/HEIF, AVIF, BMP or TIFF from its first
 * {@link IMAGE_TYPE_HEAD_BYTES} bytes, or undefined.
 *
 * @example
 * ```ts
 * imageMimeType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])); // 'image/jpeg'
 * ```
 */
export function imageMimeType(head: Uint8Array): string | undefined {
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (ascii(head, 0, 8) === '\x89PNG\r\n\x1a\n') return 'image/png';
  if (ascii(head, 0, 4) === 'GIF8') return 'image/gif';
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 4) === 'WEBP') return 'image/webp';
  if (ascii(head, 4, 4) === 'ftyp') {
    const brand = ascii(head, 8, 4);
    if (/^avi[fs]$/.test(brand)) return 'image/avif';
    if (HEIF_BRANDS.test(brand)) return brand.startsWith('he') ? 'image/heic' : 'image/heif';
  }
  if (ascii(head, 0, 2) === 'BM') return 'image/bmp';
  if (ascii(head, 0, 4) === 'II*\0' || ascii(head, 0, 4) === 'MM\0*') return 'image/tiff';
  return undefined;
}
