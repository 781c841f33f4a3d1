/**
 * Happy's v1 attachment blob: the whole file sealed at once with NaCl secretbox.
 *
 * ```
 * [ nonce 24 | tag 16 | ciphertext n ]     overhead 40, no version, no chunking
 * ```
 * The key is the master blob key (legacy sessions) or the session blob key (dataKey sessions); see
 * {@link masterBlobKey} and {@link sessionBlobKey}. New media use the chunked v2 format; v1 stays readable
 * and writable for old clients.
 *
 * @module
 */
import { openSecretboxRecord, sealSecretboxRecord } from './_secretbox-record.js';
import type { EncryptOptions } from './nonce.js';

/**
 * Encrypts a whole attachment as a v1 blob.
 *
 * @param key - the 32-byte master or session blob key.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `key` is not 32 bytes or `nonce` not 24.
 * @example
 * ```ts
 * const blob = encryptV1Blob(fileBytes, sessionBlobKey(sessionDataKey));
 * ```
 */
export function encryptV1Blob(
  plaintext: Uint8Array,
  key: Uint8Array,
  options: EncryptOptions = {},
): Uint8Array {
  return sealSecretboxRecord(plaintext, key, 'key', options.nonce);
}

/**
 * Decrypts a v1 blob. Returns the bytes only if the whole blob authenticates.
 *
 * @throws {FormatError} `ERR_FORMAT` when shorter than 40 bytes.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `key` is not 32 bytes.
 */
export function decryptV1Blob(blob: Uint8Array, key: Uint8Array): Uint8Array {
  return openSecretboxRecord(blob, key, 'key', 'blob', 'v1 blob layout');
}
