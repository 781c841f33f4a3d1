/**
 * happy-media/storage: the `BlobStore` contract and the helpers a store of one's own is written with (the
 * stores themselves: `HappyServerStore` in the root entry; local, HTTP and S3 stores in happy-media/node)
 * (docs/storage.md), and what a bearer token for a store or server may be.
 *
 * Every export is listed by name; test/node/public-exports.test.ts pins the list.
 *
 * @packageDocumentation
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
} from './core/storage/index.js';
export { checkBearerToken } from './core/transport/bearer-token.js';
