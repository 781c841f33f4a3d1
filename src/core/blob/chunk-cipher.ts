/**
 * What the blob engines call to seal and open chunks: a {@link ChunkCipher} for one message (one AEAD key,
 * one base nonce), made from the runtime's AES-256-GCM by one of two drivers. Everything else (key
 * schedule, commitment, framing, final-chunk rules) lives in the shared engine, so every AES-GCM
 * implementation produces byte-identical blobs.
 *
 * - a synchronous implementation gets `sync-chunk-cipher.ts`: a batch of chunks is one call and one output
 *   array, with no promise per chunk;
 * - an asynchronous one gets `async-chunk-cipher.ts`: every call of a batch is in flight before any is
 *   awaited, and each chunk's array is handed on as it came.
 *
 * @module
 */
import type { AesGcm, SyncAesGcm } from '../aes-gcm/aes-gcm.js';
import { getRuntime } from '../runtime/runtime.js';
import { AsyncChunkCipher } from './async-chunk-cipher.js';
import { SyncChunkCipher } from './sync-chunk-cipher.js';

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
}

/**
 * The chunk cipher of one message over `aes`: the AEAD key is prepared once here (`importKey`) from a private
 * copy that lives as long as the cipher, and the driver follows `aes.mode`. `aeadKey` (32 bytes) may be
 * wiped once this returned or settled.
 */
export function createChunkCipher(
  aes: SyncAesGcm,
  aeadKey: Uint8Array,
  baseNonce: Uint8Array,
): SyncChunkCipher;
export function createChunkCipher(
  aes: AesGcm,
  aeadKey: Uint8Array,
  baseNonce: Uint8Array,
): ChunkCipher | Promise<ChunkCipher>;
export function createChunkCipher(
  aes: AesGcm,
  aeadKey: Uint8Array,
  baseNonce: Uint8Array,
): ChunkCipher | Promise<ChunkCipher> {
  if (aes.mode === 'sync') {
    return new SyncChunkCipher(aes, aes.importKey(aeadKey.slice()), baseNonce, getRuntime().alloc.output);
  }
  return aes.importKey(aeadKey.slice()).then((key) => new AsyncChunkCipher(aes, key, baseNonce));
}
