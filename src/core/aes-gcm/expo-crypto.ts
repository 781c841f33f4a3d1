/**
 * AES-256-GCM over expo-crypto (SDK ≥ 55): native AES-GCM on iOS and Android (CryptoKit, javax.crypto),
 * `crypto.subtle` on the web, with binary input and a caller-chosen nonce. Asynchronous: one native call
 * per piece, so the blob engine puts many in flight. The app passes its `expo-crypto` module in
 * (`import * as ExpoCrypto from 'expo-crypto'`); the library never imports it.
 *
 * Each seal is `aesEncryptAsync` then `ciphertext({ includeTag: true })` (expo returns a sealed-data
 * object, not bytes); each open is `AESSealedData.fromCombined(nonce || sealed)` then `aesDecryptAsync`.
 * The `nonce || sealed` arrays are reused once their call settled: expo's sealed data wants its bytes
 * joined (its `fromParts` joins them into a fresh array per call), and on the web a fresh array per
 * 16 KiB chunk costs the main thread more than the copy itself (docs/playback.md, "Speed of the
 * asynchronous engine").
 *
 * @module
 */
import { DecryptionError, InternalError, InvalidArgumentError } from '../errors.js';
import { AES_GCM_TAG_BYTES, type AsyncAesGcm } from './aes-gcm.js';

/** What expo-crypto's `aesEncryptAsync` resolves to (its `AESSealedData`), as far as it is used. */
export interface ExpoCryptoSealedData {
  ciphertext(options: { includeTag: boolean }): Promise<Uint8Array | string>;
}

/**
 * The part of `expo-crypto` (≥ 55) this implementation calls, typed structurally and generic in the
 * module's own key and sealed-data classes (so the real module's types fit).
 */
export interface ExpoCryptoAes<Key = unknown, Sealed extends ExpoCryptoSealedData = ExpoCryptoSealedData> {
  AESEncryptionKey: { import(input: Uint8Array): Promise<Key> };
  AESSealedData: { fromCombined(combined: Uint8Array, config: { ivLength: number; tagLength: 16 }): Sealed };
  aesEncryptAsync(
    plaintext: Uint8Array,
    key: Key,
    options: { nonce: { bytes: Uint8Array }; tagLength?: 16 },
  ): Promise<Sealed>;
  aesDecryptAsync(sealed: Sealed, key: Key, options: { output: 'bytes' }): Promise<Uint8Array>;
}

/** Most arrays kept for reuse: a batch's worth of chunks in flight. */
const SPARE_ARRAYS = 64;
/** Longest array kept for reuse (a sealed blob chunk and its nonce fit; a long message is not kept). */
const SPARE_MAX_BYTES = 64 * 1024;

/**
 * Arrays of one length handed back after use, for the next call of that length: the blob's sealed chunks
 * all have one length (but the final one), so a steady stream of opens allocates nothing. Each array is
 * exactly the length asked (expo's web `fromCombined` reads the whole `ArrayBuffer`, not the view).
 */
class SpareArrays {
  #length = 0;
  readonly #arrays: Uint8Array[] = [];

  take(length: number): Uint8Array {
    return (length === this.#length ? this.#arrays.pop() : undefined) ?? new Uint8Array(length);
  }

  give(array: Uint8Array): void {
    if (array.length > SPARE_MAX_BYTES) return;
    if (array.length !== this.#length) {
      // An array of another length (a blob's short final chunk) does not displace the kept ones: the next
      // blob's chunks have their length again, and a new array costs more than its copy (Chromium).
      if (this.#arrays.length > 0) return;
      this.#length = array.length;
    }
    if (this.#arrays.length < SPARE_ARRAYS) this.#arrays.push(array);
  }
}

/** Options of {@link expoCryptoAesGcm}. */
export interface ExpoCryptoAesGcmOptions {
  /** Name for diagnostics and benchmarks (default `expo-crypto`). */
  name?: string;
}

/**
 * The AES-256-GCM of expo-crypto (asynchronous). Install it once at the app's start; blobs and the
 * `...Async` envelope functions then use it, byte-identical to every other implementation.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` at once when `module` lacks `AESEncryptionKey`,
 *   `AESSealedData`, `aesEncryptAsync` or `aesDecryptAsync` (expo-crypto before SDK 55).
 * @example
 * ```ts
 * import * as ExpoCrypto from 'expo-crypto';
 * import { installRuntime } from 'happy-media';
 * import { expoCryptoAesGcm } from 'happy-media/expo';
 * installRuntime({ aesGcm: expoCryptoAesGcm(ExpoCrypto) });
 * ```
 */
export function expoCryptoAesGcm<Key, Sealed extends ExpoCryptoSealedData>(
  module: ExpoCryptoAes<Key, Sealed>,
  options: ExpoCryptoAesGcmOptions = {},
): AsyncAesGcm<Key> {
  const m = module as Partial<ExpoCryptoAes<Key, Sealed>> | null;
  if (
    typeof m !== 'object' ||
    m === null ||
    typeof m.AESEncryptionKey?.import !== 'function' ||
    typeof m.AESSealedData?.fromCombined !== 'function' ||
    typeof m.aesEncryptAsync !== 'function' ||
    typeof m.aesDecryptAsync !== 'function'
  ) {
    throw new InvalidArgumentError(
      "expected expo-crypto's module (≥ 55: AESEncryptionKey, AESSealedData.fromCombined, aesEncryptAsync, aesDecryptAsync) for `module`",
    );
  }
  const name = options.name ?? 'expo-crypto';
  const spare = new SpareArrays();
  return Object.freeze({
    name,
    mode: 'async',
    // No input is copied, the key included: the seam's callers keep the key bytes unchanged while they use
    // the prepared key (theirs is a private copy), and nonces and data until the call settled, however
    // late the native side reads them.
    importKey: (key: Uint8Array) => module.AESEncryptionKey.import(key),
    async seal(key: Key, nonce: Uint8Array, plaintext: Uint8Array) {
      const sealed = await module.aesEncryptAsync(plaintext, key, {
        nonce: { bytes: nonce },
        tagLength: AES_GCM_TAG_BYTES,
      });
      const bytes = await sealed.ciphertext({ includeTag: true });
      if (!(bytes instanceof Uint8Array) || bytes.length !== plaintext.length + AES_GCM_TAG_BYTES) {
        throw new InternalError('expo-crypto returned an unexpected ciphertext length');
      }
      return bytes;
    },
    async open(key: Key, nonce: Uint8Array, sealed: Uint8Array) {
      if (sealed.length < AES_GCM_TAG_BYTES) throw new DecryptionError();
      const combined = spare.take(nonce.length + sealed.length);
      combined.set(nonce);
      combined.set(sealed, nonce.length);
      let plaintext: Uint8Array;
      try {
        const data = module.AESSealedData.fromCombined(combined, {
          ivLength: nonce.length,
          tagLength: AES_GCM_TAG_BYTES,
        });
        plaintext = await module.aesDecryptAsync(data, key, { output: 'bytes' });
      } catch {
        // Every authentication failure is the same error, whatever expo's platform said.
        throw new DecryptionError();
      } finally {
        // Settled: expo is done with it (it holds only public bytes, the nonce and the ciphertext).
        spare.give(combined);
      }
      if (!(plaintext instanceof Uint8Array) || plaintext.length !== sealed.length - AES_GCM_TAG_BYTES) {
        throw new DecryptionError();
      }
      return plaintext;
    },
  });
}
