/**
 * Random access over a stored blob: a {@link RangeSource} whose reads are ranged gets, so a player can
 * decrypt the chunks it needs without downloading the rest.
 *
 * @module
 */
import type { RangeSource } from '../../core/blob/index.js';
import { assertNonNegativeInteger } from '../../core/bytes.js';
import { StorageError } from '../../core/errors.js';
import { type BlobStore, mediaRefId } from './blob-store.js';

/**
 * A {@link RangeSource} over `ref` in `store`. The size is asked once (`head`) and remembered; each
 * `read` is one ranged `get`, collected into one array of the exact length (fewer bytes only at the end).
 *
 * @throws {StorageError} `ERR_INVALID_REF` at once for a bad ref; from `size`/`read`, `ERR_NOT_FOUND`
 *   and the store's other errors; `ERR_DOWNLOAD_FAILED` when the store returns the wrong number of bytes.
 * @example
 * ```ts
 * const reader = await openBlobRandomAccess(storeRangeSource(store, message.ref), blobKey);
 * const first = await reader.read(0, 65536);
 * ```
 */
export function storeRangeSource(store: BlobStore, ref: string): RangeSource {
  mediaRefId(ref);
  let size: Promise<number> | undefined;
  const getSize = () => {
    size ??= store.head(ref).then((head) => head.size);
    size.catch(() => {
      size = undefined;
    });
    return size;
  };
  return {
    size: getSize,
    async read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array> {
      assertNonNegativeInteger(offset, 'offset');
      assertNonNegativeInteger(length, 'length');
      const total = await getSize();
      const expected = Math.max(0, Math.min(length, total - offset));
      const out = new Uint8Array(expected);
      if (expected === 0) return out;
      const stream = await store.get(ref, { offset, length: expected }, { signal });
      let at = 0;
      for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
        if (at + chunk.length > expected) {
          throw new StorageError(`the store returned more than the ${expected} bytes asked for`, {
            code: 'ERR_DOWNLOAD_FAILED',
          });
        }
        out.set(chunk, at);
        at += chunk.length;
      }
      if (at !== expected) {
        throw new StorageError(`the store returned ${at} of the ${expected} bytes asked for`, {
          code: 'ERR_DOWNLOAD_FAILED',
        });
      }
      return out;
    },
  };
}
