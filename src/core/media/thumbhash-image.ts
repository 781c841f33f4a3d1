/**
 * ThumbHash of a JPEG or PNG without sharp: what an app on React Native (Hermes, no WebAssembly) or in a
 * browser computes for the small picture its image manipulator saved (`expo-image-manipulator`: resize
 * to at most 100 px, save as JPEG or PNG). The steps are the Node path's (src/node/media/image.ts): EXIF
 * orientation applied, shrunk to fit 100×100 (never enlarged), 8-bit RGBA, the reference encoder; for
 * the same pixels the hash is the same, within the ThumbHash's own rounding where the decoders' IDCT and
 * chroma upsampling differ from libjpeg-turbo's by a few levels.
 *
 * Larger pictures work too (area-averaged down in JavaScript) up to 1024 × 1024 pixels,
 * but decoding megapixels in JavaScript is slow on a phone: shrink with the manipulator first. Embedded
 * ICC profiles are not applied (sharp converts them to sRGB): a Display P3 picture's placeholder comes
 * out slightly less saturated than the Node path's.
 *
 * @module
 */
import { assertBytes, assertNonNegativeInteger } from '../bytes.js';
import { LimitError, ProbeError } from '../errors.js';
import { downscale } from './downscale.js';
import { IMAGE_TYPE_HEAD_BYTES, imageMimeType } from './image-type.js';
import { decodeJpeg, isJpeg, readJpegHeader } from './jpeg.js';
import { orient } from './orientation.js';
import { decodePng, isPng, readPngHeader } from './png.js';
import { thumbhashFromRgba, thumbhashInputSize } from './thumbhash.js';

/**
 * Default limit of {@link thumbhashFromImage}: 1024 × 1024 pixels. JavaScript decoding costs about a
 * second per megapixel under Hermes (docs/media.md), time the UI thread is blocked: shrink larger
 * pictures natively first (the image manipulator), or raise the limit knowingly.
 */
export const THUMBHASH_IMAGE_MAX_PIXELS = 1024 * 1024;

/** Options of {@link thumbhashFromImage}. */
export interface ThumbhashImageOptions {
  /** Largest picture decoded, in pixels (stored width × height). Default 1024 × 1024. */
  maxInputPixels?: number;
}

/** Names what the bytes look like, for the error of a format we do not decode. */
function describeFormat(bytes: Uint8Array): string {
  const type = imageMimeType(bytes.subarray(0, IMAGE_TYPE_HEAD_BYTES));
  const names: Record<string, string> = {
    'image/heic': 'HEIC/HEIF',
    'image/heif': 'HEIC/HEIF',
    'image/avif': 'AVIF',
    'image/webp': 'WebP',
    'image/gif': 'GIF',
    'image/bmp': 'BMP',
    'image/tiff': 'TIFF',
  };
  return (type && names[type]) ?? 'neither JPEG nor PNG';
}

/**
 * The ThumbHash of a JPEG or PNG, in standard padded base64 (what `photo`/`video` messages carry).
 * Universal: pure JavaScript, no `node:`, no WebAssembly. `happy-media/node` exports a
 * `thumbhashFromImage` of the same name and result that decodes every format sharp reads.
 *
 * @param image - the file's bytes: a JPEG (baseline or progressive; EXIF orientation applied) or a PNG
 *   (any colour type and depth, interlaced or not; an APNG's default image). Meant for ≤ 100 px pictures;
 *   larger ones are shrunk here, up to `maxInputPixels`.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `image` is not a `Uint8Array` or the
 *   option is not a non-negative integer.
 * @throws {ProbeError} `ERR_PROBE_FAILED` for another format (HEIC, WebP, GIF, ...: save it as JPEG or PNG
 *   with the image manipulator) or data that cannot be decoded.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the header states more than `maxInputPixels` pixels.
 * @example
 * ```ts
 * import { ImageManipulator, SaveFormat } from 'expo-image-manipulator';
 * import { File } from 'expo-file-system';
 * const image = await ImageManipulator.manipulate(asset.uri).resize({ width: 100 }).renderAsync();
 * const small = await image.saveAsync({ format: SaveFormat.PNG });
 * const thumbhash = await thumbhashFromImage(await new File(small.uri).bytes());
 * ```
 */
export async function thumbhashFromImage(
  image: Uint8Array,
  options: ThumbhashImageOptions = {},
): Promise<string> {
  assertBytes(image, 'image');
  const maxInputPixels = assertNonNegativeInteger(
    options.maxInputPixels ?? THUMBHASH_IMAGE_MAX_PIXELS,
    'maxInputPixels',
  );
  const jpeg = isJpeg(image);
  if (!jpeg && !isPng(image)) {
    throw new ProbeError(
      `expected a JPEG or PNG image for \`image\` but received ${describeFormat(image)} (${image.length} bytes); save it as JPEG or PNG (expo-image-manipulator's SaveFormat) first`,
    );
  }
  const header = jpeg ? readJpegHeader(image) : readPngHeader(image);
  if (header.width * header.height > maxInputPixels) {
    throw new LimitError(
      `expected at most ${maxInputPixels} pixels (maxInputPixels) but the image has ${header.width}×${header.height}; shrink it to at most 100 px with the image manipulator first, or raise maxInputPixels`,
    );
  }
  const decoded = jpeg ? decodeJpeg(image, maxInputPixels) : decodePng(image);
  if (decoded.width !== header.width || decoded.height !== header.height) {
    throw new ProbeError('the image decoded to another size than its header states');
  }
  const seen = orient(decoded.width, decoded.height, decoded.rgba, header.orientation);
  const small = thumbhashInputSize(seen.width, seen.height);
  const pixels = downscale(seen.width, seen.height, seen.rgba, small.width, small.height);
  return thumbhashFromRgba(small.width, small.height, pixels);
}
