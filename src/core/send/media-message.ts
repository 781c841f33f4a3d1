/**
 * The one way a media message is built from what is known about a file: Node's probe (`sendMedia`) and an
 * app's picker (`sendPickedMedia`) both describe the file as a {@link MediaDetails} and get their
 * `photo`, `video` or `file` message here, once the store confirmed the blob under `ref`.
 *
 * @module
 */
import { InvalidArgumentError } from '../errors.js';
import {
  type BuildOptions,
  fileMessage,
  type MediaMessage,
  photoMessage,
  videoMessage,
} from '../protocol/index.js';
import type { MediaAuthor } from './send-options.js';

/** What a file becomes in a Happy message. */
export type MediaKind = 'photo' | 'video' | 'file';

/**
 * What is known about a file to send: its kind and what that kind's message carries. A `photo` has
 * `width`, `height` and `thumbhash`; a `video` also `durationMs`; a `file` needs none of them. Width and
 * height are the *displayed* size (after EXIF orientation or a video's rotation).
 */
export interface MediaDetails {
  /** `photo`, `video` or `file`. */
  kind: MediaKind;
  /** MIME type, lower case, no parameters, e.g. `image/jpeg`, `video/mp4`. */
  mimeType: string;
  /** Size of the plaintext in bytes. */
  size: number;
  /** Display file name (a plain name, no path). */
  name: string;
  /** Displayed width in pixels (photo, video). */
  width?: number;
  /** Displayed height in pixels (photo, video). */
  height?: number;
  /** Duration in whole milliseconds (video). */
  durationMs?: number;
  /** ThumbHash of the picture or poster frame, standard padded base64 (photo, video). */
  thumbhash?: string;
}

/**
 * The validated v2 message for a blob stored under `ref`: a `photo` (ref, thumbhash, dimensions), a
 * `video` (also duration, MIME type and size) or a `file` (name, size, MIME type), by `details.kind`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when a photo or video lacks a field its message
 *   needs (width, height, thumbhash; a video's duration).
 * @throws {SchemaError} `ERR_SCHEMA` when a field is not valid for the message (e.g. a thumbhash that is
 *   not base64, a bad turn id).
 * @example
 * ```ts
 * const message = mediaMessage(
 *   { kind: 'photo', mimeType: 'image/jpeg', size: 81234, name: 'IMG_1.jpg', width: 1200, height: 900, thumbhash },
 *   ref,
 *   { role: 'user' },
 * );
 * ```
 */
export function mediaMessage(
  details: MediaDetails,
  ref: string,
  author: MediaAuthor,
  build: BuildOptions = {},
): MediaMessage {
  const { kind } = details;
  if (kind === 'photo' || kind === 'video') {
    const { width, height, thumbhash } = details;
    const missing = [
      width === undefined ? 'width' : '',
      height === undefined ? 'height' : '',
      thumbhash === undefined ? 'thumbhash' : '',
      kind === 'video' && details.durationMs === undefined ? 'durationMs' : '',
    ].filter(Boolean);
    if (missing.length > 0) {
      throw new InvalidArgumentError(
        `expected ${missing.join(', ')} for a ${kind} message but received none: send it as a file, or give them`,
      );
    }
    const picture = {
      ref,
      thumbhash: thumbhash as string,
      width: width as number,
      height: height as number,
    };
    if (kind === 'photo') return photoMessage({ ...author, ...picture }, build);
    return videoMessage(
      {
        ...author,
        ...picture,
        durationMs: details.durationMs as number,
        mimeType: details.mimeType,
        size: details.size,
      },
      build,
    );
  }
  return fileMessage(
    { ...author, ref, name: details.name, size: details.size, mimeType: details.mimeType },
    build,
  );
}
