/**
 * Public surface of universal media helpers: the ThumbHash of RGBA pixels, and of a JPEG or PNG decoded
 * in pure JavaScript (React Native, browsers). Probing with sharp and ffmpeg is `happy-media/node`.
 *
 * @module
 */

export { THUMBHASH_MAX_SIDE, thumbhashFromRgba, thumbhashInputSize } from './thumbhash.js';
export {
  THUMBHASH_IMAGE_MAX_PIXELS,
  type ThumbhashImageOptions,
  thumbhashFromImage,
} from './thumbhash-image.js';
