/**
 * Reads from a store with the download leg's error handling: bounded retries for transient failures,
 * at once for the ones that cannot heal, and one error family (`StorageError`) for the caller.
 *
 * @module
 */
import type { RangeSource } from '../../core/blob/index.js';
import { AbortedError, HappyMediaError, StorageError } from '../../core/errors.js';
import { DEFAULT_RETRIES, type ReadableBlobStore, resumableDownload } from './resumable-download.js';

/** Options shared by the reads below. */
export interface StoreReadOptions {
  /** Consecutive failed attempts tolerated (default 5). */
  retries?: number;
  /** Cancels with `ERR_ABORTED`. */
  signal?: AbortSignal;
  /** First back-off delay in ms (default 100). */
  retryDelayMs?: number;
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
  const retries = options.retries ?? DEFAULT_RETRIES;
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted) throw new AbortedError('the download was aborted');
    try {
      const { size } = await store.head(ref);
      if (!Number.isSafeInteger(size) || size < 0) {
        throw new StorageError(`the store reported an impossible size for ${ref}`, {
          code: 'ERR_DOWNLOAD_FAILED',
        });
      }
      return size;
    } catch (error) {
      const wrapped = downloadError(ref, error, options.signal);
      const final = wrapped.code !== 'ERR_DOWNLOAD_FAILED' && wrapped.code !== 'ERR_STORAGE';
      if (final || attempt >= retries) throw wrapped;
      await new Promise((r) => setTimeout(r, Math.min(2000, (options.retryDelayMs ?? 100) * 2 ** attempt)));
    }
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
  if (length === 0) return out;
  const shifted: ReadableBlobStore = {
    head: async () => ({ size: length }),
    get: (r, range, o) =>
      store.get(r, { offset: offset + (range?.offset ?? 0), length: range?.length ?? length }, o),
  };
  let at = 0;
  const reader = resumableDownload({ ...options, store: shifted, ref, size: length }).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      out.set(value, at);
      at += value.length;
    }
  } catch (error) {
    throw downloadError(ref, error, options.signal);
  }
  return out;
}

/**
 * A {@link RangeSource} over a stored blob whose reads retry dropped connections (random access for
 * streaming playback). The size is read once.
 */
export function retryingRangeSource(
  store: ReadableBlobStore,
  ref: string,
  options: Omit<StoreReadOptions, 'signal'> = {},
): RangeSource {
  let size: Promise<number> | undefined;
  const sizeOnce = () => {
    size ??= headWithRetries(store, ref, options);
    return size;
  };
  return {
    size: sizeOnce,
    read: async (offset, length, signal) => {
      const total = await sizeOnce();
      const end = Math.min(total, offset + length);
      return readStoreRange(store, ref, offset, Math.max(0, end - offset), { ...options, signal });
    },
  };
}
