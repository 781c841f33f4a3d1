/**
 * What a message's ref holds, for every reader: the media blob itself (media that fits in one attachment
 * of its store), or the manifest of media stored in parts (docs/blob-format.md, "Media in parts"). The
 * first 56 bytes tell which (`storedMediaForm`: the key commitment matches exactly one of the two
 * ref-bound contexts); a manifest is then read whole, authenticated under the ref, and the media is read
 * through the view of its parts ({@link partedBlobStore}), under the parts' context. Readers that
 * already fetch the header (random access, a download's first bytes) pay no extra request for media in
 * one attachment.
 *
 * @module
 */
import { BLOB_HEADER_SIZE, mediaBlobContext, partsBlobContext } from '../blob/format.js';
import {
  MAX_MANIFEST_PLAINTEXT_BYTES,
  openPartsManifest,
  type PartsManifest,
  storedMediaForm,
} from '../blob/manifest.js';
import { type BlobReader, openBlobRandomAccess, type RangeSource } from '../blob/random-access.js';
import { blobLayout, chunkOffset, ciphertextSize, plaintextSize } from '../blob/sizes.js';
import { assertNonNegativeInteger, joinBytes } from '../bytes.js';
import { LEGACY_OVERHEAD_BYTES } from '../envelope/layout.js';
import { DecryptionError, InvalidArgumentError, LimitError } from '../errors.js';
import { HAPPY_MAX_ATTACHMENT_BYTES } from '../happy/attachment-limit.js';
import type { MediaRequest } from './media-request.js';
import { type PartedBlobStore, partedBlobStore } from './parted-store.js';
import type { ReadableBlobStore } from './resumable-download.js';
import {
  headWithRetries,
  readStoreRange,
  type StoreRangeSourceOptions,
  type StoreReadOptions,
  storeRangeSource,
} from './store-reads.js';

/** The largest a sealed manifest can be (its plaintext limit, encrypted). */
const MAX_SEALED_MANIFEST_BYTES = ciphertextSize(MAX_MANIFEST_PLAINTEXT_BYTES);

/** The blob a message's media is, wherever its bytes are: what a reader decrypts, and from where. */
export interface StoredMediaBlob {
  /** Where the blob's ciphertext is read: the store itself, or the view of its parts. */
  store: ReadableBlobStore;
  /** The context to decrypt it with: `mediaBlobContext(ref)`, or the parts' context. */
  context: Uint8Array;
  /** The view of the parts and their manifest, for media stored in parts. */
  parted?: { blob: PartedBlobStore; manifest: PartsManifest };
}

/** Options of the functions below: the retry policy, and whether the source can name parts. */
export interface StoredMediaOptions extends StoreReadOptions {
  /**
   * Set when the source is one fixed URL, which names one attachment only: media in parts is then refused
   * with advice instead of reading the manifest's URL for every part.
   */
  fixedUrl?: boolean;
}

/**
 * Checks the stored size against what the (authenticated) message announced, before downloading, and
 * returns the plaintext size. Every playback path (downloadMedia, openMedia, serveMedia) uses it: a v1
 * blob is verified whole in memory, so it is refused above Happy's cap
 * ({@link HAPPY_MAX_ATTACHMENT_BYTES} of ciphertext, which no v1 attachment of Happy's can exceed).
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a v1 blob over the cap.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a length no blob of the format can have, or a
 *   plaintext size other than the message's.
 */
export function expectedPlaintextSize(request: MediaRequest, ciphertextBytes: number): number {
  let size: number;
  if (request.format === 'v1') {
    if (ciphertextBytes > HAPPY_MAX_ATTACHMENT_BYTES) {
      throw new LimitError(
        `the v1 blob ${request.ref} is ${ciphertextBytes} bytes, more than Happy's ${HAPPY_MAX_ATTACHMENT_BYTES}-byte attachment cap; a v1 blob is verified whole in memory, so none larger is opened`,
      );
    }
    // A v1 blob shorter than its overhead cannot be authentic.
    if (ciphertextBytes < LEGACY_OVERHEAD_BYTES) throw new DecryptionError();
    size = ciphertextBytes - LEGACY_OVERHEAD_BYTES;
  } else {
    try {
      size = plaintextSize(ciphertextBytes);
    } catch {
      // A length no ciphertext can have is a truncated or extended blob: not authentic (and which check
      // said so is not told: no cause on an authentication failure).
      throw new DecryptionError();
    }
  }
  // The message is authenticated by its envelope; a blob of another size is not the one it describes.
  if (request.size !== undefined && request.size !== size) throw new DecryptionError();
  return size;
}

/**
 * Reads and authenticates the manifest stored under `ref` (`size` bytes, asked when not given).
 *
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for anything but an authentic manifest of `ref`.
 * @throws {FormatError} `ERR_FORMAT` for an authentic manifest that is malformed.
 * @throws {StorageError} as the store's reads.
 */
export async function readPartsManifest(
  store: ReadableBlobStore,
  ref: string,
  blobKey: Uint8Array,
  size: number | undefined,
  options: StoreReadOptions & Pick<ResolveOptions, 'stored'> = {},
): Promise<PartsManifest> {
  const storedSize = size ?? (await headWithRetries(store, ref, options));
  // No authentic manifest is larger: the sender's manifests are bounded, and so is what a reader reads.
  if (storedSize > MAX_SEALED_MANIFEST_BYTES || blobLayout(storedSize) === undefined)
    throw new DecryptionError();
  const pieces = await options.stored?.();
  const sealed =
    pieces !== undefined && pieces.reduce((sum, piece) => sum + piece.length, 0) === storedSize
      ? joinBytes(pieces)
      : await readStoreRange(store, ref, 0, storedSize, options);
  return openPartsManifest(sealed, blobKey, ref);
}

/** Options of {@link resolveStoredMedia}. */
export interface ResolveOptions extends StoredMediaOptions {
  /** The stored size of the attachment under `ref`, when known (spares a `head`). */
  manifestSize?: number;
  /**
   * Reads the rest of an answer already under way for the attachment under `ref`, with the bytes read
   * so far: used for a manifest when it comes to `manifestSize` bytes (else the manifest is read again).
   */
  stored?: () => Promise<readonly Uint8Array[]>;
}

/**
 * The blob under `ref`, given its first 56 bytes: the media blob as it is stored, or, when `header`
 * is a manifest's, the view of the parts the manifest names.
 *
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when `header` is neither (another ref, key or session).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for media in parts behind one fixed URL.
 */
export async function resolveStoredMedia(
  store: ReadableBlobStore,
  ref: string,
  blobKey: Uint8Array,
  header: Uint8Array,
  options: ResolveOptions = {},
): Promise<StoredMediaBlob> {
  if (storedMediaForm(blobKey, header, ref) === 'blob') return { store, context: mediaBlobContext(ref) };
  if (options.fixedUrl) {
    throw new InvalidArgumentError(
      `${ref} is stored in parts, and a fixed URL names one attachment: pass a function of the ref for \`source\` (or a store), so each part can be fetched by its own ref`,
    );
  }
  const manifest = await readPartsManifest(store, ref, blobKey, options.manifestSize, options);
  const blob = partedBlobStore(store, ref, manifest);
  return { store: blob, context: partsBlobContext(manifest.binding), parted: { blob, manifest } };
}

/** A range read already asked for: its answer is handed to the first read of the same range. */
interface EarlyRead {
  offset: number;
  length: number;
  bytes: Promise<Uint8Array>;
}

/**
 * A source whose first read of each of `early`'s ranges is answered by the read already asked (the
 * header and the final chunk that opening reads: no request of their own, nor a round trip each).
 */
function withEarlyReads(source: RangeSource, early: EarlyRead[]): RangeSource {
  return {
    size: () => source.size(),
    read: (offset, length, signal) => {
      const at = early.findIndex((read) => read.offset === offset && read.length === length);
      if (at < 0) return source.read(offset, length, signal);
      const [read] = early.splice(at, 1);
      return (read as EarlyRead).bytes;
    },
    ...(source.stream ? { stream: source.stream.bind(source) } : {}),
  };
}

/** Options of {@link openMediaRandomAccess}: the reads' retry policy and deadlines, and what the message says. */
export interface OpenMediaRandomAccessOptions extends StoreRangeSourceOptions {
  /** The source is one fixed URL, which names one attachment only: media in parts is refused with advice. */
  fixedUrl?: boolean;
  /**
   * The plaintext size the message states (`toMediaRequest(message).size`), when it does: opening then
   * asks the header and the final chunk at once without asking the store the stored size first (one round
   * trip instead of two for media in one attachment). Media of another size is refused.
   */
  size?: number;
}

/**
 * Random access to the media under `ref`, in one attachment or in parts: the header tells which; media
 * in parts is opened through the view of its parts, so a range read fetches only the parts it lies in
 * (plus, at open, the header in part 0 and the final chunk in the last part, as for any blob).
 *
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a blob or manifest that does not authenticate
 *   under `ref`, an impossible length, or a plaintext size other than `options.size`.
 * @throws {StorageError} as the store's reads.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a `size` that is not a non-negative integer.
 * @example
 * ```ts
 * const request = toMediaRequest(message);
 * const reader = await openMediaRandomAccess(store, request.ref, blobKey, { size: request.size });
 * const bytes = await reader.read(offset, length);
 * ```
 */
export async function openMediaRandomAccess(
  store: ReadableBlobStore,
  ref: string,
  blobKey: Uint8Array,
  options: OpenMediaRandomAccessOptions = {},
): Promise<BlobReader> {
  const { size: statedSize, fixedUrl, ...reads } = options;
  const stated =
    statedSize === undefined ? undefined : ciphertextSize(assertNonNegativeInteger(statedSize, 'size'));
  // With a stated size nothing asks the stored size: the store's first answer that tells it (an HTTP
  // 206's Content-Range total) is kept, so a manifest is read at that size without a `head`. Later reads
  // go to the store as they are.
  let answered: number | undefined;
  const source =
    stated === undefined
      ? storeRangeSource(store, ref, reads)
      : storeRangeSource(
          notingStoredSize(store, (bytes) => {
            answered ??= bytes;
          }),
          ref,
          { ...reads, storedSize: stated },
        );
  const size = await source.size();
  const layout = blobLayout(size);
  if (layout === undefined) throw new DecryptionError();
  const headerRead = source.read(0, BLOB_HEADER_SIZE);
  headerRead.catch(() => undefined); // awaited below
  // The final chunk is asked beside the header, as if the ref held the blob the size says (it usually
  // does): opening then waits for one round trip, not two. For a manifest the read is let go of, unused.
  const finalRead = new AbortController();
  const final = { offset: chunkOffset(layout.finalIndex), length: layout.finalSealedSize };
  const finalChunk = {
    ...final,
    bytes:
      stated === undefined
        ? source.read(final.offset, final.length, finalRead.signal)
        : readStatedFinalChunk(store, ref, source, reads, {
            ...final,
            storedSize: stated,
            signal: finalRead.signal,
            // Only a blob's failed read is worth a question: a manifest's is let go of anyway.
            isBlob: () =>
              headerRead.then(
                (header) => storedMediaForm(blobKey, header, ref) === 'blob',
                () => false,
              ),
          }),
  };
  finalChunk.bytes.catch(() => undefined); // met by the open below, or given up
  let header: Uint8Array;
  let blob: StoredMediaBlob;
  try {
    header = await headerRead;
    if (header.length !== BLOB_HEADER_SIZE) throw new DecryptionError();
    blob = await resolveStoredMedia(store, ref, blobKey, header, {
      ...reads,
      ...(fixedUrl === undefined ? {} : { fixedUrl }),
      // The stated size is the media's, not a manifest's: that is the size the store's answer told.
      ...(stated === undefined
        ? { manifestSize: size }
        : answered === undefined
          ? {}
          : { manifestSize: answered }),
    });
  } catch (error) {
    finalRead.abort();
    throw error;
  }
  if (!blob.parted) {
    const early = [{ offset: 0, length: BLOB_HEADER_SIZE, bytes: Promise.resolve(header) }, finalChunk];
    return openBlobRandomAccess(withEarlyReads(source, early), blobKey, { context: blob.context });
  }
  finalRead.abort();
  // The message is authenticated by its envelope, the manifest under the ref: they must agree.
  if (statedSize !== undefined && statedSize !== blob.parted.manifest.plaintextSize)
    throw new DecryptionError();
  return openBlobRandomAccess(storeRangeSource(blob.store, ref, reads), blobKey, { context: blob.context });
}

/**
 * `store`, telling `note` the stored size its answers state (an HTTP 206's Content-Range total) until
 * one has: later reads go to the store as they are.
 */
function notingStoredSize(store: ReadableBlobStore, note: (bytes: number) => void): ReadableBlobStore {
  let told = false;
  return {
    head: (r) => store.head(r),
    get: (r, range, getOptions) =>
      told
        ? store.get(r, range, getOptions)
        : store.get(r, range, {
            ...getOptions,
            onSize: (bytes) => {
              told = true;
              note(bytes);
              getOptions?.onSize?.(bytes);
            },
          }),
  };
}

/**
 * The final chunk of a blob whose stored size the message states, read once, with no retry: a store that
 * holds fewer bytes answers a range past its end with an error, which is not a dropped connection to wait
 * and retry for. When that read fails and the header shows a blob, the store is asked its size: another
 * size than stated is a blob the message does not describe (`ERR_DECRYPTION_FAILED`); the same size, a
 * dropped read, read again with the caller's retries.
 */
async function readStatedFinalChunk(
  store: ReadableBlobStore,
  ref: string,
  source: RangeSource,
  reads: StoreRangeSourceOptions,
  final: {
    offset: number;
    length: number;
    storedSize: number;
    signal: AbortSignal;
    isBlob: () => Promise<boolean>;
  },
): Promise<Uint8Array> {
  const { offset, length, storedSize, signal } = final;
  const once = storeRangeSource(store, ref, { ...reads, retries: 0, storedSize });
  try {
    return await once.read(offset, length, signal);
  } catch (error) {
    if (signal.aborted || !(await final.isBlob())) throw error;
    if ((await headWithRetries(store, ref, { ...reads, signal })) !== storedSize) throw new DecryptionError();
    return source.read(offset, length, signal);
  }
}

/**
 * The plaintext size of the media under `ref`, in one attachment or in parts, before anything is
 * downloaded (for a size check: a cache budget, a disk's free space). Read from the stored size, the
 * header and a manifest's stated size; nothing is decrypted but the manifest, so the download still
 * authenticates the size. With `format: 'v1'` (Happy's whole-blob attachment) it is the stored size less
 * the secretbox's overhead, refused above Happy's attachment cap as every playback path refuses it.
 *
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for an impossible length or a header of neither form.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a v1 blob over Happy's attachment cap.
 * @throws {StorageError} as the store's reads.
 * @example
 * ```ts
 * const request = toMediaRequest(message);
 * const size = request.size ?? (await storedMediaSize(store, request.ref, blobKey, { format: request.format }));
 * ```
 */
export async function storedMediaSize(
  store: ReadableBlobStore,
  ref: string,
  blobKey: Uint8Array,
  options: StoredMediaOptions & { format?: 'v2' | 'v1' } = {},
): Promise<number> {
  const size = await headWithRetries(store, ref, options);
  if (options.format === 'v1') return expectedPlaintextSize({ ref, kind: 'ref', format: 'v1' }, size);
  const layout = blobLayout(size);
  if (layout === undefined) throw new DecryptionError();
  const header = await readStoreRange(store, ref, 0, BLOB_HEADER_SIZE, options);
  const blob = await resolveStoredMedia(store, ref, blobKey, header, { ...options, manifestSize: size });
  return blob.parted ? blob.parted.manifest.plaintextSize : layout.plaintextSize;
}
