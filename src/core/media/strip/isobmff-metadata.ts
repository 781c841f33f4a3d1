/**
 * The metadata of an ISO base media file, neutralised in place: HEIC/HEIF and AVIF stills, MP4, MOV and
 * 3GP videos. Nothing is removed, so no offset moves: a video's chunk offsets (`stco`/`co64`, wherever
 * the `moov` sits, before or after `mdat`) and a HEIF's item locations (`iloc`) stay valid, and no index
 * has to be rewritten.
 *
 * - **HEIF** (a top-level `meta` box whose handler is `pict`): the `Exif` items become an EXIF block that
 *   holds only an orientation of 1 (a HEIF's turn is its `irot` property, which is kept); `mime` items
 *   (XMP) become an XMP packet that says nothing. Their bytes are overwritten wherever they are (`mdat`
 *   or `idat`).
 * - **Movies** (`moov`): `udta` (QuickTime's `©xyz` location, 3GPP's `loci`, make, model, software),
 *   `meta` (QuickTime's `keys`/`ilst`: `com.apple.quicktime.location.ISO6709`, make, model, creation
 *   date, the iTunes tags), `uuid` boxes (XMP, vendor blocks) in the movie and in each track become
 *   `free` boxes of zeros; the creation and modification times of `mvhd`, `tkhd` and `mdhd` become 0
 *   (the recording time). A timed-metadata track (handler `meta`: Apple's `mebx`, GoPro's GPMF with its
 *   GPS; Google's `camm`) becomes a `free` box of zeros and its samples in `mdat` are zeroed too. The
 *   tracks' display matrices (the picture's rotation) are kept.
 * - Top-level `udta`, `uuid` and non-`pict` `meta` boxes become `free` boxes of zeros; `free` and `skip`
 *   boxes are zeroed (dashcams hide GPS logs in them).
 *
 * Audio files (brand `M4A `, `M4B `, `M4P `) are left as they are: their tags are what they are sent for.
 *
 * @module
 */
import { LimitError } from '../../errors.js';
import { parseHeifMeta } from '../heif.js';
import { fourCc, type IsoBox, isoBoxes, readIsoBox, u32be, u64be } from '../isobmff.js';
import type { StripSource } from './byte-edits.js';
import { emptyXmp, ORIENTATION_TIFF_BYTES, orientationOnlyTiff } from './neutral-payloads.js';
import { metadataStripRefusal } from './strip-refusal.js';

/** Largest `moov` or `meta` box held in memory to be read (a 2-hour 4K video's `moov` is ~10 MB). */
export const MAX_ISO_INDEX_BYTES = 64 * 1024 * 1024;
/** Largest metadata item rewritten with bytes (larger ones are zeroed). */
const MAX_ITEM_BYTES = 1024 * 1024;
/** Most chunks of one timed-metadata track zeroed by range. */
const MAX_TRACK_CHUNKS = 1_000_000;
const AUDIO_BRANDS: ReadonlySet<string> = new Set(['M4A ', 'M4B ', 'M4P ']);
const TIMED_METADATA_HANDLERS: ReadonlySet<string> = new Set(['meta', 'camm']);

/** Edits at file offsets for boxes found in bytes read at `base`. */
class BoxEditor {
  constructor(
    private readonly source: StripSource,
    private readonly bytes: Uint8Array,
    private readonly base: number,
  ) {}

  /** The box becomes a `free` box of zeros (its header's size fields kept). */
  free(box: IsoBox): void {
    this.source.edit({ offset: this.base + box.start + 4, bytes: new Uint8Array([0x66, 0x72, 0x65, 0x65]) });
    this.zeroPayload(box);
  }

  /** The box's payload becomes zeros (a `uuid` box's extended type included). */
  zeroPayload(box: IsoBox): void {
    const from = u32be(this.bytes, box.start) === 1 ? 16 : 8; // after a 64-bit size
    const length = box.end - box.start - from;
    if (length > 0) this.source.edit({ offset: this.base + box.start + from, length, fill: 0 });
  }

  /** Zeroes the creation and modification times of an `mvhd`, `tkhd` or `mdhd` (version 0 or 1). */
  zeroTimes(box: IsoBox): void {
    if (box.end - box.payload < 4) return;
    const wide = this.bytes[box.payload] === 1;
    const length = wide ? 16 : 8;
    if (box.payload + 4 + length <= box.end) {
      this.source.edit({ offset: this.base + box.payload + 4, length, fill: 0 });
    }
  }
}

/** The handler type of a track (`vide`, `soun`, `meta`, ...), from `mdia/hdlr`. */
function trackHandler(bytes: Uint8Array, trak: IsoBox): string | undefined {
  for (const mdia of isoBoxes(bytes, trak.payload, trak.end)) {
    if (mdia.type !== 'mdia') continue;
    for (const hdlr of isoBoxes(bytes, mdia.payload, mdia.end)) {
      if (hdlr.type === 'hdlr' && hdlr.payload + 12 <= hdlr.end) return fourCc(bytes, hdlr.payload + 8);
    }
  }
  return undefined;
}

/** The `stbl` box of a track. */
function sampleTable(bytes: Uint8Array, trak: IsoBox): IsoBox | undefined {
  let box: IsoBox | undefined = trak;
  for (const type of ['mdia', 'minf', 'stbl']) {
    let found: IsoBox | undefined;
    for (const child of isoBoxes(bytes, box.payload, box.end)) if (child.type === type) found = child;
    if (found === undefined) return undefined;
    box = found;
  }
  return box;
}

/**
 * The byte ranges of a track's samples, one per chunk (`stco`/`co64` offsets, `stsc` samples per
 * chunk, `stsz` sizes). Empty when the table is missing, damaged or over the limits.
 */
function trackChunkRanges(bytes: Uint8Array, trak: IsoBox): { offset: number; length: number }[] {
  const stbl = sampleTable(bytes, trak);
  if (stbl === undefined) return [];
  const boxes = new Map<string, IsoBox>();
  for (const child of isoBoxes(bytes, stbl.payload, stbl.end)) boxes.set(child.type, child);
  const offsets = boxes.get('stco') ?? boxes.get('co64');
  const stsc = boxes.get('stsc');
  const stsz = boxes.get('stsz');
  if (offsets === undefined || stsc === undefined || stsz === undefined) return [];
  const wide = offsets.type === 'co64';
  const chunkCount = u32be(bytes, offsets.payload + 4);
  if (chunkCount > MAX_TRACK_CHUNKS || offsets.payload + 8 + chunkCount * (wide ? 8 : 4) > offsets.end)
    return [];
  const sampleSize = u32be(bytes, stsz.payload + 4);
  const sampleCount = u32be(bytes, stsz.payload + 8);
  if (sampleSize === 0 && stsz.payload + 12 + sampleCount * 4 > stsz.end) return [];
  const entries = u32be(bytes, stsc.payload + 4);
  if (stsc.payload + 8 + entries * 12 > stsc.end) return [];
  const ranges: { offset: number; length: number }[] = [];
  let sample = 0;
  for (let e = 0; e < entries; e++) {
    const first = u32be(bytes, stsc.payload + 8 + e * 12);
    const perChunk = u32be(bytes, stsc.payload + 12 + e * 12);
    const last = e + 1 < entries ? u32be(bytes, stsc.payload + 8 + (e + 1) * 12) - 1 : chunkCount;
    for (let chunk = first; chunk <= Math.min(last, chunkCount); chunk++) {
      const at = offsets.payload + 8 + (chunk - 1) * (wide ? 8 : 4);
      const offset = wide ? u64be(bytes, at) : u32be(bytes, at);
      let length = 0;
      for (let s = 0; s < perChunk && sample < sampleCount; s++, sample++) {
        length += sampleSize !== 0 ? sampleSize : u32be(bytes, stsz.payload + 12 + sample * 4);
      }
      if (offset !== undefined && length > 0) ranges.push({ offset, length });
      if (sample >= sampleCount) return ranges;
    }
  }
  return ranges;
}

/** Neutralises a `moov` box read at `base` (see the module notes). */
function neutraliseMovie(source: StripSource, bytes: Uint8Array, base: number, moov: IsoBox): void {
  const editor = new BoxEditor(source, bytes, base);
  const walk = (container: IsoBox) => {
    for (const box of isoBoxes(bytes, container.payload, container.end)) {
      switch (box.type) {
        case 'mvhd':
        case 'tkhd':
        case 'mdhd':
          editor.zeroTimes(box);
          break;
        case 'udta':
        case 'meta':
        case 'uuid':
          editor.free(box);
          break;
        case 'free':
        case 'skip':
          editor.zeroPayload(box);
          break;
        case 'trak':
          if (TIMED_METADATA_HANDLERS.has(trackHandler(bytes, box) ?? '')) {
            // Its samples first: the trak's own bytes are about to become zeros.
            for (const { offset, length } of trackChunkRanges(bytes, box)) {
              if (offset + length <= source.size) source.edit({ offset, length, fill: 0 });
            }
            editor.free(box);
          } else {
            walk(box);
          }
          break;
        case 'mdia':
          walk(box);
          break;
      }
    }
  };
  walk(moov);
}

/** Overwrites an item's bytes (its extents, in order) with `replacement`. */
function overwriteItem(
  source: StripSource,
  extents: { offset: number; length: number }[],
  replacement: (total: number) => Uint8Array | undefined,
): void {
  const total = extents.reduce((sum, extent) => sum + extent.length, 0);
  const bytes = total <= MAX_ITEM_BYTES ? replacement(total) : undefined;
  let at = 0;
  for (const { offset, length } of extents) {
    if (offset + length > source.size) continue;
    source.edit(bytes ? { offset, bytes: bytes.subarray(at, at + length) } : { offset, length, fill: 0 });
    at += length;
  }
}

/** An `Exif` item's bytes: a 4-byte offset to the TIFF header (6), `Exif\0\0`, the TIFF with orientation 1. */
function neutralExifItem(total: number): Uint8Array | undefined {
  const tiff = orientationOnlyTiff(1, total - 10);
  if (tiff === undefined || total < 10 + ORIENTATION_TIFF_BYTES) return undefined;
  const out = new Uint8Array(total);
  out.set([0, 0, 0, 6, 0x45, 0x78, 0x69, 0x66, 0, 0]);
  out.set(tiff, 10);
  return out;
}

/** Neutralises a HEIF `meta` box read at `base`: its `Exif` and `mime` items' bytes. */
function neutraliseHeifItems(source: StripSource, bytes: Uint8Array, base: number): void {
  let meta: ReturnType<typeof parseHeifMeta>;
  try {
    meta = parseHeifMeta(bytes);
  } catch {
    return; // A meta box that does not parse: nothing in it can be located.
  }
  for (const item of meta.items.values()) {
    if (item.type !== 'Exif' && item.type !== 'mime') continue;
    const location = meta.locations.get(item.id);
    if (location === undefined || location.dataReference !== 0 || location.method > 1) continue;
    const idat = meta.idat;
    const extents =
      location.method === 0
        ? location.extents
        : idat === undefined
          ? []
          : location.extents
              .filter(({ offset, length }) => idat.start + offset + length <= idat.end)
              .map(({ offset, length }) => ({ offset: base + idat.start + offset, length }));
    overwriteItem(source, extents, (total) =>
      item.type === 'Exif'
        ? neutralExifItem(total)
        : item.contentType === 'application/rdf+xml'
          ? emptyXmp(total)
          : undefined,
    );
  }
}

/** The handler type of a `meta` box (`pict` for a HEIF's images). */
function metaHandler(bytes: Uint8Array, meta: IsoBox): string | undefined {
  for (const child of isoBoxes(bytes, meta.payload + 4, meta.end)) {
    if (child.type === 'hdlr' && child.payload + 12 <= child.end) return fourCc(bytes, child.payload + 8);
  }
  return undefined;
}

/**
 * Neutralises the metadata of an ISO base media file (see the module notes).
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a `moov` or `meta` box over {@link MAX_ISO_INDEX_BYTES}.
 */
export async function walkIsobmff(source: StripSource): Promise<void> {
  let at = 0;
  while (at < source.size) {
    const head = await source.read(at, 32);
    const box = readIsoBox(head, at, source.size, at);
    if (box === undefined) return;
    const length = box.end - box.start;
    if (box.type === 'ftyp' && box.payload + 4 <= box.end && AUDIO_BRANDS.has(fourCc(head, 8))) return;
    if (box.type === 'moov' || box.type === 'meta') {
      if (length > MAX_ISO_INDEX_BYTES) {
        throw metadataStripRefusal(
          new LimitError(
            `expected a ${box.type} box of at most ${MAX_ISO_INDEX_BYTES} bytes to strip its metadata but this one has ${length}; send it with keepMetadata: true to keep the file as it is`,
          ),
        );
      }
      const bytes = await source.read(box.start, length);
      const local = readIsoBox(bytes, 0, bytes.length);
      if (local !== undefined) {
        if (box.type === 'moov') neutraliseMovie(source, bytes, box.start, local);
        else if (metaHandler(bytes, local) === 'pict') neutraliseHeifItems(source, bytes, box.start);
        else new BoxEditor(source, bytes, box.start).free(local);
      }
    } else if (box.type === 'udta' || box.type === 'uuid') {
      new BoxEditor(source, head, box.start).free({
        ...box,
        start: 0,
        payload: box.payload - at,
        end: length,
      });
    } else if (box.type === 'free' || box.type === 'skip') {
      new BoxEditor(source, head, box.start).zeroPayload({
        ...box,
        start: 0,
        payload: box.payload - at,
        end: length,
      });
    }
    source.pass(box.end);
    at = box.end;
  }
}
