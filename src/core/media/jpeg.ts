/**
 * JPEG to RGBA in pure JavaScript (jpeg-js: pdf.js's decoder; baseline and progressive, grey, YCbCr,
 * CMYK/YCCK), for runtimes without sharp: React Native under Hermes (which runs no WebAssembly) and
 * browsers. The header is read first, by our own marker walk, so the size limit is checked before any
 * pixel is decoded and the EXIF orientation is known.
 *
 * @module
 */
/// <reference path="./jpeg-js-decoder.d.ts" />
import decodeJpegPixels from 'jpeg-js/lib/decoder.js';
import { ProbeError } from '../errors.js';
import { type Orientation, tiffOrientation } from './orientation.js';

/** What the header says, before decoding. */
export interface JpegHeader {
  /** Stored width in pixels (before orientation). */
  width: number;
  /** Stored height in pixels (before orientation). */
  height: number;
  /** EXIF orientation (1 when there is none). */
  orientation: Orientation;
}

/** True when `bytes` starts like a JPEG (SOI followed by a marker). */
export function isJpeg(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

/** Start-of-frame markers (every coding process), which carry the image size. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** Coding processes the decoder does not read, by their start-of-frame marker. */
const UNDECODED_KINDS: Record<number, string> = {
  195: 'lossless',
  197: 'hierarchical',
  198: 'hierarchical',
  199: 'hierarchical lossless',
  201: 'arithmetic-coded',
  202: 'arithmetic-coded',
  203: 'arithmetic-coded lossless',
  205: 'hierarchical arithmetic-coded',
  206: 'hierarchical arithmetic-coded',
  207: 'hierarchical arithmetic-coded lossless',
};

const EXIF_ID = [0x45, 0x78, 0x69, 0x66, 0, 0]; // "Exif\0\0"

/**
 * Walks the markers up to the first scan: the frame size and the EXIF orientation.
 *
 * @throws {ProbeError} `ERR_PROBE_FAILED` when no frame header comes before the data ends.
 */
export function readJpegHeader(bytes: Uint8Array): JpegHeader {
  let orientation: Orientation = 1;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) break;
    const marker = bytes[at + 1]!;
    // Fill bytes and markers without a length (RSTn, TEM).
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    const body = at + 4;
    if (length < 2 || at + 2 + length > bytes.length) break;
    if (marker === 0xe1 && length >= 2 + 6 + 8 && EXIF_ID.every((b, i) => bytes[body + i] === b)) {
      orientation = tiffOrientation(bytes.subarray(body + 6, at + 2 + length));
    } else if (isStartOfFrame(marker) && length >= 2 + 6) {
      // The decoder reads Huffman-coded baseline, extended and progressive JPEGs (SOF0-SOF2); the
      // others are rare outside archives and are refused by name rather than as "damaged".
      if (marker > 0xc2) {
        throw new ProbeError(
          `the JPEG is ${UNDECODED_KINDS[marker] ?? 'of an unknown kind'} (SOF${marker - 0xc0}), which is not decoded here; save the picture again with the image manipulator (JPEG or PNG)`,
        );
      }
      const height = (bytes[body + 1]! << 8) | bytes[body + 2]!;
      const width = (bytes[body + 3]! << 8) | bytes[body + 4]!;
      if (width > 0 && height > 0) return { width, height, orientation };
      break;
    } else if (marker === 0xda || marker === 0xd9) {
      break;
    }
    at += 2 + length;
  }
  throw new ProbeError('the JPEG has no readable frame header (truncated or not a JPEG)');
}

/**
 * Decodes a JPEG to 8-bit RGBA (opaque), as stored (orientation not applied).
 *
 * @param maxPixels - the decoder's own backstop (the caller checked the header already).
 * @throws {ProbeError} `ERR_PROBE_FAILED` when the data cannot be decoded (the decoder's error is the
 *   `cause`): damaged data, arithmetic coding, lossless JPEG.
 */
export function decodeJpeg(
  bytes: Uint8Array,
  maxPixels: number,
): { width: number; height: number; rgba: Uint8Array } {
  try {
    const image = decodeJpegPixels(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      // As sharp with failOn 'error': a damaged last scan line still gives a placeholder.
      tolerantDecoding: true,
      maxResolutionInMP: maxPixels / 1_000_000,
      // Component planes plus the RGBA output: a little over 7 bytes per pixel.
      maxMemoryUsageInMB: Math.ceil((maxPixels * 8) / (1024 * 1024)) + 16,
    });
    return { width: image.width, height: image.height, rgba: image.data };
  } catch (cause) {
    const detail = cause instanceof Error ? `: ${cause.message.split('\n')[0]?.slice(0, 200)}` : '';
    throw new ProbeError(`the JPEG could not be decoded${detail}`, { cause });
  }
}
