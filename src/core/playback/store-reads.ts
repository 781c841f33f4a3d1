/**
 * Reads from a store with the download leg's error handling: the one retry policy (transport/retry.ts)
 * for transient failures, at once for the ones that cannot heal, and one error family (`StorageError`)
 * for the caller.
 *
 * @module
 */
import type { RangeSource } from '../blob/random-access.js';
import { assertNonNegativeInteger } from '../bytes.js';
import { AbortedError, HappyMediaError, StorageError } from '../errors.js';
import { type RetryPolicy, retryPolicy, withRetries } from '../transport/retry.js';
import { type ReadableBlobStore, resumableDownload } from './resumable-download.js';

/** Options shared by the reads below: the retry policy (default 5 retries) and a signal. */
export interface StoreReadOptions extends RetryPolicy {
  /** Cancels with `ERR_ABORTED`. */
  signal?: AbortSignal;
  /** No progress for this long counts as a dropped connection (see {@link resumableDownload}). */
  idleTimeoutMs?: number;
  /** Every range read must end within this many ms (see {@link resumableDownload}). */
  deadlineMs?: number;
}

/** Turns anything a store threw into the download leg's error. */
export function downloadError(ref: string, error: unknown, signal?: AbortSignal): HappyMediaError {
  if (signal?.aborted) return new AbortedError('the download was aborted', { cause: signal.reason });
  if (error instanceof HappyMediaError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new StorageError(`downloading ${ref} failed: ${reason}`, {
    code: 'ERR_DOWNLOAD_FAILED',
    cause: error,
  });
}

/**
 * The blob's ciphertext size, retrying transient failures.
 *
 * @throws {StorageError} `ERR_NOT_FOUND` when absent, `ERR_DOWNLOAD_FAILED` when the retries are spent.
 */
export async function headWithRetries(
  store: ReadableBlobStore,
  ref: string,
  options: StoreReadOptions = {},
): Promise<number> {
  const { signal } = options;
  try {
    return await withRetries(async () => {
      if (signal?.aborted) throw new AbortedError('the download was aborted', { cause: signal.reason });
      const { size } = await store.head(ref);
      if (!Number.isSafeInteger(size) || size < 0) {
        throw new StorageError(`the store reported an impossible size for ${ref}`, {
          code: 'ERR_DOWNLOAD_FAILED',
        });
      }
      return size;
    }, options);
  } catch (error) {
    throw downloadError(ref, error, signal);
  }
}

/**
 * Streams `[offset, offset + length)` of a stored blob as the pieces arrive, resuming dropped connections
 * inside the range. Ending the loop early cancels the download.
 *
 * @throws {StorageError} as {@link resumableDownload}.
 */
export async function* streamStoreRange(
  store: ReadableBlobStore,
  ref: string,
  offset: number,
  length: number,
  options: StoreReadOptions = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  if (length === 0) return;
  const shifted: ReadableBlobStore = {
    head: async () => ({ size: length }),
    get: (r, range, o) =>
      store.get(r, { offset: offset + (range?.offset ?? 0), length: range?.length ?? length }, o),
  };
  const reader = resumableDownload({ ...options, store: shifted, ref, size: length }).getReader();
  let done = false;
  try {
    for (;;) {
      let step: ReadableStreamReadResult<Uint8Array>;
      try {
        step = await reader.read();
      } catch (error) {
        done = true;
        throw downloadError(ref, error, options.signal);
      }
      if (step.done) {
        done = true;
        return;
      }
      yield step.value;
    }
  } finally {
    // Left early (a player seeked away): stop the download rather than let it run to the end.
    if (!done) reader.cancel().catch(() => undefined);
  }
}

/**
 * Reads exactly `[offset, offset + length)` of a stored blob into memory, resuming dropped connections.
 *
 * @throws {StorageError} as {@link resumableDownload}.
 */
export async function readStoreRange(
  store: ReadableBlobStore,
  ref: string,
  offset: number,
  length: number,
  options: StoreReadOptions = {},
): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  let at = 0;
  for await (const piece of streamStoreRange(store, ref, offset, length, options)) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** Options of {@link storeRangeSource}: the retry policy and deadlines (each read takes its own signal). */
export type StoreRangeSourceOptions = Omit<StoreReadOptions, 'signal'>;

/**
 * A {@link RangeSource} over `ref` in `store`, for random access (a player decrypts the chunks it needs
 * without downloading the rest). The size is asked once (`head`) and remembered (asked again after a
 * failure), or taken from `storedSize` when the caller knows it; each `read` is ranged gets collected
 * into one array of the exact length (fewer bytes only at the end of the blob), and `stream` yields the
 * same bytes as they arrive. Dropped connections resume
 * inside the range, up to `retries` consecutive failures (default 5; pass `retries: 0` to fail on the
 * first).
 *
 * @throws {StorageError} from `size`/`read`: `ERR_NOT_FOUND`, `ERR_INVALID_REF` at once,
 *   `ERR_DOWNLOAD_FAILED` when the retries are spent or the store sends more than asked for.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` at once for retry options out of range, and
 *   from `read` for a negative or fractional range.
 * @example
 * ```ts
 * const reader = await openBlobRandomAccess(storeRangeSource(store, message.ref), blobKey, {
 *   context: mediaBlobContext(message.ref),
 * });
 * const first = await reader.read(0, 65536);
 * ```
 */
export function storeRangeSource(
  store: ReadableBlobStore,
  ref: string,
  options: StoreRangeSourceOptions & { storedSize?: number } = {},
): RangeSource {
  const { storedSize, ...rest } = options;
  const reads = { ...rest, ...retryPolicy(rest) };
  // A stored size the caller already knows (from the message that names the blob) spares the `head`.
  let size: Promise<number> | undefined =
    storedSize === undefined
      ? undefined
      : Promise.resolve(assertNonNegativeInteger(storedSize, 'storedSize'));
  const sizeOnce = () => {
    if (size === undefined) {
      const asked = headWithRetries(store, ref, reads);
      size = asked;
      asked.catch(() => {
        if (size === asked) size = undefined;
      });
    }
    return size;
  };
  /** The length of `[offset, offset + length)` that lies inside the blob (checked arguments). */
  const lengthInside = async (offset: number, length: number) => {
    assertNonNegativeInteger(offset, 'offset');
    assertNonNegativeInteger(length, 'length');
    return Math.max(0, Math.min(await sizeOnce(), offset + length) - offset);
  };
  return {
    size: sizeOnce,
    read: async (offset, length, signal) =>
      readStoreRange(store, ref, offset, await lengthInside(offset, length), { ...reads, signal }),
    async *stream(offset, length, signal) {
      const inside = await lengthInside(offset, length);
      yield* streamStoreRange(store, ref, offset, inside, { ...reads, signal });
    },
  };
}
