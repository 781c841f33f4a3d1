/**
 * The legacy variant: NaCl secretbox (XSalsa20-Poly1305) under the account master secret.
 *
 * ```
 * [ nonce 24 | tag 16 | ciphertext n ]     overhead 40, no version byte
 * ```
 * A legacy record has no version byte: it is recognised by its session having no data key.
 *
 * @module
 */
import { openSecretboxRecord, sealSecretboxRecord } from './_secretbox-record.js';
import type { EncryptOptions } from './nonce.js';

/**
 * Encrypts raw bytes in the legacy layout.
 *
 * @param plaintext - the bytes to seal (Happy seals `UTF-8(JSON.stringify(value))`; see {@link encryptJson}).
 * @param secret - the 32-byte account master secret.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `secret` is not 32 bytes or `nonce` not 24.
 * @example
 * ```ts
 * const record = encryptLegacy(utf8('{"hello":"world"}'), masterSecret);
 * record.length; // 17 + 40
 * ```
 */
export function encryptLegacy(
  plaintext: Uint8Array,
  secret: Uint8Array,
  options: EncryptOptions = {},
): Uint8Array {
  return sealSecretboxRecord(plaintext, secret, 'secret', options.nonce);
}

/**
 * Decrypts a legacy record. Returns the plaintext only if the whole record authenticates.
 *
 * @throws {FormatError} `ERR_FORMAT` when shorter than 40 bytes.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `secret` is not 32 bytes.
 */
export function decryptLegacy(bytes: Uint8Array, secret: Uint8Array): Uint8Array {
  return openSecretboxRecord(bytes, secret, 'secret', 'bytes', 'legacy layout');
}
