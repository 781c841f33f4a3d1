/**
 * `downloadMedia`: the one download → verify → sink engine. Universal (browsers, React Native, Node):
 * `openMedia` in Node is this engine with a private-file sink.
 *
 * v2 blobs stream: frames from {@link resumableDownload} (whole 16400-byte chunk ciphertexts, resumed at
 * frame boundaries after dropped connections) go through the blob layer's decrypt engine, which releases
 * a chunk only after its tag verified; released bytes go to the sink. v1 blobs (whole-blob secretbox, at
 * most Happy's {@link HAPPY_MAX_ATTACHMENT_BYTES}) are downloaded whole and verified before one write. The sink's `commit`
 * runs only after the last chunk verified and the size matched; any failure calls its `abort`.
 *
 * @module
 */
import { BLOB_CHUNK_SIZE, BLOB_HEADER_SIZE, BLOB_TAG_SIZE } from '../blob/format.js';
import { ciphertextSize } from '../blob/sizes.js';
import { BlobDecryptor, type EngineOutput } from '../blob/stream.js';
import { describeValue, joinBytes } from '../bytes.js';
import { AbortedError, DecryptionError, InvalidArgumentError } from '../errors.js';
import { HAPPY_MAX_ATTACHMENT_BYTES } from '../happy/attachment-limit.js';
import { decryptV1Blob } from '../happy/v1-blob.js';
import { checkedTimeoutMs } from '../timeout.js';
import { type RetryPolicy, retryPolicy } from '../transport/retry.js';
import {
  type FetchBlobSourceOptions,
  fetchBlobSource,
  isMediaUrl,
  type MediaUrl,
} from './fetch-blob-source.js';
import {
  assertStoreAndKey,
  type MediaInput,
  type MediaRequest,
  requestForSource,
  toMediaRequest,
} from './media-request.js';
import { type MediaSink, sinkCopiesWrites } from './media-sink.js';
import {
  checkedIdleTimeoutMs,
  chunkedResumePoint,
  type FrameReader,
  type ReadableBlobStore,
  resumableFrames,
} from './resumable-download.js';
import { headWithRetries, readStoreRange } from './store-reads.js';
import {
  expectedPlaintextSize,
  resolveStoredMedia,
  type StoredMediaBlob,
  type StoredMediaOptions,
} from './stored-media.js';

/**
 * Where the ciphertext is: a store (anything with `head` and `get`, e.g. `openStore(...)` in Node), or a
 * URL read with ranged `fetch` GETs: a fixed URL, or a function of the ref (for presigned URLs).
 */
export type MediaDownloadSource = ReadableBlobStore | MediaUrl;

/**
 * Ciphertext bytes `downloadMedia` keeps in the decryptor at once (and one push more: the frames read
 * ahead, at most 256 KiB and a network read): enough chunks in flight (64) to hide an asynchronous
 * cipher's per-call latency, few enough to bound memory (about twice this, ciphertext plus plaintext). A
 * synchronous cipher settles each push at once, so nothing waits there.
 */
const DECRYPT_WINDOW_BYTES = 64 * (BLOB_CHUNK_SIZE + BLOB_TAG_SIZE);

/** Options of {@link downloadMedia}. */
export interface DownloadMediaOptions<T> extends RetryPolicy {
  /** Where the ciphertext is: a store, a URL, or `(ref) => URL` (presigned URLs). */
  source: MediaDownloadSource;
  /** The 32-byte blob key (master or session blob key). */
  blobKey: Uint8Array;
  /** Where verified plaintext goes; `downloadMedia` resolves to what its `commit` returns. */
  sink: MediaSink<T>;
  /** `fetch` for a URL source (expo/fetch, a browser's, a test's); default `globalThis.fetch`. */
  fetch?: FetchBlobSourceOptions['fetch'];
  /** Extra request headers for a URL source (e.g. `Authorization`). */
  headers?: FetchBlobSourceOptions['headers'];
  /** Cancels with `ERR_ABORTED`; the sink is aborted. */
  signal?: AbortSignal;
  /** Verified plaintext bytes handed to the sink so far, of `total`. */
  onProgress?: (e: { done: number; total: number }) => void;
  /**
   * A connection that hands on no new whole chunk for this long (silent, or dripping) counts as
   * dropped and is retried (default 30 000 ms).
   */
  idleTimeoutMs?: number;
  /**
   * The download must end within this many ms, else `ERR_DOWNLOAD_FAILED` (default: 10 minutes plus one
   * second per 64 KiB of ciphertext, `defaultDownloadDeadlineMs`; 0: none).
   */
  deadlineMs?: number;
}

/**
 * The store behind a {@link MediaDownloadSource}: a URL or a function of the ref read through
 * {@link fetchBlobSource} with `fetch` and `headers`, a store as it is (checked by the caller). Every
 * player that takes a `source` (downloadMedia and what is built on it, the web's openStreamingMedia)
 * reads through this.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a `fetch` that is not a function.
 */
export function sourceStore(
  source: MediaDownloadSource,
  options: Pick<FetchBlobSourceOptions, 'fetch' | 'headers'>,
): ReadableBlobStore {
  return isMediaUrl(source)
    ? fetchBlobSource(source, { fetch: options.fetch, headers: options.headers })
    : source;
}

/** The store behind `options.source`, checked. */
function resolveSource<T>(options: DownloadMediaOptions<T>): ReadableBlobStore {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(
      `expected an options object for \`options\` but received ${describeValue(options)}`,
    );
  }
  const store = sourceStore(options.source, options);
  assertStoreAndKey({ store, blobKey: options.blobKey }, 'source');
  const { sink } = options;
  if (
    typeof sink !== 'object' ||
    sink === null ||
    typeof sink.write !== 'function' ||
    typeof sink.commit !== 'function' ||
    typeof sink.abort !== 'function' ||
    (sink.begin !== undefined && typeof sink.begin !== 'function')
  ) {
    throw new InvalidArgumentError(
      `expected a sink with write(), commit() and abort() for \`sink\` but received ${describeValue(sink)}`,
    );
  }
  assertProgressAndRetries(options);
  return store;
}

/**
 * Checks the options every download API shares (`downloadMedia`, `openMedia`): `onProgress`, the retry
 * policy ({@link retryPolicy}), `idleTimeoutMs` (positive) and `deadlineMs` (timeouts are clamped to
 * 2^31 − 1 ms where they are used).
 *
 * @throws {InvalidArgumentError} naming the first option that is wrong.
 */
export function assertProgressAndRetries(
  options: { onProgress?: unknown; idleTimeoutMs?: number; deadlineMs?: number } & RetryPolicy,
): void {
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new InvalidArgumentError(
      `expected a function for \`onProgress\` but received ${describeValue(options.onProgress)}`,
    );
  }
  retryPolicy(options);
  if (options.idleTimeoutMs !== undefined) checkedIdleTimeoutMs(options.idleTimeoutMs);
  if (options.deadlineMs !== undefined) checkedTimeoutMs(options.deadlineMs, 'deadlineMs');
}

function aborted(signal: AbortSignal | undefined): AbortedError {
  return new AbortedError('the download was aborted', { cause: signal?.reason });
}

/**
 * Downloads a `photo`/`video`/`file` message's blob, verifies every byte, and hands the verified
 * plaintext to `sink`; resolves to what `sink.commit()` returns. Nothing unverified reaches the sink; on
 * any failure `sink.abort()` is called and the promise rejects. A dropped connection resumes from the last
 * chunk boundary (bounded retries); a tag failure is final.
 *
 * @param message - a validated v2 media message, or `{ ref, mimeType?, name?, size?, format? }`
 *   (`format: 'v1'` for Happy's whole-blob secretbox attachments, at most 10 MiB).
 * @throws {StorageError} download leg: `ERR_NOT_FOUND`, `ERR_DOWNLOAD_FAILED`, `ERR_INVALID_REF`.
 * @throws {DecryptionError} decrypt leg: `ERR_DECRYPTION_FAILED` (wrong key, tampering, wrong size).
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a v1 blob over {@link HAPPY_MAX_ATTACHMENT_BYTES}.
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts.
 * @throws {InvalidArgumentError} / {SchemaError} for bad arguments or a malformed message (before any I/O).
 *   Whatever the sink throws is passed through.
 * @example
 * ```ts
 * // React Native / browser: presigned URL, bytes in memory
 * const bytes = await downloadMedia(message, {
 *   source: (ref) => presignedUrlFor(ref),
 *   blobKey,
 *   sink: memorySink(),
 *   onProgress: ({ done, total }) => setProgress(done / total),
 * });
 * ```
 */
export async function downloadMedia<T>(message: MediaInput, options: DownloadMediaOptions<T>): Promise<T> {
  const store = resolveSource(options);
  const request = requestForSource(toMediaRequest(message), options.source, isMediaUrl(options.source));
  const { blobKey, sink, signal, onProgress } = options;
  if (signal?.aborted) throw aborted(signal);
  const reads = { ...retryPolicy(options), signal };
  const deadlines = {
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
  };
  // The check of the stored length against the message; for media in parts the manifest states the
  // length instead (and the parts' lengths are checked as they are read), so there is none.
  let sizeCheck: StoredSizeCheck | undefined = new StoredSizeCheck(store, request, reads);
  let done = 0;
  /** The stored size the store's answers state, when they do (an HTTP 206's Content-Range total does). */
  let stated: number | undefined;
  try {
    const ciphertextBytes = sizeCheck.overlapped
      ? ciphertextSize(request.size as number)
      : await headWithRetries(store, request.ref, reads);
    let total = expectedPlaintextSize(request, ciphertextBytes);
    // A sink that copies what it is given gets the same few arrays again (no allocation per piece);
    // any other keeps each array, as the sink contract promises.
    const outputs = sinkCopiesWrites(sink) ? new RecycledOutputs() : undefined;
    const accept = async (plain: Uint8Array) => {
      if (signal?.aborted) throw aborted(signal);
      sizeCheck?.start();
      await sink.write(plain);
      outputs?.recycle(plain);
      done += plain.length;
      onProgress?.({ done, total });
    };
    const download = (from: ReadableBlobStore, size: number) =>
      resumableFrames({
        ...reads,
        ...deadlines,
        store: from,
        ref: request.ref,
        size,
        resumePoint: chunkedResumePoint(BLOB_HEADER_SIZE, BLOB_CHUNK_SIZE + BLOB_TAG_SIZE),
        // A blob stored shorter than the message is refused by the decryptor at once, not retried; a
        // manifest (shorter than its media) is read whole from this answer.
        endAtStoredSize: true,
        onSize: (bytes) => {
          stated = bytes;
          sizeCheck?.answered(bytes);
        },
      });

    if (request.format === 'v1') {
      const blob = await readStoreRange(store, request.ref, 0, ciphertextBytes, { ...reads, ...deadlines });
      await sink.begin?.({ size: total });
      await accept(decryptV1Blob(blob, blobKey));
    } else {
      let { ciphertext, first, blob } = await startStoredDownload(
        download(store, ciphertextBytes),
        store,
        request.ref,
        blobKey,
        () => stated,
        { ...reads, fixedUrl: isFixedUrl(options.source) },
      );
      if (blob.parted) {
        sizeCheck = undefined;
        const { manifest, blob: parts } = blob.parted;
        // The message is authenticated by its envelope, the manifest under the ref: they must agree.
        if (request.size !== undefined && request.size !== manifest.plaintextSize)
          throw new DecryptionError();
        total = manifest.plaintextSize;
        ciphertext = download(parts, parts.layout.ciphertextSize);
        first = [];
      }
      // Bound to the ref the message names (through the manifest, for media in parts): a blob stored
      // under another ref fails at its header.
      await sink.begin?.({ size: total });
      // The store's pieces are ours (a stream's chunks never change once enqueued): the decryptor keeps
      // views of them rather than copying what it holds back.
      const decryptor = new BlobDecryptor(
        blobKey,
        { context: blob.context, maxPlaintextBytes: total },
        outputs ? { keepsPieces: true, output: outputs.output } : { keepsPieces: true },
      );
      await decryptInOrder(ciphertext, first, decryptor, accept);
    }
    // The decryptor already refuses truncation; this guards the bookkeeping, not the cryptography.
    if (done !== total) throw new DecryptionError();
    sizeCheck?.start(); // an empty blob has no first bytes
    await sizeCheck?.agreed();
    if (signal?.aborted) throw aborted(signal);
    return await sink.commit({
      size: total,
      ...(request.mimeType === undefined ? {} : { mimeType: request.mimeType }),
      ...(request.name === undefined ? {} : { name: request.name }),
    });
  } catch (caught) {
    const error = sizeCheck ? await sizeCheck.explain(caught) : caught;
    try {
      await sink.abort(error);
    } catch {
      // The original failure is what the caller needs; a failing abort must not mask it.
    }
    if (signal?.aborted && !(error instanceof AbortedError)) throw aborted(signal);
    // Store failures arrive already typed (resumableDownload, headWithRetries); anything else is a bug
    // or the sink's own error, and must not masquerade as a network problem.
    throw error;
  }
}

/**
 * The start of a v2 download: it begins as for a blob in one attachment, and its first 56 bytes tell
 * whether `ref` holds the media blob or the manifest of media in parts (no extra request for the blob).
 * Returns the download and the pieces read, with what the ref holds; the download is cancelled when the
 * ref holds a manifest (its parts are read instead) or what it holds is refused.
 *
 * Where the store states the stored size (`storedSize`, from its first answer), a manifest is read from
 * the rest of this same answer (the download ends where the stored attachment does) and its size is not
 * asked: media in parts starts two round trips sooner than with a HEAD and a second read.
 */
async function startStoredDownload(
  ciphertext: FrameReader,
  store: ReadableBlobStore,
  ref: string,
  blobKey: Uint8Array,
  storedSize: () => number | undefined,
  options: StoredMediaOptions,
): Promise<{
  ciphertext: FrameReader;
  first: Uint8Array[];
  blob: StoredMediaBlob;
}> {
  const first = await readFrames(ciphertext, [], BLOB_HEADER_SIZE);
  const size = storedSize();
  const stored =
    size === undefined
      ? {}
      : { manifestSize: size, stored: () => readFrames(ciphertext, [...first], size + 1) };
  const blob = await resolveStoredMedia(store, ref, blobKey, headerOf(first), {
    ...options,
    ...stored,
  }).catch(async (error: unknown) => {
    await ciphertext.cancel().catch(() => undefined);
    throw error;
  });
  if (blob.parted) await ciphertext.cancel().catch(() => undefined);
  return { ciphertext, first, blob };
}

/**
 * The arrays a synchronous cipher opens a download's batches into, for a sink that copies what it is
 * given: an array goes back to the free list once the sink's `write` settled, so a download of any size
 * goes through a few arrays (as many as are in flight at once) instead of one fresh array per network
 * piece, whose allocation, zeroing and collection the main thread paid for (docs/playback.md,
 * "Speed in Node"). Only arrays made here come back; each one once.
 */
class RecycledOutputs {
  /** Arrays free to hand out again (a handful: one per piece in flight). */
  readonly #free: ArrayBuffer[] = [];
  /** Arrays handed out and not back yet. */
  readonly #lent = new Set<ArrayBufferLike>();

  readonly output: EngineOutput = (length) => {
    const at = this.#free.findIndex((buffer) => buffer.byteLength >= length);
    const buffer = at >= 0 ? (this.#free.splice(at, 1)[0] as ArrayBuffer) : new ArrayBuffer(length);
    this.#lent.add(buffer);
    return new Uint8Array(buffer, 0, length);
  };

  /** Takes `bytes`' array back if it is one of ours and out (the sink is done with it). */
  recycle(bytes: Uint8Array): void {
    if (!this.#lent.delete(bytes.buffer)) return;
    if (this.#free.length < RECYCLED_OUTPUTS_KEPT) this.#free.push(bytes.buffer as ArrayBuffer);
  }
}

/** Free arrays {@link RecycledOutputs} keeps at most (more are left to the collector). */
const RECYCLED_OUTPUTS_KEPT = 8;

/**
 * The check of the stored length against the message. When the message states its size (v2), the
 * ciphertext length follows from it, so the download starts at once and the check runs beside it instead
 * of costing a round trip first (`overlapped`); nothing is committed until it agreed, and a disagreement
 * is reported as such even when the download failed first (e.g. a range past a shorter object's end).
 * The download's own answer usually states the stored size (an HTTP 206's Content-Range total, through
 * the store's `onSize`): then no HEAD is needed at all. Otherwise the HEAD is sent once the first
 * verified bytes arrived, not before the download's own request: on a small file its set-up would
 * delay the first byte.
 */
class StoredSizeCheck {
  /** True when the check runs beside the download rather than before it. */
  readonly overlapped: boolean;
  readonly #store: ReadableBlobStore;
  readonly #request: MediaRequest;
  readonly #reads: RetryPolicy & { retries: number; signal?: AbortSignal };
  #storedSize: number | undefined;
  #check: Promise<void> | undefined;

  constructor(
    store: ReadableBlobStore,
    request: MediaRequest,
    reads: RetryPolicy & { retries: number; signal?: AbortSignal },
  ) {
    this.overlapped = request.format !== 'v1' && request.size !== undefined;
    this.#store = store;
    this.#request = request;
    this.#reads = reads;
  }

  /** The size the download's first answer stated (a resumed request could only repeat it). */
  answered(bytes: number): void {
    this.#storedSize ??= bytes;
  }

  /** Starts the check, once: from the answered size, else a HEAD with `retries`. */
  start(retries = this.#reads.retries): void {
    if (!this.overlapped || this.#check !== undefined) return;
    const known = this.#storedSize;
    this.#check = (
      known === undefined
        ? headWithRetries(this.#store, this.#request.ref, { ...this.#reads, retries })
        : Promise.resolve(known)
    ).then((bytes) => {
      expectedPlaintextSize(this.#request, bytes);
    });
    this.#check.catch(() => undefined); // awaited by agreed() or explain(); never unhandled meanwhile
  }

  /** Resolves once the stored size agreed with the message (at once when nothing was checked). */
  async agreed(): Promise<void> {
    await this.#check;
  }

  /**
   * What to report for a failed download: a blob of the wrong length explains whatever went wrong
   * downloading it. A download that failed before its first bytes still asks the size, once (its own
   * retries are spent).
   */
  async explain(error: unknown): Promise<unknown> {
    if (error === undefined) return error;
    if (!this.#reads.signal?.aborted) this.start(0);
    let explained: unknown = error;
    await this.#check?.catch((sizeError: unknown) => {
      explained = sizeError;
    });
    return explained;
  }
}

/**
 * `pieces` followed by the frames `reader` hands on until they hold at least `bytes` bytes or the download
 * ended. A download's first pieces are read up to its 56-byte header (the header is its first frame,
 * possibly with chunks after it in the same piece; fewer bytes only when the download ended, and the
 * header check then fails); a manifest to one byte past the stored size the store stated, i.e. to its end.
 */
async function readFrames(reader: FrameReader, pieces: Uint8Array[], bytes: number): Promise<Uint8Array[]> {
  let read = pieces.reduce((sum, piece) => sum + piece.length, 0);
  while (read < bytes) {
    const frames = await reader.read();
    if (frames === undefined) break;
    for (const frame of frames) {
      pieces.push(frame);
      read += frame.length;
    }
  }
  return pieces;
}

/**
 * The first 56 bytes of `pieces` (fewer when they hold fewer): a view of the first piece when it holds
 * them all (as a download's first read does), else the few pieces that hold them joined. Not a join of
 * everything read: the first read's frames run to the read-ahead (256 KiB), and Chromium's allocation
 * of such an array costs more than the header's whole check.
 */
function headerOf(pieces: readonly Uint8Array[]): Uint8Array {
  const head = pieces[0];
  if (head !== undefined && head.length >= BLOB_HEADER_SIZE) return head.subarray(0, BLOB_HEADER_SIZE);
  const holding: Uint8Array[] = [];
  let bytes = 0;
  for (const piece of pieces) {
    if (bytes >= BLOB_HEADER_SIZE) break;
    holding.push(piece);
    bytes += piece.length;
  }
  return joinBytes(holding).subarray(0, BLOB_HEADER_SIZE);
}

/** True for a source that is one fixed URL (it names one attachment, never the parts of a manifest). */
function isFixedUrl(source: MediaDownloadSource): boolean {
  return isMediaUrl(source) && typeof source !== 'function';
}

/**
 * Pushes the ciphertext through `decryptor` and hands each verified piece to `accept`, in order.
 *
 * The decrypt engine is driven directly, from the download's frames ({@link resumableFrames}), rather than
 * through streams: no stream hop per network read (each hop costs promises and queue bookkeeping on the
 * main thread), the download keeps its own read-ahead while a piece is decrypted and handed on, and the
 * frames that arrived since the last read go to the decryptor in one push (its bookkeeping, a few
 * promises, is paid per push: with 64 KiB network reads in Chromium that showed; docs/performance.md).
 * Pushes stay in flight, oldest first: with an
 * asynchronous cipher (expo-crypto: one native call per chunk) the next network pieces are pushed while
 * earlier chunks are still being opened, up to {@link DECRYPT_WINDOW_BYTES} of ciphertext; results are
 * taken in push order, each only once all of its chunks verified, so `accept` sees verified bytes in order
 * and memory stays bounded. A result that is already verified (a synchronous cipher's, by the time the
 * next piece arrived) goes on at once: every array that waits across a network read outlives the young
 * generation of the garbage collector, and those it must then free in full collections.
 */
async function decryptInOrder(
  reader: FrameReader,
  first: readonly Uint8Array[],
  decryptor: BlobDecryptor,
  accept: (plain: Uint8Array) => Promise<void>,
): Promise<void> {
  const inFlight: { pieces: Promise<Uint8Array[]>; bytes: number; settled: boolean }[] = [];
  let inFlightBytes = 0;
  const releaseOldest = async () => {
    const oldest = inFlight.shift() as (typeof inFlight)[number];
    inFlightBytes -= oldest.bytes;
    for (const piece of await oldest.pieces) await accept(piece);
  };
  const push = (pieces: Promise<Uint8Array[]>, bytes: number) => {
    const entry = { pieces, bytes, settled: false };
    // Awaited in order below (a failure too, so it never goes unhandled); settled results go on first.
    const settle = () => {
      entry.settled = true;
    };
    pieces.then(settle, settle);
    inFlight.push(entry);
    inFlightBytes += bytes;
  };
  try {
    for (const value of first) push(decryptor.push(value), value.length);
    for (;;) {
      const frames = await reader.read();
      if (frames === undefined) break;
      while (inFlight[0]?.settled) await releaseOldest();
      let bytes = 0;
      for (const frame of frames) bytes += frame.length;
      push(decryptor.pushPieces(frames), bytes);
      while (inFlightBytes > DECRYPT_WINDOW_BYTES) await releaseOldest();
    }
    push(decryptor.finish(), 0);
    while (inFlight.length > 0) await releaseOldest();
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
}
