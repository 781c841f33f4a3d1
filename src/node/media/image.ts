/**
 * Everything we ask of sharp (libvips), in one module: displayed size and ThumbHash of an image from one
 * decode, with limits chosen for untrusted input.
 *
 * - **One decode.** `metadata()` parses the header only (size, EXIF orientation); the single decode then
 *   shrinks on load to at most 100×100 (JPEG/WebP decode at 1/2…1/8 scale directly), keeps alpha, never
 *   enlarges, and feeds the ThumbHash encoder.
 * - **Orientation.** Width and height are after EXIF orientation (`autoOrient`), so a portrait phone
 *   photo is portrait; the pixels are rotated the same way.
 * - **Animated GIF/WebP.** Only the first frame is read (`pages: 1`), and the size is one frame's.
 * - **`failOn: 'error'`.** libvips warnings (a bad CRC, trailing garbage, a truncated last scan line) do
 *   not reject a picture a phone would still show; real decode errors do. sharp's default `'warning'`
 *   rejected valid-looking PngSuite files over a stale CRC.
 * - **Pixel limit.** We read the header (`metadata()`, no pixel decoded) and compare one frame's stored
 *   width × height with `maxInputPixels` ourselves, so the typed `ERR_LIMIT_EXCEEDED` never depends on
 *   the wording of a libvips message. sharp's own `limitInputPixels` stays on the decode as a backstop.
 * - **SVG** is rasterised from a buffer, never from its path: librsvg resolves `<image href>` and other
 *   references relative to a file's location (measured: an SVG loaded by path drew a sibling PNG), but a
 *   buffer has no base, so nothing outside the SVG is read; there is no network access either way, and
 *   libxml2 refuses entity amplification and external entities.
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import type { Metadata, Sharp, SharpOptions } from 'sharp';
import { InvalidArgumentError, LimitError, ProbeError } from '../../core/errors.js';
import { THUMBHASH_MAX_SIDE, thumbhashFromRgba } from '../../core/media/thumbhash.js';
import { loadSharp, type SharpFunction } from './lazy-deps.js';
import { sniffMimeType } from './mime.js';
import { assertWithinPixelLimit, DEFAULT_MAX_INPUT_PIXELS, DEFAULT_MAX_SVG_BYTES } from './options.js';

/** Displayed size and ThumbHash of a picture. */
export interface PictureProbe {
  /** Width after orientation, in pixels. */
  width: number;
  /** Height after orientation, in pixels. */
  height: number;
  /** ThumbHash, standard padded base64. */
  thumbhash: string;
}

/** Limits for {@link probeImage} and {@link thumbhashFromImage}. */
export interface ImageLimits {
  /** Largest image decoded, in pixels. Default 16383 × 16383. */
  maxInputPixels?: number;
  /** Largest SVG read, in bytes. Default 8 MiB. */
  maxSvgBytes?: number;
}

/** True when sharp can decode this (normalised) MIME type with the libvips it ships. */
export function sharpDecodes(mimeType: string): boolean {
  return SHARP_TYPES.has(mimeType);
}

// HEIC/HEIF is absent on purpose: sharp's prebuilt libvips has no HEVC decoder (heic.ts handles it).
const SHARP_TYPES = new Set([
  'image/jpeg',
  'image/png',
  'image/apng',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/tiff',
  'image/svg+xml',
]);

function wrap(error: unknown, what: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  return new ProbeError(`sharp could not decode ${what}: ${message.split('\n')[0]}`, { cause: error });
}

async function svgBuffer(path: string, maxSvgBytes: number): Promise<Buffer> {
  const { size } = await stat(path);
  if (size > maxSvgBytes) {
    throw new LimitError(
      `expected an SVG of at most ${maxSvgBytes} bytes (maxSvgBytes) but received ${size} bytes`,
    );
  }
  return readFile(path);
}

async function pipelineInput(
  input: string | Uint8Array,
  isSvg: boolean,
  limits: Required<ImageLimits>,
): Promise<string | Uint8Array> {
  if (typeof input === 'string' && isSvg) return svgBuffer(input, limits.maxSvgBytes);
  return input;
}

function resolveLimits(limits: ImageLimits): Required<ImageLimits> {
  return {
    maxInputPixels: limits.maxInputPixels ?? DEFAULT_MAX_INPUT_PIXELS,
    maxSvgBytes: limits.maxSvgBytes ?? DEFAULT_MAX_SVG_BYTES,
  };
}

function inputOptions(maxInputPixels: number): SharpOptions {
  return { failOn: 'error', limitInputPixels: maxInputPixels, sequentialRead: true, pages: 1, page: 0 };
}

/**
 * The header (no pixel decoded), refused above the pixel limit. sharp's `metadata()` applies
 * `limitInputPixels` itself and would throw an untyped error, so the header is read without it and the
 * limit compared here; the decode that follows keeps sharp's limit as a backstop.
 */
async function headerWithinLimit(
  sharp: SharpFunction,
  input: string | Uint8Array,
  maxInputPixels: number,
): Promise<Metadata> {
  const meta = await sharp(input, { ...inputOptions(maxInputPixels), limitInputPixels: false }).metadata();
  // One frame is decoded (`pages: 1`); `pageHeight` is a frame's height when the file holds several.
  const frameHeight = meta.pages && meta.pages > 1 && meta.pageHeight ? meta.pageHeight : meta.height;
  if (meta.width && frameHeight) {
    assertWithinPixelLimit(meta.width, frameHeight, maxInputPixels, 'the image');
  }
  return meta;
}

/**
 * The one decode: orient (unless the pixels already are: a decoder's output), shrink to ≤100×100 (never
 * enlarge), sRGB, 8-bit RGBA.
 */
async function smallRgba(
  image: Sharp,
  orient = true,
): Promise<{ width: number; height: number; data: Buffer }> {
  const { data, info } = await (orient ? image.autoOrient() : image)
    .resize({
      width: THUMBHASH_MAX_SIDE,
      height: THUMBHASH_MAX_SIDE,
      fit: 'inside',
      withoutEnlargement: true,
    })
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/**
 * Probes an image sharp can decode: displayed width and height (after EXIF orientation; one frame of an
 * animation) and the ThumbHash, from one decode.
 *
 * @param isSvg - rasterise from a buffer (see the module notes); pass `mimeType === 'image/svg+xml'`.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` above `maxInputPixels` or `maxSvgBytes`.
 * @throws {ProbeError} `ERR_PROBE_FAILED` when sharp cannot decode it (the sharp error is the `cause`).
 */
export async function probeImage(
  path: string,
  isSvg: boolean,
  limits: ImageLimits = {},
): Promise<PictureProbe> {
  const resolved = resolveLimits(limits);
  const input = await pipelineInput(path, isSvg, resolved);
  const sharp = await loadSharp();
  try {
    const meta = await headerWithinLimit(sharp, input, resolved.maxInputPixels);
    const small = await smallRgba(sharp(input, inputOptions(resolved.maxInputPixels)));
    const oriented = meta.autoOrient ?? { width: meta.width, height: meta.height };
    const frameHeight =
      meta.pageHeight && meta.pages && meta.pages > 1 && (meta.orientation ?? 1) < 5
        ? meta.pageHeight
        : undefined;
    const width = oriented.width;
    const height = frameHeight ?? oriented.height;
    if (!width || !height) throw new ProbeError('sharp could not decode the image: it reports no size');
    return { width, height, thumbhash: thumbhashFromRgba(small.width, small.height, small.data) };
  } catch (error) {
    if (error instanceof LimitError || error instanceof ProbeError) throw error;
    throw wrap(error, 'the image');
  }
}

/**
 * ThumbHash of an image file or buffer (any format sharp decodes; SVG files are read as buffers).
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` above the pixel limit.
 * @throws {ProbeError} `ERR_PROBE_FAILED` when sharp cannot decode it.
 * @example
 * ```ts
 * const hash = await thumbhashFromImage('photo.jpg'); // e.g. '1QcSHQRnh493V4dIh4eXh1h4kJUI'
 * ```
 */
export async function thumbhashFromImage(
  input: string | Uint8Array,
  limits: ImageLimits = {},
): Promise<string> {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) {
    throw new InvalidArgumentError(
      `expected a path or a Uint8Array for \`input\` but received ${typeof input}`,
    );
  }
  const resolved = resolveLimits(limits);
  // By content, not name: an SVG loaded by path could reach files next to it (see the module notes).
  const isSvg = (await sniffMimeType(input)) === 'image/svg+xml';
  const source = await pipelineInput(input, isSvg, resolved);
  const sharp = await loadSharp();
  try {
    await headerWithinLimit(sharp, source, resolved.maxInputPixels);
    const small = await smallRgba(sharp(source, inputOptions(resolved.maxInputPixels)));
    return thumbhashFromRgba(small.width, small.height, small.data);
  } catch (error) {
    if (error instanceof LimitError) throw error;
    throw wrap(error, 'the image');
  }
}

/**
 * ThumbHash of already-decoded, already-oriented RGBA pixels of any size (used for HEIC, which libheif
 * decodes): shrunk by sharp to ≤100×100 like every other picture.
 *
 * @throws {ProbeError} `ERR_PROBE_FAILED` when the pixels do not match the size.
 */
export async function thumbhashFromPixels(width: number, height: number, rgba: Uint8Array): Promise<string> {
  const sharp = await loadSharp();
  try {
    const small = await smallRgba(
      sharp(rgba, { raw: { width, height, channels: 4 }, limitInputPixels: false }),
    );
    return thumbhashFromRgba(small.width, small.height, small.data);
  } catch (error) {
    throw wrap(error, 'the decoded pixels');
  }
}

/**
 * Displayed size and ThumbHash of a picture another decoder wrote (libheif's `heif-dec`): its pixels are
 * already turned, mirrored and cropped, so an EXIF orientation it may have copied is not applied again.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` above the pixel limit.
 * @throws {ProbeError} `ERR_PROBE_FAILED` when sharp cannot decode it.
 */
export async function probeDecodedPicture(path: string, maxInputPixels: number): Promise<PictureProbe> {
  const sharp = await loadSharp();
  try {
    const meta = await headerWithinLimit(sharp, path, maxInputPixels);
    if (!meta.width || !meta.height)
      throw new ProbeError('sharp could not decode the picture: it reports no size');
    const small = await smallRgba(sharp(path, inputOptions(maxInputPixels)), false);
    return {
      width: meta.width,
      height: meta.height,
      thumbhash: thumbhashFromRgba(small.width, small.height, small.data),
    };
  } catch (error) {
    if (error instanceof LimitError || error instanceof ProbeError) throw error;
    throw wrap(error, 'the decoded picture');
  }
}
