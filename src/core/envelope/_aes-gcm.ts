/**
 * The one module that touches @noble/ciphers: AES-256-GCM with a 12-byte nonce, a 16-byte tag and no
 * AAD, as Happy's dataKey variant uses it. Pure JS (about 60 MB/s here), which is plenty for messages;
 * bulk media goes through the chunked blob format and its node:crypto backend instead.
 *
 * Internal: not exported from the package.
 *
 * @module
 */
import { gcm } from '@noble/ciphers/aes.js';
import { DecryptionError } from '../errors.js';

/** Encrypts; returns `ciphertext | tag 16`. */
export function aesGcmSeal(plaintext: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array {
  return gcm(key, nonce).encrypt(plaintext);
}

/**
 * Decrypts `ciphertext | tag 16`; nothing is returned unless the tag verifies.
 *
 * @throws {DecryptionError} when the tag does not verify. noble's own error is dropped on purpose, so
 * that every authentication failure of every variant is the same error, cause and all.
 */
export function aesGcmOpen(sealed: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array {
  try {
    return gcm(key, nonce).decrypt(sealed);
  } catch {
    throw new DecryptionError();
  }
}
