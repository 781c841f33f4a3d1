/**
 * A WebP's metadata, neutralised in place. The picture's chunks are kept (`VP8 `, `VP8L`, `VP8X`, `ALPH`,
 * `ANIM`, `ANMF`, `ICCP`). The `EXIF` chunk keeps only its orientation (after an `Exif\0\0` prefix when a
 * writer put one); the `XMP ` chunk becomes an XMP packet that says nothing, so `VP8X`'s flags stay
 * true; unknown chunks keep their name with a payload of zeros. Bytes after the RIFF container are zeroed.
 *
 * @module
 */
import { tiffOrientation } from '../orientation.js';
import type { StripSource } from './byte-edits.js';
import { emptyXmp, orientationOnlyTiff } from './neutral-payloads.js';

const KEPT: ReadonlySet<string> = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF', 'ICCP']);
/** Largest `EXIF` chunk read, or `XMP ` chunk rewritten (larger ones are zeroed whole). */
const MAX_METADATA_BYTES = 1024 * 1024;

function u32le(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

/** Neutralises the metadata of a WebP (see the module notes). */
export async function walkWebp(source: StripSource): Promise<void> {
  const header = await source.read(0, 12);
  if (header.length < 12) return;
  const riffEnd = Math.min(source.size, 8 + u32le(header, 4));
  let at = 12;
  while (at + 8 <= riffEnd) {
    const head = await source.read(at, 8);
    if (head.length < 8) return;
    const type = String.fromCharCode(head[0]!, head[1]!, head[2]!, head[3]!);
    const length = u32le(head, 4);
    const data = at + 8;
    const end = data + length + (length & 1);
    if (data + length > source.size) return;
    if (!KEPT.has(type)) {
      if (type === 'EXIF' && length <= MAX_METADATA_BYTES) {
        const body = await source.read(data, length);
        const skip = body[0] === 0x45 && body[1] === 0x78 && body[2] === 0x69 && body[3] === 0x66 ? 6 : 0;
        const tiff = orientationOnlyTiff(tiffOrientation(body.subarray(skip)), length - skip);
        source.edit(tiff ? { offset: data + skip, bytes: tiff } : { offset: data, length, fill: 0 });
      } else if (type === 'XMP ' && length <= MAX_METADATA_BYTES) {
        source.edit({ offset: data, bytes: emptyXmp(length) });
      } else {
        source.edit({ offset: data, length, fill: 0 });
      }
    }
    source.pass(Math.min(end, source.size));
    at = end;
  }
  if (riffEnd < source.size) source.edit({ offset: riffEnd, length: source.size - riffEnd, fill: 0 });
}
