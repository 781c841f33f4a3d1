/**
 * A PNG's metadata, neutralised in place. Critical chunks and the ancillary chunks that change how the
 * picture looks or moves (transparency, colour and gamma, ICC profile, HDR, background, physical size,
 * APNG's frames) are kept. The `eXIf` chunk keeps only its orientation. Every other ancillary chunk (text
 * in `tEXt`/`zTXt`/`iTXt`, XMP and ImageMagick's EXIF copies among them, `tIME`, vendor chunks) becomes a
 * private chunk `stRp` of zeros, the same size, with its CRC recomputed, which decoders skip. Bytes after
 * `IEND` are zeroed.
 *
 * @module
 */
import { tiffOrientation } from '../orientation.js';
import type { StripSource } from './byte-edits.js';
import { crc32Final, crc32Update, crc32UpdateZeros } from './crc32.js';
import { orientationOnlyTiff } from './neutral-payloads.js';

/** Ancillary chunks a decoder or a player uses to show the picture. */
const KEPT_ANCILLARY: ReadonlySet<string> = new Set([
  'tRNS',
  'cHRM',
  'gAMA',
  'iCCP',
  'sBIT',
  'sRGB',
  'cICP',
  'mDCV',
  'cLLI',
  'bKGD',
  'hIST',
  'pHYs',
  'sPLT',
  'oFFs',
  'pCAL',
  'sCAL',
  'acTL',
  'fcTL',
  'fdAT',
]);

/** The name a neutralised chunk takes: ancillary, private, safe to copy; no decoder knows it. */
const NEUTRAL_TYPE = 'stRp';
/** Largest `eXIf` chunk read for its orientation (larger ones are neutralised whole). */
const MAX_EXIF_BYTES = 1024 * 1024;

function latin1(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

function u32be(value: number): Uint8Array {
  return new Uint8Array([(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
}

/** Neutralises the metadata of a PNG (see the module notes). */
export async function walkPng(source: StripSource): Promise<void> {
  let at = 8;
  while (at + 12 <= source.size) {
    const head = await source.read(at, 8);
    if (head.length < 8) return;
    const length = ((head[0]! << 24) | (head[1]! << 16) | (head[2]! << 8) | head[3]!) >>> 0;
    const type = String.fromCharCode(head[4]!, head[5]!, head[6]!, head[7]!);
    const data = at + 8;
    const end = data + length + 4;
    if (end > source.size || !/^[A-Za-z]{4}$/.test(type)) return;
    const critical = (head[4]! & 0x20) === 0;
    if (!critical && !KEPT_ANCILLARY.has(type)) {
      const tiff =
        type === 'eXIf' && length <= MAX_EXIF_BYTES
          ? orientationOnlyTiff(tiffOrientation(await source.read(data, length)), length)
          : undefined;
      if (tiff) {
        source.edit({ offset: data, bytes: tiff });
        const crc = crc32Final(crc32Update(crc32Update(0xffffffff, latin1('eXIf')), tiff));
        source.edit({ offset: data + length, bytes: u32be(crc) });
      } else {
        const name = latin1(NEUTRAL_TYPE);
        source.edit({ offset: at + 4, bytes: name });
        source.edit({ offset: data, length, fill: 0 });
        const crc = crc32Final(crc32UpdateZeros(crc32Update(0xffffffff, name), length));
        source.edit({ offset: data + length, bytes: u32be(crc) });
      }
    }
    source.pass(end);
    at = end;
    if (type === 'IEND') {
      if (at < source.size) source.edit({ offset: at, length: source.size - at, fill: 0 });
      return;
    }
  }
}
