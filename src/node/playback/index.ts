/**
 * Public surface of the Node playback layer: verified temp files, the plaintext cache, and streaming
 * playback over a loopback endpoint. See docs/playback.md for what is verified when and what stays on disk.
 *
 * @module
 */
// Node's runtime: playback should never fall back to a slower AES-GCM in Node.
import '../runtime/index.js';

export type { MediaInput, MediaRefInput } from '../../core/playback/media-request.js';
export type { ReadableBlobStore } from '../../core/playback/resumable-download.js';
export { type SweepLeftoversOptions, sweepLeftovers } from './leftovers.js';
export {
  type CacheLease,
  defaultCacheDir,
  MediaCache,
  type MediaCacheOptions,
  type ProducedFile,
  type Producer,
} from './media-cache.js';
export { type OpenedMedia, type OpenMediaOptions, openMedia } from './open-media.js';
export { type PrivateFileSinkOptions, privateFileSink, type UnhashedFile } from './private-file-sink.js';
export { type MediaEndpoint, type ServeMediaOptions, serveMedia } from './serve-media.js';
