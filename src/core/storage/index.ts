/**
 * Public surface of the universal storage layer: the {@link BlobStore} contract and writing a new blob
 * whichever side issues the ref. Happy's attachment server as a store is Happy's (src/core/happy/).
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
