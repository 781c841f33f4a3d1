/**
 * ThumbHash encoding: the `thumbhash` package's reference encoder, fed RGBA of at most 100×100.
 *
 * @module
 */
import { rgbaToThumbHash } from 'thumbhash';
import { assertBytes, assertNonNegativeInteger, toBase64 } from '../bytes.js';
import { InvalidArgumentError } from '../errors.js';

/** The encoder's input limit: both sides at most 100 pixels. */
export const THUMBHASH_MAX_SIDE = 100;

/**
 * The size an image of `width`×`height` is shrunk to for its ThumbHash: fit inside 100×100, aspect kept,
 * never enlarged, at least 1 pixel per side.
 *
 * @example
 * ```ts
 * thumbhashInputSize(4000, 3000); // { width: 100, height: 75 }
 * thumbhashInputSize(1, 1); // { width: 1, height: 1 }
 * ```
 */
export function thumbhashInputSize(width: number, height: number): { width: number; height: number } {
  assertNonNegativeInteger(width, 'width');
  assertNonNegativeInteger(height, 'height');
  const scale = Math.min(1, THUMBHASH_MAX_SIDE / Math.max(width, height, 1));
  return {
    width: Math.max(1, Math.min(THUMBHASH_MAX_SIDE, Math.round(width * scale))),
    height: Math.max(1, Math.min(THUMBHASH_MAX_SIDE, Math.round(height * scale))),
  };
}

/**
 * Encodes RGBA pixels (8 bits per channel, not premultiplied) as a ThumbHash, in standard padded base64.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when a side is 0 or above 100, or `rgba` is not
 *   exactly `width × height × 4` bytes.
 * @example
 * ```ts
 * thumbhashFromRgba(1, 1, new Uint8Array([255, 0, 0, 255])); // '1fsrB38I9wiIh4hwj3CI+AiIgIAICIgA'
 * ```
 */
export function thumbhashFromRgba(width: number, height: number, rgba: Uint8Array): string {
  assertNonNegativeInteger(width, 'width', THUMBHASH_MAX_SIDE);
  assertNonNegativeInteger(height, 'height', THUMBHASH_MAX_SIDE);
  if (width === 0 || height === 0) {
    throw new InvalidArgumentError(`expected a non-empty image for \`rgba\` but received ${width}×${height}`);
  }
  assertBytes(rgba, 'rgba', width * height * 4);
  return toBase64(rgbaToThumbHash(width, height, rgba));
}
