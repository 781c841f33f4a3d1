/**
 * Builds small HEIF files whose primary item is a derived image (a `grid` or an `iovl` overlay of HEVC
 * tiles), the layout of iPhone photos and of many camera HEICs, with control over what the real-world
 * files vary in: whether the tiles are marked hidden, where the primary item sits in the item list, a
 * thumbnail item beside the picture, an `irot` turn, and Exif and XMP items.
 * Tiles are encoded by ffmpeg (libx265), one solid colour each, then boxed here (ISO/IEC 23008-12).
 */
import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

function u8(n: number): Buffer {
  return Buffer.from([n & 0xff]);
}
function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([u32(8 + body.length), Buffer.from(type, 'latin1'), body]);
}
function fullBox(type: string, version: number, flags: number, ...parts: Buffer[]): Buffer {
  return box(type, u8(version), u8(flags >> 16), u16(flags & 0xffff), ...parts);
}

/** NAL units of an Annex B stream (start codes removed). */
function nalUnits(stream: Buffer): Buffer[] {
  const starts: number[] = [];
  for (let i = 0; i + 2 < stream.length; i++) {
    if (stream[i] === 0 && stream[i + 1] === 0 && stream[i + 2] === 1) {
      starts.push(i + 3);
      i += 2;
    }
  }
  return starts.map((start, k) => {
    let end = k + 1 < starts.length ? starts[k + 1]! - 3 : stream.length;
    while (end > start && stream[end - 1] === 0) end--; // a 4-byte start code's leading zero
    return stream.subarray(start, end);
  });
}
const nalType = (nal: Buffer) => (nal[0]! >> 1) & 0x3f;

/** The RBSP of a NAL unit (emulation prevention bytes removed). */
function rbsp(nal: Buffer): Buffer {
  const out: number[] = [];
  for (let i = 0; i < nal.length; i++) {
    if (i >= 2 && nal[i] === 3 && nal[i - 1] === 0 && nal[i - 2] === 0) continue;
    out.push(nal[i]!);
  }
  return Buffer.from(out);
}

/** `hvcC` from the stream's VPS, SPS and PPS (profile, tier and level read from the SPS). */
function hvcC(nals: Buffer[]): Buffer {
  const sps = nals.find((n) => nalType(n) === 33)!;
  // After the 2-byte NAL header: 1 byte of ids, then profile_tier_level: 1 + 4 + 6 + 1 bytes.
  const ptl = rbsp(sps).subarray(3, 15);
  const arrays = [32, 33, 34].map((type) => {
    const nal = nals.find((n) => nalType(n) === type)!;
    return Buffer.concat([u8(0x80 | type), u16(1), u16(nal.length), nal]);
  });
  return box(
    'hvcC',
    u8(1),
    ptl,
    u16(0xf000),
    u8(0xfc),
    u8(0xfd), // 4:2:0
    u8(0xf8), // 8-bit luma
    u8(0xf8), // 8-bit chroma
    u16(0),
    u8(0x0f), // one temporal layer, nested, 4-byte NAL lengths
    u8(arrays.length),
    ...arrays,
  );
}

/** One HEVC frame of `width`×`height` from ffmpeg, as Annex B NAL units: a solid colour, or a lavfi graph. */
async function encodeTile(ffmpeg: string, dir: string, colour: string, width: number, height: number) {
  const source = colour.includes('[') ? colour : `color=c=${colour}:size=${width}x${height}`;
  const out = join(dir, `tile-${process.pid}-${Math.random().toString(36).slice(2)}.hevc`);
  await run(ffmpeg, [
    '-hide_banner',
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    source,
    '-frames:v',
    '1',
    '-pix_fmt',
    'yuv420p',
    '-c:v',
    'libx265',
    '-x265-params',
    'log-level=error',
    '-f',
    'hevc',
    out,
  ]);
  const nals = nalUnits(await readFile(out));
  await rm(out, { force: true });
  return nals;
}

/** A lavfi graph drawing the four tile colours as quadrants of a `width`×`height` picture. */
function quadrants(width: number, height: number): string {
  const size = `${width / 2}x${height / 2}`;
  const [a, b, c, d] = TILE_COLOURS;
  return (
    `color=c=${a}:s=${size}[a];color=c=${b}:s=${size}[b];color=c=${c}:s=${size}[c];color=c=${d}:s=${size}[d];` +
    '[a][b]hstack[top];[c][d]hstack[bottom];[top][bottom]vstack'
  );
}

/** How the derived primary image is put together. */
export interface DerivedHeifOptions {
  /** `grid` (tiles side by side) or `iovl` (tiles placed on a canvas at offsets). */
  kind: 'grid' | 'iovl';
  /** Mark the tiles hidden (as the spec asks) or not (as some writers do). */
  hiddenTiles: boolean;
  /** Put the primary item first or last in the item list. */
  primary: 'first' | 'last';
  /**
   * A thumbnail item (`thmb`): its coded size, and a solid colour (default: the same four quadrants as
   * the picture, i.e. the picture shrunk).
   */
  thumbnail?: { width: number; height: number; colour?: string };
  /** An `irot` on the picture (and its thumbnail), in quarter turns counter-clockwise. */
  rotation?: 1 | 2 | 3;
  /** An `Exif` item describing the picture (`cdsc`): the TIFF bytes, stored after a 4-byte offset of 0. */
  exif?: Uint8Array;
  /** An XMP packet (`mime` item, `application/rdf+xml`) describing the picture. */
  xmp?: string;
  /** Tiles (and the picture) this many times {@link DERIVED_SIZE} on each side (default 1). */
  scale?: number;
}

/** Size of the whole picture, and of each of its four tiles (2×2). */
export const DERIVED_SIZE = { width: 960, height: 640, tileWidth: 480, tileHeight: 320 };
/** Tile colours, row by row: the whole picture's average is grey-ish, any single tile is not. */
export const TILE_COLOURS = ['red', 'lime', 'blue', 'white'] as const;

/**
 * A HEIC whose primary item is a 960×640 `grid` or `iovl` of four 480×320 HEVC tiles (red, green, blue,
 * white), encoded with `ffmpeg` (needs libx265); optionally with a thumbnail item, a rotation, an Exif
 * item and an XMP item.
 */
export async function buildDerivedHeif(
  ffmpeg: string,
  dir: string,
  options: DerivedHeifOptions,
): Promise<Buffer> {
  const scale = options.scale ?? 1;
  const [width, height, tileWidth, tileHeight] = [
    DERIVED_SIZE.width,
    DERIVED_SIZE.height,
    DERIVED_SIZE.tileWidth,
    DERIVED_SIZE.tileHeight,
  ].map((n) => n * scale) as [number, number, number, number];
  const tiles = [];
  for (const colour of TILE_COLOURS) tiles.push(await encodeTile(ffmpeg, dir, colour, tileWidth, tileHeight));
  const tileData = tiles.map((nals) =>
    Buffer.concat(nals.filter((n) => nalType(n) < 32).flatMap((n) => [u32(n.length), n])),
  );
  const derivedData =
    options.kind === 'grid'
      ? Buffer.concat([u8(0), u8(0), u8(1), u8(1), u16(width), u16(height)])
      : Buffer.concat([
          u8(0),
          u8(0),
          u16(0),
          u16(0),
          u16(0),
          u16(0xffff), // canvas fill: transparent black
          u16(width),
          u16(height),
          ...[0, 1, 2, 3].flatMap((i) => [u16((i % 2) * tileWidth), u16(Math.floor(i / 2) * tileHeight)]),
        ]);

  // Item ids: tiles 1–4, the derived image 5, the thumbnail 6, Exif 7, XMP 8; the item list order
  // decides where the primary sits.
  const tileIds = [1, 2, 3, 4];
  const derivedId = 5;
  const thumbId = 6;
  const exifId = 7;
  const xmpId = 8;
  const extras = [
    ...(options.thumbnail ? [thumbId] : []),
    ...(options.exif ? [exifId] : []),
    ...(options.xmp ? [xmpId] : []),
  ];
  const order = [
    ...(options.primary === 'first' ? [derivedId, ...tileIds] : [...tileIds, derivedId]),
    ...extras,
  ];
  const infe = (id: number) => {
    if (id === derivedId) {
      return fullBox('infe', 2, 0, u16(id), u16(0), Buffer.from(options.kind, 'latin1'), u8(0));
    }
    if (id === thumbId) return fullBox('infe', 2, 0, u16(id), u16(0), Buffer.from('hvc1', 'latin1'), u8(0));
    if (id === exifId) return fullBox('infe', 2, 1, u16(id), u16(0), Buffer.from('Exif', 'latin1'), u8(0));
    if (id === xmpId) {
      const type = Buffer.from('application/rdf+xml\0', 'latin1');
      return fullBox('infe', 2, 1, u16(id), u16(0), Buffer.from('mime', 'latin1'), u8(0), type);
    }
    return fullBox(
      'infe',
      2,
      options.hiddenTiles ? 1 : 0,
      u16(id),
      u16(0),
      Buffer.from('hvc1', 'latin1'),
      u8(0),
    );
  };
  const iinf = fullBox('iinf', 0, 0, u16(order.length), ...order.map(infe));
  const reference = (type: string, from: number, to: number[]) =>
    box(type, u16(from), u16(to.length), ...to.map((id) => u16(id)));
  const iref = fullBox(
    'iref',
    0,
    0,
    reference('dimg', derivedId, tileIds),
    ...(options.thumbnail ? [reference('thmb', thumbId, [derivedId])] : []),
    ...(options.exif ? [reference('cdsc', exifId, [derivedId])] : []),
    ...(options.xmp ? [reference('cdsc', xmpId, [derivedId])] : []),
  );
  const thumbNals = options.thumbnail
    ? await encodeTile(
        ffmpeg,
        dir,
        options.thumbnail.colour ?? quadrants(options.thumbnail.width, options.thumbnail.height),
        options.thumbnail.width,
        options.thumbnail.height,
      )
    : undefined;
  // Properties: 1 hvcC (all tiles share it: same encoder settings), 2 tile ispe, 3 picture ispe,
  // 4 irot, 5 thumbnail hvcC, 6 thumbnail ispe.
  const ipco = box(
    'ipco',
    hvcC(tiles[0]!),
    fullBox('ispe', 0, 0, u32(tileWidth), u32(tileHeight)),
    fullBox('ispe', 0, 0, u32(width), u32(height)),
    box('irot', u8(options.rotation ?? 0)),
    ...(thumbNals && options.thumbnail
      ? [hvcC(thumbNals), fullBox('ispe', 0, 0, u32(options.thumbnail.width), u32(options.thumbnail.height))]
      : []),
  );
  const rotate = options.rotation ? [u8(0x80 | 4)] : [];
  const ipma = fullBox(
    'ipma',
    0,
    0,
    u32(order.filter((id) => id !== exifId && id !== xmpId).length),
    ...order
      .filter((id) => id !== exifId && id !== xmpId)
      .map((id) =>
        id === derivedId
          ? Buffer.concat([u16(id), u8(1 + rotate.length), u8(3), ...rotate])
          : id === thumbId
            ? Buffer.concat([u16(id), u8(2 + rotate.length), u8(0x80 | 5), u8(6), ...rotate])
            : Buffer.concat([u16(id), u8(2), u8(0x80 | 1), u8(2)]),
      ),
  );
  const pitm = fullBox('pitm', 0, 0, u16(derivedId));
  const hdlr = fullBox('hdlr', 0, 0, u32(0), Buffer.from('pict', 'latin1'), u32(0), u32(0), u32(0), u8(0));
  const data = new Map<number, Buffer>([
    ...tileIds.map((id, i) => [id, tileData[i]!] as const),
    [derivedId, derivedData],
  ]);
  if (thumbNals) {
    data.set(
      thumbId,
      Buffer.concat(thumbNals.filter((n) => nalType(n) < 32).flatMap((n) => [u32(n.length), n])),
    );
  }
  if (options.exif) data.set(exifId, Buffer.concat([u32(0), Buffer.from(options.exif)]));
  if (options.xmp) data.set(xmpId, Buffer.from(options.xmp, 'utf8'));
  const iloc = (offsets: Map<number, number>) =>
    fullBox(
      'iloc',
      0,
      0,
      u8(0x44), // 4-byte offsets and lengths
      u8(0x00), // no base offset
      u16(order.length),
      ...order.map((id) =>
        Buffer.concat([u16(id), u16(0), u16(1), u32(offsets.get(id) ?? 0), u32(data.get(id)!.length)]),
      ),
    );
  const ftyp = box('ftyp', Buffer.from('heic', 'latin1'), u32(0), Buffer.from('mif1heic', 'latin1'));
  const meta = (offsets: Map<number, number>) =>
    fullBox('meta', 0, 0, hdlr, pitm, iloc(offsets), iinf, iref, box('iprp', ipco, ipma));
  // Lay out mdat after ftyp + meta (the meta's size does not depend on the offsets' values).
  let at = ftyp.length + meta(new Map()).length + 8;
  const offsets = new Map<number, number>();
  for (const id of order) {
    offsets.set(id, at);
    at += data.get(id)!.length;
  }
  const mdat = box('mdat', ...order.map((id) => data.get(id)!));
  return Buffer.concat([ftyp, meta(offsets), mdat]);
}
