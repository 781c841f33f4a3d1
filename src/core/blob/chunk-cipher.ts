/**
 * What the blob engines call to seal and open chunks: a {@link ChunkCipher} for one message (one AEAD key,
 * one base nonce) over the runtime's AES-256-GCM. Everything else (key schedule, commitment, framing,
 * final-chunk rules) lives in the engines, so every AES-GCM implementation produces byte-identical blobs.
 *
 * One driver per calling convention of the {@link AesGcm} seam, sharing the per-chunk rules (each chunk's
 * nonce, the lengths a result must have, one `DecryptionError` for every failure, nothing of a batch
 * released unless all of it verified):
 * - synchronous (node:crypto, react-native-quick-crypto, noble): a batch is one call and one output array,
 *   each chunk sealed or opened straight into its place where the implementation can (`sealInto`,
 *   `openInto`): no promise, no intermediate array, no join;
 * - asynchronous (WebCrypto, expo-crypto): one call per chunk, every call of a batch made before any is
 *   awaited, so an implementation that works off the calling thread runs them while the caller goes on;
 *   each chunk's array is handed on as the implementation made it (`sealChunks`, `openChunks`).
 *
 * @module
 */
import type { AesGcm, AsyncAesGcm, SyncAesGcm } from '../aes-gcm/aes-gcm.js';
import { joinBytes } from '../bytes.js';
import { DecryptionError, InternalError } from '../errors.js';
import { getRuntime } from '../runtime/runtime.js';
import { BLOB_BATCH_CHUNKS, BLOB_NONCE_SIZE, BLOB_TAG_SIZE, chunkNonceInto } from './format.js';

/**
 * Seals and opens the chunks of one message. Chunk `i`'s nonce is {@link chunkNonceInto} (base nonce XOR
 * big-endian `i`), the AAD empty, the 16-byte tag appended to the ciphertext.
 */
export interface ChunkCipher {
  /**
   * Seals consecutive chunks `first`, `first + 1`, ...; returns `ciphertext || tag` of each, concatenated
   * in order into one array (so the engine emits a batch without copying it again).
   * Returned arrays (here and in every method below) must not share memory with the inputs: the engines'
   * callers reuse their input buffers once a push settled.
   *
   * @throws {LimitError} when an index reaches 2^38.
   */
  seal(first: number, plaintexts: readonly Uint8Array[]): Uint8Array | Promise<Uint8Array>;
  /**
   * Optional: seals like {@link ChunkCipher.seal} but gives each chunk's `ciphertext || tag` as its own
   * array, in order (see {@link ChunkCipher.openChunks} for why).
   *
   * @throws {LimitError} when an index reaches 2^38.
   */
  sealChunks?(first: number, plaintexts: readonly Uint8Array[]): Uint8Array[] | Promise<Uint8Array[]>;
  /**
   * Opens consecutive chunks `first`, `first + 1`, ... (`ciphertext || tag` each); returns their
   * plaintexts concatenated in order, and only when every tag in the batch verified: never unverified
   * bytes.
   *
   * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when any tag fails.
   */
  open(first: number, sealed: readonly Uint8Array[]): Uint8Array | Promise<Uint8Array>;
  /**
   * Optional: opens like {@link ChunkCipher.open} but gives each chunk's plaintext as its own array, in
   * order, for an implementation whose primitive already returns one fresh array per chunk (WebCrypto,
   * expo-crypto). The streaming engine then emits (or copies into place) those arrays instead of a batch
   * joined first: joining costs a fresh allocation and a copy per batch, a large share of a browser's main
   * thread (docs/blob-format.md). Same guarantee as `open`: nothing unless every tag in the batch verified.
   *
   * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when any tag fails.
   */
  openChunks?(first: number, sealed: readonly Uint8Array[]): Uint8Array[] | Promise<Uint8Array[]>;
  /**
   * Opens like {@link ChunkCipher.open} but writes the plaintexts, in order, into `out` from `at` on,
   * instead of into an array of its own: random access decrypts a range straight into its result. `out`
   * may be the array the chunks are views of, as long as each chunk's plaintext lands at or before its
   * ciphertext (decryption in place: every chunk is read whole before its plaintext is written). On any
   * failure what it wrote there is wiped, and the bytes from `at` on are not to be used.
   *
   * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when any tag fails.
   */
  openInto(first: number, sealed: readonly Uint8Array[], out: Uint8Array, at: number): void | Promise<void>;
}

/**
 * The chunk cipher of one message over `aes`: the AEAD key is prepared once here (`importKey`) from a private
 * copy that lives as long as the cipher, and the driver follows `aes.mode`. `aeadKey` (32 bytes) may be
 * wiped once this returned or settled. `output` gives the arrays the synchronous driver's batches go into
 * (default: the runtime's fresh ones; every byte of one is written before it is returned).
 */
export function createChunkCipher(
  aes: SyncAesGcm,
  aeadKey: Uint8Array,
  baseNonce: Uint8Array,
  output?: (length: number) => Uint8Array,
): SyncChunkCipher;
export function createChunkCipher(
  aes: AesGcm,
  aeadKey: Uint8Array,
  baseNonce: Uint8Array,
  output?: (length: number) => Uint8Array,
): ChunkCipher | Promise<ChunkCipher>;
export function createChunkCipher(
  aes: AesGcm,
  aeadKey: Uint8Array,
  baseNonce: Uint8Array,
  output: (length: number) => Uint8Array = getRuntime().alloc.output,
): ChunkCipher | Promise<ChunkCipher> {
  if (aes.mode === 'sync') {
    return new SyncChunkCipher(aes, aes.importKey(aeadKey.slice()), baseNonce, output);
  }
  return aes.importKey(aeadKey.slice()).then((key) => new AsyncChunkCipher(aes, key, baseNonce));
}

// ---------------------------------------------------------------------------------------------------------
// The per-chunk rules both drivers follow.

/** Plaintext bytes of a sealed chunk; one shorter than a tag cannot be authentic. */
function openedLength(sealed: Uint8Array): number {
  if (sealed.length < BLOB_TAG_SIZE) throw new DecryptionError();
  return sealed.length - BLOB_TAG_SIZE;
}

/** An implementation's sealed chunk must be exactly `plaintext || tag` long (its bytes are handed on as they are). */
function checkSealedLength(sealed: Uint8Array | undefined, plaintext: Uint8Array): void {
  if (sealed?.length !== plaintext.length + BLOB_TAG_SIZE) {
    throw new InternalError('the AES-GCM implementation returned an unexpected ciphertext length');
  }
}

/**
 * Every failure while opening (a tag, a length, a chunk index past the format's limit, whatever an
 * implementation threw) is the one authentication error, without cause.
 */
function openFailed(error: unknown): DecryptionError {
  return error instanceof DecryptionError ? error : new DecryptionError();
}

// ---------------------------------------------------------------------------------------------------------
// The synchronous driver.

/** Chunk cipher over a {@link SyncAesGcm}: a batch is one call and one output array. */
export class SyncChunkCipher implements ChunkCipher {
  readonly #aes: SyncAesGcm;
  readonly #key: unknown;
  readonly #baseNonce: Uint8Array;
  /** One nonce array for every chunk: a synchronous implementation is done with it when it returns. */
  readonly #nonce = new Uint8Array(BLOB_NONCE_SIZE);
  /** The runtime's output arrays (maybe not zero-filled: every byte is written before one is returned). */
  readonly #output: (length: number) => Uint8Array;

  constructor(aes: SyncAesGcm, key: unknown, baseNonce: Uint8Array, output: (length: number) => Uint8Array) {
    this.#aes = aes;
    this.#key = key;
    this.#baseNonce = baseNonce.slice();
    this.#output = output;
  }

  seal(first: number, plaintexts: readonly Uint8Array[]): Uint8Array {
    const aes = this.#aes;
    let total = 0;
    for (const p of plaintexts) total += p.length + BLOB_TAG_SIZE;
    const out = this.#output(total);
    let at = 0;
    for (let i = 0; i < plaintexts.length; i++) {
      const plaintext = plaintexts[i] as Uint8Array;
      const nonce = chunkNonceInto(this.#baseNonce, first + i, this.#nonce);
      if (aes.sealInto) aes.sealInto(this.#key, nonce, plaintext, out, at);
      else {
        const sealed = aes.seal(this.#key, nonce, plaintext);
        // Every byte of a possibly uninitialised array must be written (never hand out stale memory).
        checkSealedLength(sealed, plaintext);
        out.set(sealed, at);
      }
      at += plaintext.length + BLOB_TAG_SIZE;
    }
    return out;
  }

  open(first: number, sealed: readonly Uint8Array[]): Uint8Array {
    let total = 0;
    for (const s of sealed) total += openedLength(s);
    const out = this.#output(total);
    this.openInto(first, sealed, out, 0);
    return out;
  }

  openInto(first: number, sealed: readonly Uint8Array[], out: Uint8Array, at: number): void {
    const aes = this.#aes;
    let total = 0;
    for (const s of sealed) total += openedLength(s);
    let to = at;
    try {
      for (let i = 0; i < sealed.length; i++) {
        const chunk = sealed[i] as Uint8Array;
        const nonce = chunkNonceInto(this.#baseNonce, first + i, this.#nonce);
        // In place (the chunk is a view of `out`), the result is copied after the call returned: the seam
        // does not promise that an `openInto` reads all of its input before it writes.
        if (aes.openInto && chunk.buffer !== out.buffer) aes.openInto(this.#key, nonce, chunk, out, to);
        else {
          const plain = aes.open(this.#key, nonce, chunk);
          if (plain.length !== chunk.length - BLOB_TAG_SIZE) throw new DecryptionError();
          out.set(plain, to);
        }
        to += chunk.length - BLOB_TAG_SIZE;
      }
    } catch (error) {
      // What the batch wrote is unverified or beside a chunk that failed: wiped, none of it released.
      out.fill(0, at, at + total);
      throw openFailed(error);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// The asynchronous driver.

/**
 * The nonces of chunks `first`, `first + 1`, ...: views of one array per batch (one allocation, not one
 * per chunk). None is written again once made, so a nonce cannot change under a call, however late an
 * implementation reads it.
 */
function chunkNonces(
  baseNonce: Uint8Array,
  first: number,
  count: number,
  nonces: Uint8Array = new Uint8Array(count * BLOB_NONCE_SIZE),
): Uint8Array[] {
  const views: Uint8Array[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const view = nonces.subarray(i * BLOB_NONCE_SIZE, (i + 1) * BLOB_NONCE_SIZE);
    chunkNonceInto(baseNonce, first + i, view);
    views[i] = view;
  }
  return views;
}

/**
 * Calls or batches already started when a later one was refused: their outcome no longer matters, nor is
 * it released, and it must not surface as an unhandled rejection.
 */
export function abandon(started: readonly unknown[]): void {
  for (const call of started) (call as Partial<Promise<unknown>> | undefined)?.catch?.(() => undefined);
}

/** Nonce arrays an asynchronous chunk cipher keeps at most: about as many batches as are in flight at once. */
const FREE_NONCE_ARRAYS = 32;

/** Joins a batch's per-chunk results; one chunk is already a fresh array of the caller's. */
function joinChunks(parts: readonly Uint8Array[]): Uint8Array {
  return parts.length === 1 ? (parts[0] as Uint8Array) : joinBytes(parts);
}

/** Chunk cipher over an {@link AsyncAesGcm}: one call per chunk, all of a batch in flight at once. */
class AsyncChunkCipher implements ChunkCipher {
  readonly #aes: AsyncAesGcm;
  readonly #key: unknown;
  readonly #baseNonce: Uint8Array;
  /** Nonce arrays of batches whose calls all settled, for the next batches (see `openChunks`). */
  readonly #freeNonces: Uint8Array[] = [];

  constructor(aes: AsyncAesGcm, key: unknown, baseNonce: Uint8Array) {
    this.#aes = aes;
    this.#key = key;
    this.#baseNonce = baseNonce.slice();
  }

  async seal(first: number, plaintexts: readonly Uint8Array[]): Promise<Uint8Array> {
    return joinChunks(await this.sealChunks(first, plaintexts));
  }

  async sealChunks(first: number, plaintexts: readonly Uint8Array[]): Promise<Uint8Array[]> {
    const nonces = chunkNonces(this.#baseNonce, first, plaintexts.length);
    const sealing: Promise<Uint8Array>[] = new Array(plaintexts.length);
    try {
      for (let i = 0; i < plaintexts.length; i++) {
        sealing[i] = this.#aes.seal(this.#key, nonces[i] as Uint8Array, plaintexts[i] as Uint8Array);
      }
    } catch (error) {
      abandon(sealing);
      throw error;
    }
    const sealed = await Promise.all(sealing);
    for (let i = 0; i < sealed.length; i++) checkSealedLength(sealed[i], plaintexts[i] as Uint8Array);
    return sealed;
  }

  async open(first: number, sealed: readonly Uint8Array[]): Promise<Uint8Array> {
    return joinChunks(await this.openChunks(first, sealed));
  }

  async openInto(first: number, sealed: readonly Uint8Array[], out: Uint8Array, at: number): Promise<void> {
    // Every call of the batch settled before the first write, so decryption in place is safe.
    let to = at;
    for (const plain of await this.openChunks(first, sealed)) {
      out.set(plain, to);
      to += plain.length;
    }
  }

  async openChunks(first: number, sealed: readonly Uint8Array[]): Promise<Uint8Array[]> {
    for (const s of sealed) openedLength(s);
    // The nonces go into an array used again once every call of its batch settled (a call may read its
    // nonce until then): a new small array per batch cost more than the rest of the batch's bookkeeping
    // in Chromium (its views move it out of V8's heap, a fresh allocation each time).
    const spare = sealed.length <= BLOB_BATCH_CHUNKS ? this.#freeNonces.pop() : undefined;
    const buffer = spare ?? new Uint8Array(Math.max(BLOB_BATCH_CHUNKS, sealed.length) * BLOB_NONCE_SIZE);
    const nonces = chunkNonces(this.#baseNonce, first, sealed.length, buffer);
    const opening: Promise<Uint8Array>[] = new Array(sealed.length);
    let opened: Uint8Array[];
    try {
      for (let i = 0; i < sealed.length; i++) {
        opening[i] = this.#aes.open(this.#key, nonces[i] as Uint8Array, sealed[i] as Uint8Array);
      }
      opened = await Promise.all(opening);
    } catch (error) {
      // A tag failed (or a call threw): nothing of the batch is returned, whatever else verified. Calls
      // still running may read their nonces: the array is not used again.
      abandon(opening);
      throw openFailed(error);
    }
    if (
      this.#freeNonces.length < FREE_NONCE_ARRAYS &&
      buffer.length === BLOB_BATCH_CHUNKS * BLOB_NONCE_SIZE
    ) {
      this.#freeNonces.push(buffer);
    }
    for (let i = 0; i < opened.length; i++) {
      if (opened[i]?.length !== (sealed[i] as Uint8Array).length - BLOB_TAG_SIZE) {
        for (const plain of opened) plain.fill(0);
        throw new DecryptionError();
      }
    }
    return opened;
  }
}
