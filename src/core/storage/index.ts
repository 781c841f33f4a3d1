/**
 * Public surface of the universal storage layer: the {@link BlobStore} contract, writing a new blob
 * whichever side issues the ref, and Happy's attachment server as a store (over `fetch` only).
 *
 * @module
 */
export {
  assertWithinStoreLimit,
  type BlobRange,
  type BlobStore,
  type GetOptions,
  mediaRefId,
  type PutOptions,
  storeNewBlob,
} from './blob-store.js';
export {
  HAPPY_MAX_ATTACHMENT_BYTES,
  HappyServerStore,
  type HappyServerStoreOptions,
} from './happy-server-store.js';
