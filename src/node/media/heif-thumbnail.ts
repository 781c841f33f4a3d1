/**
 * What a HEIF file (HEIC, AVIF) says about its picture before anything is decoded, read from the file
 * with a few small reads: the `meta` box, and from it the primary item's displayed size (`ispe`, then
 * `clap` and `irot` in the order they apply) and the thumbnail item a phone or camera writes beside the
 * picture (`thmb` reference; an iPhone's is 320×240 beside 12 MP in 48 tiles).
 *
 * The thumbnail is handed to the decoder as a HEIF file of its own: the original `ftyp`, a `meta` box
 * whose one item is the thumbnail with its own properties (decoder configuration, size, colour,
 * rotation, mirroring, crop: copied as they are), and its coded bytes. Decoding 320×240 instead of the
 * whole picture is what makes a HEIC's placeholder as quick as a JPEG's.
 *
 * @module
 */
import type { FileHandle } from 'node:fs/promises';
import { concatBytes } from '../../core/bytes.js';
import {
  type HeifMeta,
  heifDisplaySize,
  heifHasAlpha,
  heifItemsReferring,
  parseHeifMeta,
} from '../../core/media/heif.js';
import { ISO_BOX_HEADER_MAX_BYTES, type IsoBox, readIsoBox } from '../../core/media/isobmff.js';
import { thumbhashInputSize } from '../../core/media/thumbhash.js';

/** Largest `meta` box read (an iPhone's is ~4 KB, a 48 MP one with its gain map a few tens of KB). */
export const MAX_HEIF_META_BYTES = 4 * 1024 * 1024;
/** Largest thumbnail used, in pixels: a bigger "thumbnail" is a preview that costs a decode of its own. */
export const MAX_HEIF_THUMBNAIL_PIXELS = 1024 * 1024;
/** Largest coded thumbnail read, in bytes. */
const MAX_HEIF_THUMBNAIL_BYTES = 8 * 1024 * 1024;
/** Top-level boxes looked through for `meta` (`ftyp`, `meta` come first in every writer seen). */
const MAX_TOP_LEVEL_BOXES = 64;
/** How far a thumbnail's shape may be from the picture's (rounding of its size). */
const ASPECT_TOLERANCE = 0.02;
/** Coded image item types a thumbnail can be decoded from. */
const CODED_TYPES: ReadonlySet<string> = new Set(['hvc1', 'av01']);

/** A HEIF file's structure, as far as the probe needs it. */
export interface HeifLayout {
  /** The `ftyp` box's bytes. */
  ftyp: Uint8Array;
  /** The `meta` box, read. */
  meta: HeifMeta;
  /** Offset of the `meta` box in the file. */
  metaOffset: number;
}

async function readAt(handle: FileHandle, offset: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  const { bytesRead } = await handle.read(buffer, 0, length, offset);
  return buffer.subarray(0, bytesRead);
}

/**
 * Reads the `ftyp` and `meta` boxes of a HEIF file. Undefined when they are not among the first
 * top-level boxes, the `meta` box is larger than {@link MAX_HEIF_META_BYTES}, or it does not parse.
 */
export async function readHeifLayout(handle: FileHandle, size: number): Promise<HeifLayout | undefined> {
  let ftyp: Uint8Array | undefined;
  let at = 0;
  for (let i = 0; i < MAX_TOP_LEVEL_BOXES && at < size; i++) {
    const head = await readAt(handle, at, ISO_BOX_HEADER_MAX_BYTES);
    const box: IsoBox | undefined = readIsoBox(head, at, size, at);
    if (box === undefined) return undefined;
    const length = box.end - box.start;
    if (box.type === 'ftyp' && length <= 1024) ftyp = await readAt(handle, at, length);
    if (box.type === 'meta') {
      if (ftyp === undefined || length > MAX_HEIF_META_BYTES) return undefined;
      try {
        return { ftyp, meta: parseHeifMeta(await readAt(handle, at, length)), metaOffset: at };
      } catch {
        return undefined;
      }
    }
    at = box.end;
  }
  return undefined;
}

/** The thumbnail chosen for a picture's ThumbHash. */
export interface HeifThumbnail {
  /** Its item id. */
  item: number;
  /** Its coded type (`hvc1`, `av01`). */
  type: string;
  /** Its displayed size. */
  width: number;
  height: number;
}

/**
 * The thumbnail to hash instead of the primary picture: the smallest coded thumbnail of the primary item
 * that is at least as large as the ThumbHash input the picture itself would give (so the hash is made
 * from as many pixels as the full decode's), of the same shape within 2 %, at most
 * {@link MAX_HEIF_THUMBNAIL_PIXELS} pixels, and stored in this file. None when the picture has an alpha
 * plane (thumbnails rarely carry one) or no such thumbnail exists.
 */
export function chooseHeifThumbnail(
  meta: HeifMeta,
  picture: { width: number; height: number },
): HeifThumbnail | undefined {
  if (meta.primary === undefined || heifHasAlpha(meta, meta.primary)) return undefined;
  const needed = thumbhashInputSize(picture.width, picture.height);
  const aspect = picture.width / picture.height;
  let best: HeifThumbnail | undefined;
  for (const item of heifItemsReferring(meta, meta.primary, 'thmb')) {
    const type = meta.items.get(item)?.type;
    const location = meta.locations.get(item);
    const size = heifDisplaySize(meta, item);
    if (type === undefined || !CODED_TYPES.has(type) || size === undefined) continue;
    if (location === undefined || location.dataReference !== 0 || location.method > 1) continue;
    if (size.width < needed.width || size.height < needed.height) continue;
    if (size.width * size.height > MAX_HEIF_THUMBNAIL_PIXELS) continue;
    if (Math.abs(size.width / size.height - aspect) > ASPECT_TOLERANCE * aspect) continue;
    if (best === undefined || size.width * size.height < best.width * best.height) {
      best = { item, type, ...size };
    }
  }
  return best;
}

/** The coded bytes of an item (its extents joined), from the file or the `idat` box. */
async function itemData(
  handle: FileHandle,
  layout: HeifLayout,
  item: number,
  fileSize: number,
): Promise<Uint8Array | undefined> {
  const location = layout.meta.locations.get(item);
  if (location === undefined) return undefined;
  let total = 0;
  for (const extent of location.extents) total += extent.length;
  if (total === 0 || total > MAX_HEIF_THUMBNAIL_BYTES) return undefined;
  const parts: Uint8Array[] = [];
  for (const { offset, length } of location.extents) {
    if (location.method === 1) {
      const idat = layout.meta.idat;
      if (idat === undefined || idat.start + offset + length > idat.end) return undefined;
      parts.push(layout.meta.bytes.subarray(idat.start + offset, idat.start + offset + length));
    } else {
      if (offset + length > fileSize) return undefined;
      const part = await readAt(handle, offset, length);
      if (part.length !== length) return undefined;
      parts.push(part);
    }
  }
  return concatBytes(...parts);
}

function u8(n: number): Uint8Array {
  return new Uint8Array([n & 0xff]);
}
function u16(n: number): Uint8Array {
  return new Uint8Array([(n >> 8) & 0xff, n & 0xff]);
}
function u32(n: number): Uint8Array {
  return new Uint8Array([(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);
}
function latin1(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}
function box(type: string, ...parts: Uint8Array[]): Uint8Array {
  const body = concatBytes(...parts);
  return concatBytes(u32(8 + body.length), latin1(type), body);
}
function fullBox(type: string, version: number, flags: number, ...parts: Uint8Array[]): Uint8Array {
  return box(type, u8(version), u8(flags >> 16), u16(flags & 0xffff), ...parts);
}

/**
 * The thumbnail item as a HEIF file of its own (see the module notes), or undefined when its bytes are
 * not where its location says.
 */
export async function heifThumbnailFile(
  handle: FileHandle,
  layout: HeifLayout,
  thumbnail: HeifThumbnail,
  fileSize: number,
): Promise<Uint8Array | undefined> {
  const data = await itemData(handle, layout, thumbnail.item, fileSize);
  if (data === undefined) return undefined;
  const { meta } = layout;
  const properties = meta.properties.get(thumbnail.item) ?? [];
  if (properties.length > 127) return undefined;
  const ipco = box('ipco', ...properties.map(({ box: p }) => meta.bytes.subarray(p.start, p.end)));
  const ipma = fullBox(
    'ipma',
    0,
    0,
    u32(1),
    u16(1),
    u8(properties.length),
    ...properties.map(({ essential }, i) => u8((essential ? 0x80 : 0) | (i + 1))),
  );
  const hdlr = fullBox('hdlr', 0, 0, u32(0), latin1('pict'), u32(0), u32(0), u32(0), u8(0));
  const pitm = fullBox('pitm', 0, 0, u16(1));
  const iinf = fullBox(
    'iinf',
    0,
    0,
    u16(1),
    fullBox('infe', 2, 0, u16(1), u16(0), latin1(thumbnail.type), u8(0)),
  );
  // One item, one extent: 4-byte offsets and lengths, no base offset. The offset is the mdat payload's,
  // known before the iloc is written since every field has a fixed size.
  const iloc = (offset: number) =>
    fullBox('iloc', 0, 0, u8(0x44), u8(0), u16(1), u16(1), u16(0), u16(1), u32(offset), u32(data.length));
  const metaBox = (offset: number) =>
    fullBox('meta', 0, 0, hdlr, pitm, iinf, iloc(offset), box('iprp', ipco, ipma));
  const payloadAt = layout.ftyp.length + metaBox(0).length + 8;
  return concatBytes(layout.ftyp, metaBox(payloadAt), box('mdat', data));
}
