/**
 * The `meta` box of a HEIF file (HEIC, AVIF: ISO/IEC 23008-12), read without decoding anything: its
 * items (the picture, its tiles, a thumbnail, EXIF and XMP blocks), where each item's bytes are (`iloc`),
 * how items refer to each other (`iref`: `thmb` thumbnails, `dimg` tiles, `cdsc` metadata), and the
 * properties of each (`iprp`: `ispe` size, `irot`/`imir` turns, `clap` crop, decoder configuration).
 *
 * Two users: the probe takes a photo's size from these properties and its ThumbHash from the thumbnail
 * item a phone writes beside it (`src/node/media/heic.ts`), and the metadata stripper finds the EXIF
 * and XMP items to neutralise (`src/core/media/strip-metadata.ts`). Input is untrusted: every count is
 * bounded by the bytes that hold it, and anything that does not fit is `ERR_FORMAT`.
 *
 * @module
 */
import { FormatError } from '../errors.js';
import { fourCc, type IsoBox, isoBoxes, readIsoBox, u16be, u32be, u64be } from './isobmff.js';

/** An item of the file. */
export interface HeifItem {
  /** The item's id. */
  id: number;
  /** Its type: `hvc1`, `av01`, `grid`, `iovl`, `Exif`, `mime`, `jpeg`, ... */
  type: string;
  /** Marked hidden (tiles, thumbnails' sources are not shown on their own). */
  hidden: boolean;
  /** The MIME type of a `mime` item (`application/rdf+xml` for XMP). */
  contentType?: string;
}

/** One run of an item's bytes. */
export interface HeifExtent {
  /** Offset: in the file (construction method 0), or in the `idat` box's payload (method 1). */
  offset: number;
  /** Length in bytes. */
  length: number;
}

/** Where an item's bytes are (`iloc`). */
export interface HeifLocation {
  /** 0: in the file (usually `mdat`); 1: in the `idat` box; 2: in another item (not read here). */
  method: number;
  /** 0: this file; anything else names an external file (not read here). */
  dataReference: number;
  /** The runs, in order; their concatenation is the item's data. */
  extents: HeifExtent[];
}

/** A property box associated with an item. */
export interface HeifProperty {
  /** The box (offsets in the `meta` bytes given to {@link parseHeifMeta}). */
  box: IsoBox;
  /** Marked essential: a reader that does not understand it must not show the item. */
  essential: boolean;
}

/** A reference of one type from one item to others (`iref`). */
export interface HeifReference {
  /** `thmb`, `dimg`, `cdsc`, `auxl`, ... */
  type: string;
  /** The referring item (for `thmb`: the thumbnail; for `cdsc`: the metadata item). */
  from: number;
  /** The items referred to (for `thmb` and `cdsc`: the picture described). */
  to: number[];
}

/** What a `meta` box says. */
export interface HeifMeta {
  /** The bytes given, holding the whole `meta` box. */
  bytes: Uint8Array;
  /** The primary item (`pitm`), if stated. */
  primary: number | undefined;
  /** Items by id. */
  items: Map<number, HeifItem>;
  /** Item locations by id. */
  locations: Map<number, HeifLocation>;
  /** Properties of each item, in association order (the order transformations apply in). */
  properties: Map<number, HeifProperty[]>;
  /** Every reference. */
  references: HeifReference[];
  /** The `idat` box's payload, as offsets in `bytes`, if there is one. */
  idat: { start: number; end: number } | undefined;
}

/** `auxC` types of an alpha plane (HEVC's and MPEG-B's names). */
const ALPHA_AUX = /^urn:mpeg:(hevc:2015:auxid:1|mpegB:cicp:systems:auxiliary:alpha)/;

/** The most items (and properties, references, extents) read from one file: far beyond any real one. */
const MAX_ENTRIES = 65_536;

class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public at: number,
    readonly end: number,
    readonly what: string,
  ) {}

  #need(n: number): void {
    if (this.at + n > this.end) throw new FormatError(`the HEIF ${this.what} box is cut short`);
  }
  u8(): number {
    this.#need(1);
    return this.bytes[this.at++]!;
  }
  u16(): number {
    this.#need(2);
    const value = u16be(this.bytes, this.at);
    this.at += 2;
    return value;
  }
  u32(): number {
    this.#need(4);
    const value = u32be(this.bytes, this.at);
    this.at += 4;
    return value;
  }
  /** An unsigned integer of 0, 4 or 8 bytes (iloc's field sizes). */
  sized(size: number): number {
    if (size === 0) return 0;
    if (size === 4) return this.u32();
    if (size === 8) {
      this.#need(8);
      const value = u64be(this.bytes, this.at);
      this.at += 8;
      if (value === undefined) throw new FormatError(`the HEIF ${this.what} box states an offset past 2^53`);
      return value;
    }
    throw new FormatError(`the HEIF ${this.what} box uses a field size of ${size} bytes (0, 4 or 8 allowed)`);
  }
  fourCc(): string {
    this.#need(4);
    const value = fourCc(this.bytes, this.at);
    this.at += 4;
    return value;
  }
  /** A NUL-terminated UTF-8 string (Latin-1 read is enough for the MIME types and names used here). */
  string(): string {
    let stop = this.at;
    while (stop < this.end && this.bytes[stop] !== 0) stop++;
    const value = String.fromCharCode(...this.bytes.subarray(this.at, Math.min(stop, this.at + 255)));
    this.at = Math.min(stop + 1, this.end);
    return value;
  }
  count(n: number): number {
    if (n > MAX_ENTRIES) throw new FormatError(`the HEIF ${this.what} box lists ${n} entries`);
    return n;
  }
}

/** A full box's version and flags, and a reader of its body. */
function fullBox(bytes: Uint8Array, box: IsoBox): { version: number; flags: number; read: Reader } {
  const read = new Reader(bytes, box.payload, box.end, box.type);
  const version = read.u8();
  const flags = (read.u8() << 16) | read.u16();
  return { version, flags, read };
}

function parseItemInfo(bytes: Uint8Array, box: IsoBox, items: Map<number, HeifItem>): void {
  const { version, read } = fullBox(bytes, box);
  read.count(version === 0 ? read.u16() : read.u32());
  for (const entry of isoBoxes(bytes, read.at, box.end)) {
    if (entry.type !== 'infe') continue;
    const infe = fullBox(bytes, entry);
    // Versions 0 and 1 (no item type) predate HEIF; a file using them has no image items to read.
    if (infe.version < 2) continue;
    const id = infe.version === 2 ? infe.read.u16() : infe.read.u32();
    infe.read.u16(); // item_protection_index
    const type = infe.read.fourCc();
    infe.read.string(); // item_name
    const item: HeifItem = { id, type, hidden: (infe.flags & 1) === 1 };
    if (type === 'mime') item.contentType = infe.read.string().toLowerCase();
    if (items.size >= MAX_ENTRIES) throw new FormatError('the HEIF file lists too many items');
    items.set(id, item);
  }
}

function parseItemLocations(bytes: Uint8Array, box: IsoBox, locations: Map<number, HeifLocation>): void {
  const { version, read } = fullBox(bytes, box);
  if (version > 2) throw new FormatError(`the HEIF iloc box has version ${version} (0 to 2 known)`);
  const sizes = read.u16();
  const offsetSize = sizes >> 12;
  const lengthSize = (sizes >> 8) & 15;
  const baseOffsetSize = (sizes >> 4) & 15;
  const indexSize = version >= 1 ? sizes & 15 : 0;
  const count = read.count(version < 2 ? read.u16() : read.u32());
  for (let i = 0; i < count; i++) {
    const id = version < 2 ? read.u16() : read.u32();
    const method = version >= 1 ? read.u16() & 15 : 0;
    const dataReference = read.u16();
    const base = read.sized(baseOffsetSize);
    const extentCount = read.count(read.u16());
    const extents: HeifExtent[] = [];
    for (let e = 0; e < extentCount; e++) {
      if (indexSize > 0) read.sized(indexSize);
      const offset = base + read.sized(offsetSize);
      const length = read.sized(lengthSize);
      if (!Number.isSafeInteger(offset))
        throw new FormatError('the HEIF iloc box states an offset past 2^53');
      extents.push({ offset, length });
    }
    locations.set(id, { method, dataReference, extents });
  }
}

function parseReferences(bytes: Uint8Array, box: IsoBox, references: HeifReference[]): void {
  const { version } = fullBox(bytes, box);
  for (const entry of isoBoxes(bytes, box.payload + 4, box.end)) {
    const read = new Reader(bytes, entry.payload, entry.end, 'iref');
    const wide = version !== 0;
    const from = wide ? read.u32() : read.u16();
    const count = read.count(read.u16());
    const to: number[] = [];
    for (let i = 0; i < count; i++) to.push(wide ? read.u32() : read.u16());
    if (references.length >= MAX_ENTRIES) throw new FormatError('the HEIF file lists too many references');
    references.push({ type: entry.type, from, to });
  }
}

function parseProperties(bytes: Uint8Array, iprp: IsoBox, properties: Map<number, HeifProperty[]>): void {
  let boxes: IsoBox[] = [];
  for (const child of isoBoxes(bytes, iprp.payload, iprp.end)) {
    if (child.type === 'ipco') boxes = [...isoBoxes(bytes, child.payload, child.end)];
  }
  for (const child of isoBoxes(bytes, iprp.payload, iprp.end)) {
    if (child.type !== 'ipma') continue;
    const { version, flags, read } = fullBox(bytes, child);
    const count = read.count(read.u32());
    for (let i = 0; i < count; i++) {
      const id = version < 1 ? read.u16() : read.u32();
      const associations = read.u8();
      const list = properties.get(id) ?? [];
      for (let a = 0; a < associations; a++) {
        const wide = (flags & 1) === 1;
        const value = wide ? read.u16() : read.u8();
        const essential = (value & (wide ? 0x8000 : 0x80)) !== 0;
        const index = value & (wide ? 0x7fff : 0x7f);
        const box = boxes[index - 1];
        if (index !== 0 && box !== undefined) list.push({ box, essential });
      }
      properties.set(id, list);
    }
  }
}

/**
 * Reads a `meta` box. `bytes` holds the whole box from offset 0.
 *
 * @throws {FormatError} `ERR_FORMAT` when it is not a `meta` box or a box inside it is cut short,
 *   states impossible sizes or lists more than 65 536 entries.
 * @example
 * ```ts
 * const meta = parseHeifMeta(metaBytes);
 * const size = heifDisplaySize(meta, meta.primary!); // { width: 3024, height: 4032 }
 * ```
 */
export function parseHeifMeta(bytes: Uint8Array): HeifMeta {
  const box = readIsoBox(bytes, 0, bytes.length);
  if (box?.type !== 'meta') throw new FormatError('expected a HEIF meta box');
  const meta: HeifMeta = {
    bytes,
    primary: undefined,
    items: new Map(),
    locations: new Map(),
    properties: new Map(),
    references: [],
    idat: undefined,
  };
  // meta is a full box: its children start after the version and flags.
  for (const child of isoBoxes(bytes, box.payload + 4, box.end)) {
    switch (child.type) {
      case 'pitm': {
        const { version, read } = fullBox(bytes, child);
        meta.primary = version === 0 ? read.u16() : read.u32();
        break;
      }
      case 'iinf':
        parseItemInfo(bytes, child, meta.items);
        break;
      case 'iloc':
        parseItemLocations(bytes, child, meta.locations);
        break;
      case 'iref':
        parseReferences(bytes, child, meta.references);
        break;
      case 'iprp':
        parseProperties(bytes, child, meta.properties);
        break;
      case 'idat':
        meta.idat = { start: child.payload, end: child.end };
        break;
    }
  }
  return meta;
}

/** The first property of `type` associated with `item`. */
export function heifProperty(meta: HeifMeta, item: number, type: string): HeifProperty | undefined {
  return meta.properties.get(item)?.find((property) => property.box.type === type);
}

/**
 * The size an item is shown at, from its properties alone: `ispe` (the reconstructed image), then each
 * `clap` crop and `irot` quarter turn in association order (the order they apply in); `imir` keeps the
 * size. Undefined without an `ispe` or with an impossible crop.
 *
 * @example
 * ```ts
 * heifDisplaySize(meta, meta.primary!); // ispe 4032×3024 and irot 3 → { width: 3024, height: 4032 }
 * ```
 */
export function heifDisplaySize(meta: HeifMeta, item: number): { width: number; height: number } | undefined {
  const { bytes } = meta;
  const ispe = heifProperty(meta, item, 'ispe');
  if (ispe === undefined || ispe.box.end - ispe.box.payload < 12) return undefined;
  let width = u32be(bytes, ispe.box.payload + 4);
  let height = u32be(bytes, ispe.box.payload + 8);
  for (const { box } of meta.properties.get(item) ?? []) {
    if (box.type === 'irot' && box.end > box.payload) {
      if ((bytes[box.payload]! & 3) % 2 === 1) [width, height] = [height, width];
    } else if (box.type === 'clap' && box.end - box.payload >= 32) {
      const fraction = (at: number) => {
        const d = u32be(bytes, box.payload + at + 4);
        return d === 0 ? Number.NaN : u32be(bytes, box.payload + at) / d;
      };
      // libheif rounds the clean aperture half up, as here.
      const w = Math.floor(fraction(0) + 0.5);
      const h = Math.floor(fraction(8) + 0.5);
      if (!(w >= 1 && h >= 1 && w <= width && h <= height)) return undefined;
      width = w;
      height = h;
    }
  }
  if (width < 1 || height < 1) return undefined;
  return { width, height };
}

/** The items that `reference`-refer to `item` (for `thmb`: its thumbnails; for `cdsc`: its metadata). */
export function heifItemsReferring(meta: HeifMeta, item: number, reference: string): number[] {
  return meta.references.filter((r) => r.type === reference && r.to.includes(item)).map((r) => r.from);
}

/** True when `item` has an alpha plane: an auxiliary image (`auxl`) whose `auxC` type is alpha. */
export function heifHasAlpha(meta: HeifMeta, item: number): boolean {
  return heifItemsReferring(meta, item, 'auxl').some((aux) => {
    const auxC = heifProperty(meta, aux, 'auxC');
    if (auxC === undefined) return false;
    const urn = meta.bytes.subarray(auxC.box.payload + 4, Math.min(auxC.box.end, auxC.box.payload + 68));
    return ALPHA_AUX.test(String.fromCharCode(...urn));
  });
}
