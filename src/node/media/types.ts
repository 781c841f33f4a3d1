/**
 * The shapes probing produces and accepts.
 *
 * @module
 */

/** What a probed file becomes in a Happy message. */
export type MediaKind = 'photo' | 'video' | 'file';

/**
 * The result of {@link probeMedia}: what fills a `photo`, `video` or `file` message before upload.
 *
 * Invariants (tests pin them): a `photo` has `width`, `height` and `thumbhash`; a `video` has `width`,
 * `height`, `durationMs` and `thumbhash`; a `file` may carry `durationMs` (audio, where cheap). Width and
 * height are the *displayed* size: after EXIF orientation for images, after the rotation matrix for
 * videos. `warning` says why something that looked like an image or video was sent as a plain file.
 */
export interface MediaProbe {
  /** `photo`, `video` or `file`. */
  kind: MediaKind;
  /** MIME type by content (normalised, no parameters), e.g. `image/jpeg`, `video/matroska`. */
  mimeType: string;
  /** Size in bytes. */
  size: number;
  /** File name, sanitised by {@link sanitizeFileName}: no path, no control or bidi characters. */
  name: string;
  /** Displayed width in pixels (photo, video). */
  width?: number;
  /** Displayed height in pixels (photo, video). */
  height?: number;
  /** Duration in whole milliseconds (video; audio files where cheap). */
  durationMs?: number;
  /** ThumbHash of the picture (photo) or poster frame (video), standard padded base64. */
  thumbhash?: string;
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
