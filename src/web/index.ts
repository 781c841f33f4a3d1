/**
 * happy-media/web: browser-only helpers on top of the universal entry. Seekable streaming through a
 * Service Worker (`installMediaServiceWorker` in the worker, `registerMediaServiceWorker` +
 * `openStreamingMedia` in the page) and a `Blob` sink for `downloadMedia`. No `node:` imports.
 *
 * @packageDocumentation
 */
export { blobSink } from './blob-sink.js';
export {
  installMediaServiceWorker,
  type MediaServiceWorkerOptions,
  type ServiceWorkerScopeLike,
  type StreamingReply,
} from './service-worker.js';
export {
  openStreamingMedia,
  registerMediaServiceWorker,
  type StreamingMedia,
  type StreamingMediaOptions,
} from './streaming-client.js';
