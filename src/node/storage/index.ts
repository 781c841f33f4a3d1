/**
 * Public surface of the Node storage layer: the {@link BlobStore} contract and its three stores (local
 * directory, HTTP media server client, S3), the media server itself, and random access over a store.
 *
 * @module
 */

export {
  HappyServerStore,
  type HappyServerStoreOptions,
} from '../../core/happy/attachment-store.js';
export { storeRangeSource } from '../../core/playback/store-reads.js';
export {
  assertWithinStoreLimit,
  type BlobBody,
  type BlobRange,
  type BlobStore,
  createWithPut,
  type GetOptions,
  mediaRefId,
  type WriteOptions,
} from '../../core/storage/blob-store.js';
export { checkListenHost } from '../http/listen-host.js';
export { HttpBlobStore, type HttpBlobStoreOptions } from './http-store.js';
export { defaultBlobDir, LocalBlobStore, type LocalBlobStoreOptions } from './local-store.js';
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_UPLOAD_BYTES,
  type MediaServer,
  type MediaServerOptions,
  startMediaServer,
} from './media-server.js';
export { type OpenStoreOptions, openStore } from './open-store.js';
export {
  DEFAULT_S3_PART_BYTES,
  S3BlobStore,
  type S3BlobStoreOptions,
} from './s3-store.js';
