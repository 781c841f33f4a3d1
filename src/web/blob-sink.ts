/**
 * A {@link MediaSink} for browsers: verified plaintext becomes a `Blob` (which the browser may keep on
 * disk rather than in the JS heap), ready for `URL.createObjectURL`.
 *
 * @module
 */
import type { MediaSink } from '../core/playback/media-sink.js';

/**
 * Collects verified parts and, on commit, returns one `Blob` of type `mimeType` (default: the message's).
 *
 * @example
 * ```ts
 * const blob = await downloadMedia(message, { source: url, blobKey, sink: blobSink() });
 * img.src = URL.createObjectURL(blob);
 * ```
 */
export function blobSink(mimeType?: string): MediaSink<Blob> {
  let parts: Uint8Array[] = [];
  return {
    write(verifiedBytes) {
      parts.push(verifiedBytes);
    },
    commit(info) {
      const blob = new Blob(parts as BlobPart[], { type: mimeType ?? info.mimeType ?? '' });
      parts = [];
      return blob;
    },
    abort() {
      parts = [];
    },
  };
}
