/**
 * The storage contract every backend implements (see docs/storage.md): create a blob of known length
 * under a ref the store issues, get it back whole or by byte range, ask its size; put under a chosen ref
 * and delete where the store can. Stores hold ciphertext only; they never see a key. Universal (Web APIs
 * only): Happy's attachment store implements it over `fetch`.
 *
 * @module
 */
import { assertNonNegativeInteger, describeValue } from '../bytes.js';
import { AbortedError, HappyMediaError, InvalidArgumentError, LimitError, StorageError } from '../errors.js';
import { createMediaRef, parseRef } from '../protocol/refs.js';

/** A byte range `[offset, offset + length)` of a stored blob. */
export interface BlobRange {
  /** First byte, 0-based. */
  offset: number;
  /** Number of bytes; the range is cut at the end of the blob. */
  length: number;
}

/** Options of {@link BlobStore.create} and {@link BlobStore.put}. */
export interface WriteOptions {
  /** Cancels the upload; nothing is stored. */
  signal?: AbortSignal;
  /** Called as bytes are stored (`done` of `total`); keep it cheap, it runs per chunk. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Called when the store waits before a request because its server limits them (Happy's server: 60
   * request-uploads a minute), with how long and why, so a user is told rather than left wondering.
   */
  onWait?: (wait: { ms: number; reason: string }) => void;
}

/**
 * The body of a new blob, made once its ref is known: {@link BlobStore.create} calls it with the ref it
 * issued, before the first byte is produced, so the producer can bind the bytes to that ref (a v2 media
 * blob is encrypted under `mediaBlobContext(ref)`). Called at most once.
 */
export type BlobBody = (ref: string) => ReadableStream<Uint8Array> | Promise<ReadableStream<Uint8Array>>;

/**
 * The body of a resumable upload: the blob's bytes from `offset` to its end, for the ref the store
 * issued (made again from the file after an interruption). Called once per connection the upload makes.
 */
export type ResumableBody = (
  ref: string,
  offset: number,
) => ReadableStream<Uint8Array> | Promise<ReadableStream<Uint8Array>>;

/** Options of {@link BlobStore.createResumable}. */
export interface ResumableWriteOptions extends WriteOptions {
  /**
   * Records the store's state of this upload (JSON-safe, no secret: e.g. the ref and S3's upload id);
   * awaited before any byte of the upload leaves, and again as it goes on.
   */
  onState: (state: unknown) => Promise<void>;
  /** The state an interrupted run recorded through `onState`: the store goes on from what it holds. */
  resumeFrom?: unknown;
  /** The state of an upload that will not be resumed (its file changed): the store drops what it holds. */
  abandon?: unknown;
}

/** The errors a store throws when what it holds of an upload is not what the body makes now. */
const restartErrors = new WeakSet<object>();

/**
 * The error of a resumed upload whose stored bytes differ from the ones `body` makes again (the file
 * changed): the caller starts over under a new ref and salt, since the same ones with other plaintext
 * would reuse nonces. `ERR_UPLOAD_FAILED` if nobody catches it.
 */
export function restartUploadError(why: string): StorageError {
  const error = new StorageError(`${why}; the upload starts over`, { code: 'ERR_UPLOAD_FAILED' });
  restartErrors.add(error);
  return error;
}

/** True for an error made by {@link restartUploadError}. */
export function isRestartUpload(error: unknown): boolean {
  return typeof error === 'object' && error !== null && restartErrors.has(error);
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
 * A place to keep encrypted blobs, addressed by `media/<id>` refs that the store issues.
 *
 * Contract (the same tests run against every implementation, docs/storage.md):
 * - `create` is the write: the store issues a fresh ref, hands it to `body` before the first byte is
 *   read, stores exactly `size` bytes and resolves with the ref only once the blob is complete. A body
 *   that is shorter or longer fails with `ERR_UPLOAD_FAILED`, an aborted one with `ERR_ABORTED`, an
 *   erroring one with its own error; in every case nothing is stored under the ref `body` was given.
 * - `get` streams the blob or a range of it (cut at the end of the blob). A range starting past the end
 *   is `ERR_INVALID_ARGUMENT`; a missing ref is `ERR_NOT_FOUND`. `head` gives the size (`ERR_NOT_FOUND`
 *   when missing).
 * - A ref that is not `media/<id>` (or, for a store with its own naming, not one it could have issued)
 *   is `ERR_INVALID_REF`, before any I/O.
 * - Capabilities, present only where the store has them: `put` (store under a ref of the caller's
 *   choosing, e.g. to mirror a blob to another store under the same ref), `delete`, and `serverRef` /
 *   `mediaRef` (a store whose server names blobs itself maps its names to the messages' `media/<id>`).
 *   Callers test for the method, never for a class.
 */
export interface BlobStore {
  /**
   * Largest blob (ciphertext bytes) the store accepts, when it has a fixed limit. Callers check it
   * before encrypting or uploading anything (`create` checks it too, before calling `body`).
   */
  readonly maxBlobBytes?: number;
  /**
   * Where the store keeps its blobs, as a stable name with no secret in it (Happy's server: its URL and
   * the session; a directory's path; a bucket and prefix). A send that is interrupted is resumed per file
   * and location (`sendMedia`'s journal); a store without one is never resumed.
   */
  readonly location?: string;
  /**
   * Stores a new blob of exactly `size` bytes under a ref the store issues: `body(ref)` is called once
   * with that ref, before the first byte is produced, and the ref is returned only after the store
   * confirmed the blob (upload-first).
   */
  create(size: number, body: BlobBody, options?: WriteOptions): Promise<{ ref: string }>;
  /**
   * Capability: stores exactly `size` bytes under `ref` of the caller's choosing; the blob appears only
   * when complete (temp + rename or equivalent) and replaces an existing one as a whole.
   */
  put?(ref: string, body: ReadableStream<Uint8Array>, size: number, options?: WriteOptions): Promise<void>;
  /**
   * Capability: {@link BlobStore.create} that survives an interruption, the process's included (S3's
   * multipart upload, the media server's upload route). The store records its state through
   * `options.onState`; given it back as `resumeFrom`, it asks its server what it holds, checks those bytes
   * against `body(ref, 0)` (throwing {@link restartUploadError} when they differ) and sends only the rest,
   * from `body(ref, offset)`. The blob appears under the ref only once complete.
   */
  createResumable?(
    size: number,
    body: ResumableBody,
    options: ResumableWriteOptions,
  ): Promise<{ ref: string }>;
  /** Streams the blob, whole or the byte range [offset, offset + length). Throws ERR_NOT_FOUND when absent. */
  get(ref: string, range?: BlobRange, options?: GetOptions): Promise<ReadableStream<Uint8Array>>;
  /** Size of the stored blob. Throws ERR_NOT_FOUND when absent. */
  head(ref: string): Promise<{ size: number }>;
  /** Capability: deletes the blob; deleting a missing ref is not an error. */
  delete?(ref: string): Promise<void>;
  /**
   * Capability of a store whose server names blobs itself (Happy's server:
   * `sessions/<sid>/attachments/<uuid>.enc`): the server's name for `ref`, as formats that carry it need
   * (Happy's v1 `file` event). Throws `ERR_INVALID_REF` for a ref the store cannot hold.
   */
  serverRef?(ref: string): string;
  /**
   * Capability, the inverse of {@link BlobStore.serverRef}: the `media/<id>` ref of a server name.
   * Throws `ERR_INVALID_REF` for anything the store's server could not have issued.
   */
  mediaRef?(serverRef: string): string;
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
 * What a send throws when storing its blob failed: the library's own errors as they are, anything else
 * (a store the app wrote, or a source stream, that throws a plain `Error`) as one typed
 * `ERR_UPLOAD_FAILED` that keeps it as its `cause`, so a caller handles every store alike.
 *
 * @param error - what the store's `create` (or the body it read) threw.
 * @example
 * ```ts
 * const { ref } = await store.create(size, body).catch((error) => Promise.reject(uploadFailure(error)));
 * ```
 */
export function uploadFailure(error: unknown): HappyMediaError {
  if (error instanceof HappyMediaError) return error;
  return new StorageError(
    'storing the blob failed with an error of the store or of the bytes it read (the cause); nothing was sent',
    { code: 'ERR_UPLOAD_FAILED', cause: error },
  );
}

/**
 * Checks `size` against the store's {@link BlobStore.maxBlobBytes} before anything is read or uploaded.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` naming the limit; `what` names the store in the message.
 */
export function assertWithinStoreLimit(
  store: Pick<BlobStore, 'maxBlobBytes'>,
  size: number,
  what = 'this store',
): void {
  const limit = store.maxBlobBytes;
  if (limit !== undefined && size > limit) {
    throw new LimitError(
      `the encrypted blob is ${size} bytes, more than the ${limit}-byte limit of ${what}; nothing was uploaded. ` +
        'sendMedia and sendPickedMedia store larger media in parts of at most that size',
    );
  }
}

/**
 * `create` for a store that takes refs of the caller's choosing (`put`): a fresh `media/<id>` (cuid2),
 * `body(ref)`, then `put`. Local, HTTP and S3 stores implement `create` with it. After a failed `put`
 * the ref is deleted as well, in case the store kept the blob although the upload failed from here
 * (e.g. the answer was lost); a retry uses a new ref.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` before `body` is called when `size` is over the store's limit.
 * @throws the store's and the body's errors (`ERR_UPLOAD_FAILED`, `ERR_ABORTED`, ...).
 * @example
 * ```ts
 * class MyStore implements BlobStore {
 *   create(size: number, body: BlobBody, options?: WriteOptions) { return createWithPut(this, size, body, options); }
 *   // put, get, head, delete ...
 * }
 * ```
 */
export async function createWithPut(
  store: Pick<BlobStore, 'maxBlobBytes'> & Required<Pick<BlobStore, 'put' | 'delete'>>,
  size: number,
  body: BlobBody,
  options: WriteOptions = {},
): Promise<{ ref: string }> {
  assertNonNegativeInteger(size, 'size');
  assertBlobBody(body);
  assertWithinStoreLimit(store, size);
  if (options.signal?.aborted) {
    throw new AbortedError('the upload was aborted; nothing was stored', { cause: options.signal.reason });
  }
  const ref = createMediaRef();
  const stream = await body(ref);
  try {
    await store.put(ref, stream, size, options);
  } catch (error) {
    await store.delete(ref).catch(() => {});
    throw error;
  }
  return { ref };
}

/**
 * Checks that `body` is a {@link BlobBody} (a function of the ref), the mistake a caller of the
 * pre-`create` API makes by passing a stream.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` otherwise.
 */
export function assertBlobBody(body: unknown): asserts body is BlobBody {
  if (typeof body !== 'function') {
    throw new InvalidArgumentError(
      `expected a function \`(ref) => ReadableStream\` for \`body\` but received ${describeValue(body)}`,
    );
  }
}
