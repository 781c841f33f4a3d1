/**
 * A JPEG's metadata, neutralised in place. What a decoder needs is kept: the frame, tables and scans,
 * `APP0` (JFIF), `APP2` ICC profiles (colour) and MPF (where a gain map or depth picture is), `APP14`
 * (Adobe's colour transform). The `APP1` EXIF block is rewritten to hold only its orientation (so the
 * picture still shows upright; its GPS, camera make, model and serial, owner, lens, software, times and
 * embedded thumbnail are gone). Every other `APPn` segment (XMP, IPTC and Photoshop resources, FlashPix,
 * vendor blocks, C2PA manifests) and every comment keep their marker and length with a payload of zeros.
 * What follows the picture's end is walked the same way when it is another JPEG (MPF's secondary
 * pictures) and zeroed otherwise (vendor trailers, a motion photo's video, whose XMP link is gone).
 *
 * @module
 */
import { tiffOrientation } from '../orientation.js';
import type { StripSource } from './byte-edits.js';
import { orientationOnlyTiff } from './neutral-payloads.js';

/** Bytes scanned per read in entropy-coded data. */
const SCAN_BYTES = 64 * 1024;
/** JPEGs walked one after another (the primary and MPF's secondary pictures). */
const MAX_PICTURES = 16;

const EXIF_ID = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]; // "Exif\0\0"

function startsWith(bytes: Uint8Array, at: number, text: string): boolean {
  if (at + text.length > bytes.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** True when an `APPn` segment whose payload starts with `head` is needed to show the picture. */
function keptApp(marker: number, head: Uint8Array): boolean {
  if (marker === 0xe0) return true; // JFIF, JFXX
  if (marker === 0xe2) return startsWith(head, 0, 'ICC_PROFILE\0') || startsWith(head, 0, 'MPF\0');
  if (marker === 0xee) return startsWith(head, 0, 'Adobe');
  return false;
}

/**
 * Where the entropy-coded data starting at `from` ends: the first marker that is not a stuffed zero or
 * a restart marker.
 */
async function endOfScan(source: StripSource, from: number): Promise<number> {
  let at = from;
  while (at < source.size) {
    const piece = await source.read(at, SCAN_BYTES + 1);
    if (piece.length < 2) return source.size;
    for (let i = 0; i + 1 < piece.length; i++) {
      if (piece[i] !== 0xff) continue;
      const next = piece[i + 1]!;
      if (next !== 0x00 && next !== 0xff && (next < 0xd0 || next > 0xd7)) return at + i;
    }
    at += piece.length - 1;
    source.pass(at);
  }
  return source.size;
}

/** Walks one JPEG from its SOI at `start`; returns where it ended (after EOI), or undefined if damaged. */
async function walkPicture(source: StripSource, start: number): Promise<number | undefined> {
  let at = start + 2;
  while (at < source.size) {
    const head = await source.read(at, 4);
    if (head.length < 2 || head[0] !== 0xff) return undefined;
    const marker = head[1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0xd9) return at + 2; // EOI
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      at += 2; // no length
      continue;
    }
    if (head.length < 4) return undefined;
    const length = (head[2]! << 8) | head[3]!;
    const end = at + 2 + length;
    if (length < 2 || end > source.size) return undefined;
    const payload = at + 4;
    const isApp = marker >= 0xe0 && marker <= 0xef;
    if (isApp || marker === 0xfe) {
      const id = await source.read(payload, Math.min(length - 2, 32));
      if (marker === 0xe1 && EXIF_ID.every((b, i) => id[i] === b)) {
        // The EXIF block keeps its orientation and nothing else.
        const body = await source.read(payload + 6, length - 8);
        const tiff = orientationOnlyTiff(tiffOrientation(body), body.length);
        source.edit(
          tiff ? { offset: payload + 6, bytes: tiff } : { offset: payload, length: length - 2, fill: 0 },
        );
      } else if (!(isApp && keptApp(marker, id))) {
        source.edit({ offset: payload, length: length - 2, fill: 0 });
      }
    }
    source.pass(end);
    at = marker === 0xda ? await endOfScan(source, end) : end;
  }
  return undefined;
}

/**
 * Neutralises the metadata of a JPEG (see the module notes). A damaged structure stops the walk: the
 * bytes after it go unchanged.
 */
export async function walkJpeg(source: StripSource): Promise<void> {
  let at = 0;
  for (let picture = 0; picture < MAX_PICTURES && at < source.size; picture++) {
    const end = await walkPicture(source, at);
    if (end === undefined || end >= source.size) return;
    const next = await source.read(end, 3);
    if (next[0] === 0xff && next[1] === 0xd8 && next[2] === 0xff) {
      at = end;
      continue;
    }
    // Not a picture: a trailer nothing in the file points to any more once the XMP is gone.
    source.edit({ offset: end, length: source.size - end, fill: 0 });
    return;
  }
}
