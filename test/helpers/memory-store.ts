/**
 * A BlobStore in memory for tests that run anywhere (Node and the Hermes bundle).
 */
import { joinBytes } from '../../src/core/bytes.js';
import { assertWithinStoreLimit, type BlobStore, createWithPut } from '../../src/core/storage/index.js';
import { readSizedBody } from '../../src/core/storage/sized-body.js';

/**
 * A store in memory that writes each piece as it arrives (a failed upload leaves a partial blob until
 * `createWithPut` deletes it); every create is recorded.
 */
export function memoryStore(maxBlobBytes?: number) {
  const blobs = new Map<string, Uint8Array>();
  const created: number[] = [];
  const deleted: string[] = [];
  const store: BlobStore & {
    blobs: Map<string, Uint8Array>;
    created: number[];
    deleted: string[];
  } = {
    blobs,
    created,
    deleted,
    ...(maxBlobBytes === undefined ? {} : { maxBlobBytes }),
    async create(size, body, options) {
      created.push(size);
      assertWithinStoreLimit(store, size);
      return createWithPut(store as Required<BlobStore>, size, body, options);
    },
    async put(ref, body, size, options) {
      const parts: Uint8Array[] = [];
      for await (const part of readSizedBody(body, size, options)) {
        parts.push(part.slice());
        blobs.set(ref, joinBytes(parts));
      }
    },
    async delete(ref) {
      deleted.push(ref);
      blobs.delete(ref);
    },
    async get(ref, range) {
      const blob = blobs.get(ref) as Uint8Array;
      const bytes = range ? blob.subarray(range.offset, range.offset + range.length) : blob;
      return new ReadableStream({
        start(c) {
          c.enqueue(bytes.slice());
          c.close();
        },
      });
    },
    async head(ref) {
      return { size: blobs.get(ref)?.length ?? 0 };
    },
  };
  return store;
}
