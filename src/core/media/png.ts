/**
 * PNG to 8-bit RGBA in pure JavaScript, for runtimes without sharp. The image data is inflated by
 * fflate (pure JS, no WebAssembly, no Node); the PNG structure around it (chunks, the five row filters,
 * Adam7 interlacing, samples of 1 to 16 bits) is read here, and checked against every valid PngSuite
 * image in the conformance suite.
 *
 * Why not a PNG library: fast-png constructs `new TextDecoder('latin1')` when it is imported, and the
 * TextDecoder Expo installs (Happy's app) knows only UTF-8, so importing it throws; it also misreads
 * interlaced images below 8 bits. UPNG.js and png-js are unmaintained or read less than this.
 *
 * Every colour type and depth is brought to what sharp hands the ThumbHash encoder: 8 bits per channel
 * (16-bit samples keep their high byte, as libvips does), palettes expanded, `tRNS` applied as alpha.
 *
 * @module
 */
import { Unzlib } from 'fflate';
import { ProbeError } from '../errors.js';
import { type Orientation, tiffOrientation } from './orientation.js';

/** What the header says, before decoding. */
export interface PngHeader {
  width: number;
  height: number;
  /** Bits per sample: 1, 2, 4, 8 or 16. */
  depth: number;
  /** 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA. */
  colorType: number;
  /** Adam7 interlacing. */
  interlaced: boolean;
  /** EXIF orientation from an `eXIf` chunk before the image data (1 when there is none). */
  orientation: Orientation;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Samples per pixel of each colour type. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** The bit depths PNG allows for each colour type. */
const DEPTHS: Record<number, readonly number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/** Adam7's seven passes: first column and row, then the steps between columns and rows. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** True when `bytes` starts with the PNG signature. */
export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && SIGNATURE.every((b, i) => bytes[i] === b);
}

function u32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

function chunkType(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
}

/** Calls `visit(type, data)` for each whole chunk after IHDR, until IEND, the data's end or `false`. */
function forEachChunk(bytes: Uint8Array, visit: (type: string, data: Uint8Array) => boolean | undefined) {
  for (let at = 33; at + 12 <= bytes.length; ) {
    const length = u32(bytes, at);
    const type = chunkType(bytes, at + 4);
    // CRCs are not checked, as sharp (failOn 'error') does not: a stale CRC still gives a placeholder.
    if (type === 'IEND' || at + 12 + length > bytes.length) return;
    if (visit(type, bytes.subarray(at + 8, at + 8 + length)) === false) return;
    at += 12 + length;
  }
}

/**
 * The header (`IHDR`) and the orientation from an `eXIf` chunk before the image data.
 *
 * @throws {ProbeError} `ERR_PROBE_FAILED` when the first chunk is not a valid `IHDR`.
 */
export function readPngHeader(bytes: Uint8Array): PngHeader {
  if (bytes.length < 33 || chunkType(bytes, 12) !== 'IHDR' || u32(bytes, 8) !== 13) {
    throw new ProbeError('the PNG has no readable IHDR header (truncated or not a PNG)');
  }
  const width = u32(bytes, 16);
  const height = u32(bytes, 20);
  const depth = bytes[24]!;
  const colorType = bytes[25]!;
  if (width === 0 || height === 0) throw new ProbeError('the PNG header states an empty image');
  if (!DEPTHS[colorType]?.includes(depth) || bytes[26] !== 0 || bytes[27] !== 0 || bytes[28]! > 1) {
    throw new ProbeError(
      `the PNG header is invalid (colour type ${colorType}, ${depth} bits, compression ${bytes[26]}, filter ${bytes[27]}, interlace ${bytes[28]})`,
    );
  }
  let orientation: Orientation = 1;
  forEachChunk(bytes, (type, data) => {
    if (type === 'IDAT') return false;
    if (type === 'eXIf') orientation = tiffOrientation(data);
    return true;
  });
  return { width, height, depth, colorType, interlaced: bytes[28] === 1, orientation };
}

/** Undoes one row's filter in place; `previous` is the unfiltered row above (zeros for the first). */
function unfilter(filter: number, row: Uint8Array, previous: Uint8Array, bpp: number): void {
  const n = row.length;
  switch (filter) {
    case 0:
      return;
    case 1: // Sub
      for (let i = bpp; i < n; i++) row[i] = (row[i]! + row[i - bpp]!) & 255;
      return;
    case 2: // Up
      for (let i = 0; i < n; i++) row[i] = (row[i]! + previous[i]!) & 255;
      return;
    case 3: // Average
      for (let i = 0; i < n; i++) {
        const left = i >= bpp ? row[i - bpp]! : 0;
        row[i] = (row[i]! + ((left + previous[i]!) >> 1)) & 255;
      }
      return;
    case 4: // Paeth
      for (let i = 0; i < n; i++) {
        const a = i >= bpp ? row[i - bpp]! : 0;
        const b = previous[i]!;
        const c = i >= bpp ? previous[i - bpp]! : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        row[i] = (row[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
      }
      return;
    default:
      throw new ProbeError(`the PNG could not be decoded: unknown row filter ${filter}`);
  }
}

/** Deflate's largest expansion: one compressed byte gives at most 1032 bytes. */
const DEFLATE_MAX_RATIO = 1032;
/** The smallest slice of compressed bytes handed to the inflater at a time (inflates to ≤ ~1 MB). */
const MIN_INFLATE_SLICE_BYTES = 1024;

/**
 * Inflates the image data up to `expected` bytes, the size the header states, and stops there: what the
 * zlib stream holds beyond it is never inflated (libpng, under sharp, ignores it too). fflate's one-shot
 * inflate given an output buffer of that size keeps decoding past its end, so a 1 MB IDAT that inflates
 * to 1 GiB cost seconds; fed in slices, the work is bounded by the picture's size.
 *
 * @throws {ProbeError} `ERR_PROBE_FAILED` when the data is damaged or ends before `expected` bytes.
 */
function inflateImageData(idat: readonly Uint8Array[], expected: number): Uint8Array {
  const out = new Uint8Array(expected);
  // Each slice inflates to at most about `expected` bytes (or ~1 MB for tiny pictures): the work done past
  // the picture's end is bounded by its size, not by what the data claims.
  const slice = Math.max(MIN_INFLATE_SLICE_BYTES, Math.ceil(expected / DEFLATE_MAX_RATIO));
  let at = 0;
  const inflater = new Unzlib((data) => {
    const take = Math.min(data.length, expected - at);
    out.set(take === data.length ? data : data.subarray(0, take), at);
    at += take;
  });
  try {
    for (const part of idat) {
      for (let i = 0; i < part.length && at < expected; i += slice) {
        inflater.push(part.subarray(i, i + slice));
      }
      if (at >= expected) return out;
    }
    // The data ended before the picture did: the last push says so (a truncated stream throws here).
    inflater.push(new Uint8Array(0), true);
  } catch (cause) {
    throw new ProbeError('the PNG could not be decoded: its image data is damaged', { cause });
  }
  if (at < expected) {
    throw new ProbeError('the PNG could not be decoded: its image data is shorter than its size');
  }
  return out;
}

/** Scales a 1/2/4-bit grey sample to 8 bits. */
const SCALE: Record<number, number> = { 1: 255, 2: 85, 4: 17, 8: 1 };

/** The chunks the image is decoded from: its palette, its transparency and its image data, in order. */
function imageChunks(bytes: Uint8Array): {
  palette: Uint8Array | undefined;
  transparency: Uint8Array | undefined;
  idat: Uint8Array[];
} {
  let palette: Uint8Array | undefined;
  let transparency: Uint8Array | undefined;
  const idat: Uint8Array[] = [];
  forEachChunk(bytes, (type, data) => {
    if (type === 'PLTE') palette = data;
    else if (type === 'tRNS') transparency = data;
    else if (type === 'IDAT') idat.push(data);
    return true;
  });
  return { palette, transparency, idat };
}

/** The passes the image data holds (Adam7's seven when interlaced, else one), each with its size in pixels. */
function imagePasses(width: number, height: number, interlaced: boolean) {
  return (interlaced ? ADAM7 : [[0, 0, 1, 1] as const]).map(([x0, y0, dx, dy]) => ({
    x0,
    y0,
    dx,
    dy,
    w: Math.ceil((width - x0) / dx),
    h: Math.ceil((height - y0) / dy),
  }));
}

/**
 * The colour a grey or RGB image's tRNS makes transparent, as samples at full depth, or `undefined`
 * (a palette image's tRNS is read per entry instead).
 */
function transparentKey(
  transparency: Uint8Array | undefined,
  colorType: number,
  channels: number,
): number[] | undefined {
  return transparency !== undefined &&
    (colorType === 0 || colorType === 2) &&
    transparency.length >= 2 * channels
    ? Array.from({ length: channels }, (_, c) => (transparency[2 * c]! << 8) | transparency[2 * c + 1]!)
    : undefined;
}

/**
 * Decodes a PNG (the default image of an APNG) to 8-bit RGBA, as stored (orientation not applied).
 *
 * @throws {ProbeError} `ERR_PROBE_FAILED` when the data cannot be decoded: no or damaged image data,
 *   a palette index past the palette, an unknown row filter.
 */
export function decodePng(bytes: Uint8Array): { width: number; height: number; rgba: Uint8Array } {
  const { width, height, depth, colorType, interlaced } = readPngHeader(bytes);
  const channels = CHANNELS[colorType]!;
  const bitsPerPixel = channels * depth;
  const bpp = Math.max(1, bitsPerPixel >> 3);
  const { palette, transparency, idat } = imageChunks(bytes);
  if (colorType === 3 && palette === undefined) {
    throw new ProbeError('the PNG could not be decoded: a palette image without a PLTE chunk');
  }
  const passes = imagePasses(width, height, interlaced);
  // The exact inflated size: memory stays bounded whatever the compressed data claims.
  let expected = 0;
  for (const pass of passes) {
    if (pass.w > 0 && pass.h > 0) expected += pass.h * (1 + Math.ceil((pass.w * bitsPerPixel) / 8));
  }
  const raw = inflateImageData(idat, expected);

  const key = transparentKey(transparency, colorType, channels);
  const out = new Uint8Array(width * height * 4);
  const sample = new Array<number>(channels);
  const to8 = depth === 16 ? (v: number) => v >> 8 : (v: number) => v * SCALE[depth]!;
  let at = 0;
  for (const { x0, y0, dx, dy, w, h } of passes) {
    if (w <= 0 || h <= 0) continue;
    const rowBytes = Math.ceil((w * bitsPerPixel) / 8);
    let previous: Uint8Array = new Uint8Array(rowBytes);
    for (let y = 0; y < h; y++) {
      const filter = raw[at]!;
      const row = raw.subarray(at + 1, at + 1 + rowBytes);
      at += 1 + rowBytes;
      unfilter(filter, row, previous, bpp);
      previous = row;
      for (let x = 0; x < w; x++) {
        // Full-depth samples of this pixel.
        for (let c = 0; c < channels; c++) {
          if (depth === 16) {
            const i = (x * channels + c) * 2;
            sample[c] = (row[i]! << 8) | row[i + 1]!;
          } else if (depth === 8) {
            sample[c] = row[x * channels + c]!;
          } else {
            const bit = x * depth;
            sample[c] = (row[bit >> 3]! >> (8 - depth - (bit & 7))) & ((1 << depth) - 1);
          }
        }
        const o = ((y0 + y * dy) * width + x0 + x * dx) * 4;
        switch (colorType) {
          case 3: {
            const index = sample[0]!;
            if (index * 3 + 2 >= palette!.length) {
              throw new ProbeError(
                'the PNG could not be decoded: it uses a colour its palette does not have',
              );
            }
            out[o] = palette![index * 3]!;
            out[o + 1] = palette![index * 3 + 1]!;
            out[o + 2] = palette![index * 3 + 2]!;
            out[o + 3] = transparency?.[index] ?? 255;
            break;
          }
          case 0:
          case 4:
            out[o] = out[o + 1] = out[o + 2] = to8(sample[0]!);
            out[o + 3] =
              colorType === 4 ? to8(sample[1]!) : key !== undefined && sample[0] === key[0] ? 0 : 255;
            break;
          default:
            out[o] = to8(sample[0]!);
            out[o + 1] = to8(sample[1]!);
            out[o + 2] = to8(sample[2]!);
            out[o + 3] =
              colorType === 6
                ? to8(sample[3]!)
                : key !== undefined && sample[0] === key[0] && sample[1] === key[1] && sample[2] === key[2]
                  ? 0
                  : 255;
        }
      }
    }
  }
  return { width, height, rgba: out };
}
