/**
 * The storage contract every backend implements (see docs/storage.md): put a stream of known length
 * under a ref, get it back whole or by byte range, ask its size, delete it. Stores hold ciphertext only;
 * they never see a key. Universal (Web APIs only): Happy's attachment store implements it over `fetch`.
 *
 * @module
 */
import { assertNonNegativeInteger } from '../bytes.js';
import { InvalidArgumentError, LimitError, StorageError } from '../errors.js';
import { createMediaRef, parseRef } from '../protocol/refs.js';

/** A byte range `[offset, offset + length)` of a stored blob. */
export interface BlobRange {
  /** First byte, 0-based. */
  offset: number;
  /** Number of bytes; the range is cut at the end of the blob. */
  length: number;
}

/** Options of {@link BlobStore.put}. */
export interface PutOptions {
  /** Cancels the upload; nothing is stored. */
  signal?: AbortSignal;
  /** Called as bytes are stored (`done` of `total`); keep it cheap, it runs per chunk. */
  onProgress?: (done: number, total: number) => void;
}

/** Options of {@link BlobStore.get}. */
export interface GetOptions {
  /** Cancels the request (and the returned stream). */
  signal?: AbortSignal;
  /**
   * Called with the size of the whole stored blob when the answer tells it (an HTTP `206`'s
   * `Content-Range` total), before the stream is returned; not called when the store does not learn
   * it for free. Playback uses it to check the stored length without a separate `head` request.
   */
  onSize?: (size: number) => void;
}

/**
 * A place to keep encrypted blobs, addressed by `media/<id>` refs.
 *
 * Contract (the same tests run against every implementation):
 * - `put` stores exactly `size` bytes; a body that is shorter or longer fails with `ERR_UPLOAD_FAILED`
 *   and stores nothing. The blob becomes visible only when complete; an aborted put leaves nothing.
 *   Putting an existing ref replaces it as a whole.
 * - `get` streams the blob or a range of it (cut at the end of the blob). A range starting past the end
 *   is `ERR_INVALID_ARGUMENT`; a missing ref is `ERR_NOT_FOUND`.
 * - `head` gives the size; a missing ref is `ERR_NOT_FOUND`. `delete` of a missing ref is not an error.
 * - A ref that is not `media/<id>` is `ERR_INVALID_REF`, before any I/O.
 * - A store whose server issues the refs (Happy's attachment server) implements `create`; its `put`
 *   may refuse client-chosen refs. Write new blobs through {@link storeNewBlob}, which uses either.
 */
export interface BlobStore {
  /**
   * Largest blob (ciphertext bytes) the store accepts, when it has a fixed limit. Callers check it
   * before encrypting or uploading anything ({@link storeNewBlob} does).
   */
  readonly maxBlobBytes?: number;
  /**
   * Stores exactly `size` bytes under a ref the store issues, and returns that ref once the store has
   * confirmed the blob. Present on stores whose server chooses refs; the same rules as `put` apply.
   */
  create?(body: ReadableStream<Uint8Array>, size: number, options?: PutOptions): Promise<{ ref: string }>;
  /** Stores exactly `size` bytes under `ref`; the blob appears only when complete (temp + rename or equivalent). */
  put(ref: string, body: ReadableStream<Uint8Array>, size: number, options?: PutOptions): Promise<void>;
  /** Streams the blob, whole or the byte range [offset, offset + length). Throws ERR_NOT_FOUND when absent. */
  get(ref: string, range?: BlobRange, options?: GetOptions): Promise<ReadableStream<Uint8Array>>;
  /** Size of the stored blob. Throws ERR_NOT_FOUND when absent. */
  head(ref: string): Promise<{ size: number }>;
  /** Deletes the blob; deleting a missing ref is not an error. */
  delete(ref: string): Promise<void>;
}

/**
 * Checks that `ref` is a `media/<id>` ref and returns its id, the only part a store turns into a key or
 * a path. `machine-file://` refs name files on an agent's machine and are never stored.
 *
 * @throws {StorageError} `ERR_INVALID_REF` for anything else.
 * @example
 * ```ts
 * mediaRefId('media/tz4a98xxat96iws9zmbrgj3a'); // 'tz4a98xxat96iws9zmbrgj3a'
 * mediaRefId('media/../etc/passwd');            // throws ERR_INVALID_REF
 * ```
 */
export function mediaRefId(ref: string): string {
  const parsed = parseRef(ref);
  if (parsed.scheme !== 'media') {
    throw new StorageError('invalid ref: a store holds "media/<id>" refs only, not machine-file refs', {
      code: 'ERR_INVALID_REF',
    });
  }
  return parsed.id;
}

/**
 * Checks a range argument and, given the blob's size, returns the range cut at the end of the blob.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for non-integer values or an offset past the end.
 */
export function clipRange(range: BlobRange, size: number): BlobRange {
  assertNonNegativeInteger(range?.offset, 'range.offset');
  assertNonNegativeInteger(range.length, 'range.length');
  if (range.offset > size) {
    throw new InvalidArgumentError(
      `expected a range starting at most at the blob's end (${size}) for \`range.offset\` but received ${range.offset}`,
    );
  }
  return { offset: range.offset, length: Math.min(range.length, size - range.offset) };
}

/** Checks the shape of a range argument without knowing the blob's size. */
export function checkRange(range: BlobRange | undefined): void {
  if (range === undefined) return;
  if (typeof range !== 'object' || range === null) {
    throw new InvalidArgumentError('expected `{ offset, length }` for `range` but received a non-object');
  }
  assertNonNegativeInteger(range.offset, 'range.offset');
  assertNonNegativeInteger(range.length, 'range.length');
}

/** A stream with no bytes (what a zero-length range reads). */
export function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
}

/**
 * Checks `size` against the store's {@link BlobStore.maxBlobBytes} before anything is read or uploaded.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` naming the limit; `what` names the store in the message.
 */
export function assertWithinStoreLimit(store: BlobStore, size: number, what = 'this store'): void {
  const limit = store.maxBlobBytes;
  if (limit !== undefined && size > limit) {
    throw new LimitError(
      `the encrypted blob is ${size} bytes, more than the ${limit}-byte limit of ${what}; nothing was uploaded. ` +
        'Send larger media through an S3 store (--store s3://bucket/prefix) or a media server (happy-media serve, --store http://host:port)',
    );
  }
}

/**
 * Stores a new blob and returns its ref: through `store.create` when the store issues refs, else under a
 * fresh `media/<id>` with `store.put`. The ref is returned only after the store confirmed the blob
 * (upload-first); on failure nothing is returned and, for `put`, the partial blob is deleted.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` before any upload when `size` is over the store's limit.
 * @throws the store's errors (`ERR_UPLOAD_FAILED`, `ERR_ABORTED`, ...).
 * @example
 * ```ts
 * const { ref } = await storeNewBlob(store, encrypted, ciphertextSize(n), { onProgress });
 * ```
 */
export async function storeNewBlob(
  store: BlobStore,
  body: ReadableStream<Uint8Array>,
  size: number,
  options: PutOptions = {},
): Promise<{ ref: string }> {
  assertNonNegativeInteger(size, 'size');
  assertWithinStoreLimit(store, size);
  if (typeof store.create === 'function') return store.create(body, size, options);
  const ref = createMediaRef();
  try {
    await store.put(ref, body, size, options);
  } catch (error) {
    // No half blob stays behind under this ref (a retry uses a new one).
    await store.delete(ref).catch(() => {});
    throw error;
  }
  return { ref };
}
