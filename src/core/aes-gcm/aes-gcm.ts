/**
 * The one AES-256-GCM seam of the library: 32-byte key, 12-byte nonce, 16-byte tag appended to the
 * ciphertext, no AAD. Envelopes (the dataKey variant) and blobs (each Cobblestone chunk) both call it, so
 * an implementation written once serves both, and every implementation gives the same bytes.
 *
 * An implementation is either synchronous (`mode: 'sync'`: @noble/ciphers, node:crypto,
 * react-native-quick-crypto) or asynchronous (`mode: 'async'`: WebCrypto, expo-crypto), so a caller can
 * branch on `mode` once and never await a synchronous one. A key is prepared once (`importKey`: WebCrypto
 * and expo-crypto turn raw bytes into a key object) and then used for many `seal`/`open` calls.
 *
 * @module
 */
import { InvalidArgumentError } from '../errors.js';

/** Key length of AES-256-GCM in bytes. */
export const AES_GCM_KEY_BYTES = 32;
/** Nonce length every caller of the seam uses, in bytes. */
export const AES_GCM_NONCE_BYTES = 12;
/** Tag length, appended to the ciphertext, in bytes. */
export const AES_GCM_TAG_BYTES = 16;

/**
 * A synchronous AES-256-GCM. Every method returns before its inputs change again, so it must not keep
 * `key` bytes, `nonce`, `plaintext` or `sealed` past the call.
 *
 * @typeParam K - what {@link SyncAesGcm.importKey} prepares (the key bytes, a native key object, ...).
 */
export interface SyncAesGcm<K = unknown> {
  /** Short name for diagnostics and benchmarks (`noble`, `node`, `quick-crypto`, ...). */
  readonly name: string;
  /** Synchronous: results are returned, not promised. */
  readonly mode: 'sync';
  /**
   * Prepares a 32-byte key for many calls. The result may go on reading `key`'s bytes (node:crypto and noble
   * take raw bytes in every call, so theirs is `key` itself: no copy per envelope): the caller keeps them
   * unchanged for as long as it uses the result.
   */
  importKey(key: Uint8Array): K;
  /** Encrypts; returns `ciphertext | tag` (`plaintext.length + 16` bytes) in an array of its own. */
  seal(key: K, nonce: Uint8Array, plaintext: Uint8Array): Uint8Array;
  /**
   * Decrypts `ciphertext | tag`; returns the plaintext in an array of its own, only when the tag verified.
   *
   * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when it did not (or `sealed` is shorter than a tag).
   */
  open(key: K, nonce: Uint8Array, sealed: Uint8Array): Uint8Array;
  /**
   * Optional fast path: {@link SyncAesGcm.seal} written into `out` from `at` on, so a caller assembling a
   * record or a batch of chunks saves an allocation and a copy. It must write every one of the
   * `plaintext.length + 16` bytes: `out` may hold other bytes of the process (an uninitialised array).
   */
  sealInto?(key: K, nonce: Uint8Array, plaintext: Uint8Array, out: Uint8Array, at: number): void;
  /**
   * Optional fast path: {@link SyncAesGcm.open} written into `out` from `at` on (`sealed.length - 16`
   * bytes). It should write only once the tag verified (node:crypto's does): random access may open chunks
   * straight into a caller's array. When it throws, the caller wipes what it wrote there and releases none
   * of it.
   *
   * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when the tag does not verify.
   */
  openInto?(key: K, nonce: Uint8Array, sealed: Uint8Array, out: Uint8Array, at: number): void;
}

/**
 * An asynchronous AES-256-GCM (WebCrypto, expo-crypto): one promise per piece. Callers put many calls in
 * flight before awaiting any, and keep every input unchanged until its promise settled (an implementation
 * may read them late). Results must not share memory with the inputs.
 *
 * @typeParam K - what {@link AsyncAesGcm.importKey} prepares (a `CryptoKey`, an expo `AESEncryptionKey`).
 */
export interface AsyncAesGcm<K = unknown> {
  /** Short name for diagnostics and benchmarks (`webcrypto`, `expo`, ...). */
  readonly name: string;
  /** Asynchronous: results are promised. */
  readonly mode: 'async';
  /**
   * Prepares a 32-byte key for many calls. As for {@link SyncAesGcm.importKey}, the result may go on
   * reading `key`'s bytes; the caller keeps them unchanged for as long as it uses the result.
   */
  importKey(key: Uint8Array): Promise<K>;
  /** Encrypts; resolves to `ciphertext | tag` (`plaintext.length + 16` bytes). */
  seal(key: K, nonce: Uint8Array, plaintext: Uint8Array): Promise<Uint8Array>;
  /**
   * Decrypts `ciphertext | tag`; resolves to the plaintext only when the tag verified.
   *
   * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` (as a rejection) when it did not.
   */
  open(key: K, nonce: Uint8Array, sealed: Uint8Array): Promise<Uint8Array>;
}

/**
 * An AES-256-GCM implementation, synchronous or asynchronous (branch on `mode`). Built in:
 * `nobleAesGcm` (pure JS, everywhere), `webCryptoAesGcm` (`crypto.subtle`), `cipherModuleAesGcm(module)`
 * (node:crypto's Cipher API: `nodeAesGcm` in Node, react-native-quick-crypto in an app).
 *
 * @example
 * ```ts
 * const aes: AesGcm = nobleAesGcm;
 * if (aes.mode === 'sync') {
 *   const key = aes.importKey(keyBytes);
 *   const sealed = aes.seal(key, nonce, plaintext); // no promise
 * }
 * ```
 */
export type AesGcm<K = unknown> = SyncAesGcm<K> | AsyncAesGcm<K>;

/**
 * Checks that `value` looks like an {@link AesGcm} (a name, a `mode`, the three methods) and returns it.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` naming `name` otherwise.
 */
export function assertAesGcm(value: unknown, name: string): AesGcm {
  const candidate = value as Partial<Record<keyof SyncAesGcm, unknown>> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.name !== 'string' ||
    (candidate.mode !== 'sync' && candidate.mode !== 'async') ||
    typeof candidate.importKey !== 'function' ||
    typeof candidate.seal !== 'function' ||
    typeof candidate.open !== 'function'
  ) {
    throw new InvalidArgumentError(
      `expected an AesGcm (name, mode 'sync' or 'async', importKey(), seal(), open()) for \`${name}\``,
    );
  }
  return value as AesGcm;
}
