/**
 * The shapes probing produces and accepts.
 *
 * @module
 */

import type { MediaDetails } from '../../core/send/media-message.js';

export type { MediaKind } from '../../core/send/media-message.js';

/**
 * The result of {@link probeMedia}: what fills a `photo`, `video` or `file` message before upload (the
 * {@link MediaDetails} every send path builds its message from).
 *
 * Invariants (tests pin them): a `photo` has `width`, `height` and `thumbhash`; a `video` has `width`,
 * `height`, `durationMs` and `thumbhash`; a `file` may carry `durationMs` (audio, where cheap). Width and
 * height are the *displayed* size: after EXIF orientation for images, after the rotation matrix for
 * videos. `mimeType` is by content (normalised, no parameters), `name` sanitised by
 * {@link sanitizeFileName}. `warning` says why something that looked like an image or video was sent as a
 * plain file.
 */
export interface MediaProbe extends MediaDetails {
  /** Why the result is less than the content claimed (e.g. an undecodable image sent as `file`). */
  warning?: string;
}

/** A stream to probe. ffprobe and sharp need seekable input, so the stream is spooled to a private temp file. */
export interface ProbeStreamInput {
  /** The bytes, as a Web or Node readable stream. */
  stream: ReadableStream<Uint8Array> | NodeJS.ReadableStream;
  /** The file name to report (sanitised before use). */
  name: string;
  /** Expected size in bytes; when given, a stream of any other length is rejected. */
  size?: number;
}
