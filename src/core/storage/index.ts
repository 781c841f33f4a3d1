/**
 * Public surface of the universal storage layer: the {@link BlobStore} contract, writing a new blob
 * whichever side issues the ref, and Happy's attachment server as a store (over `fetch` only).
 *
 * @module
 */
export {
  assertWithinStoreLimit,
  type BlobBody,
  type BlobRange,
  type BlobStore,
  createWithPut,
  type GetOptions,
  mediaRefId,
  type WriteOptions,
} from './blob-store.js';
export {
  HappyServerStore,
  type HappyServerStoreOptions,
} from './happy-server-store.js';
