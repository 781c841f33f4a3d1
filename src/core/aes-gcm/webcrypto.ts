/**
 * AES-256-GCM over WebCrypto (`crypto.subtle`): native speed in browsers, Node and Deno, asynchronous (one
 * promise per piece). The key is imported once as a non-extractable `CryptoKey`.
 *
 * @module
 */
import { DecryptionError, InvalidArgumentError } from '../errors.js';
import { AES_GCM_TAG_BYTES, type AsyncAesGcm } from './aes-gcm.js';

/** AES-GCM tag length in bits, as WebCrypto takes it. */
const TAG_BITS = AES_GCM_TAG_BYTES * 8;

/** WebCrypto wants `ArrayBuffer`-backed views; ours may sit on any buffer, so copy only when needed. */
function asBufferSource(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer
    ? (bytes as Uint8Array<ArrayBuffer>)
    : (new Uint8Array(bytes) as Uint8Array<ArrayBuffer>);
}

/** `crypto.subtle`, or a clear error where this runtime has none (bare React Native). */
function subtle(): SubtleCrypto {
  const found = globalThis.crypto?.subtle;
  if (typeof found?.encrypt !== 'function') {
    throw new InvalidArgumentError(
      'expected crypto.subtle for webCryptoAesGcm but this runtime has none; use nobleAesGcm or a native AesGcm',
    );
  }
  return found;
}

const toBytes = (buffer: ArrayBuffer): Uint8Array => new Uint8Array(buffer);

/** WebCrypto's OperationError for a bad tag becomes the same error as every other authentication failure. */
const refuse = (): never => {
  throw new DecryptionError();
};

/**
 * One parameters object for every decryption, pointed at each call's nonce just before the call: WebCrypto
 * reads (normalizes, copying the nonce) the algorithm when called, and reusing the object saves part of
 * each call's cost in Chromium. An implementation that read it late could only see a wrong nonce,
 * and a tag that fails. Sealing makes one object per call instead: a nonce read late there would be reused.
 */
const openParams: AesGcmParams = { name: 'AES-GCM', iv: new Uint8Array(12), tagLength: TAG_BITS };

/**
 * The WebCrypto AES-256-GCM (`name: 'webcrypto'`, asynchronous). In Chromium each call costs the main
 * thread a fixed time whatever its size (docs/blob-format.md), so callers put many calls in flight before awaiting any (the blob
 * engine puts a batch of 64 chunks).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` (from `importKey`) where `crypto.subtle` is missing.
 * @example
 * ```ts
 * const blob = await encryptBlob(bytes, blobKey, { aesGcm: webCryptoAesGcm });
 * ```
 */
export const webCryptoAesGcm: AsyncAesGcm<CryptoKey> = Object.freeze({
  name: 'webcrypto',
  mode: 'async',
  importKey: async (key: Uint8Array) =>
    subtle().importKey('raw', asBufferSource(key), 'AES-GCM', false, ['encrypt', 'decrypt']),
  // No async wrapper around the calls (one promise less per piece); the key exists, so crypto.subtle does.
  seal(key: CryptoKey, nonce: Uint8Array, plaintext: Uint8Array) {
    const params: AesGcmParams = { name: 'AES-GCM', iv: asBufferSource(nonce), tagLength: TAG_BITS };
    return globalThis.crypto.subtle.encrypt(params, key, asBufferSource(plaintext)).then(toBytes);
  },
  open(key: CryptoKey, nonce: Uint8Array, sealed: Uint8Array) {
    openParams.iv = asBufferSource(nonce);
    return globalThis.crypto.subtle.decrypt(openParams, key, asBufferSource(sealed)).then(toBytes, refuse);
  },
} as const);
