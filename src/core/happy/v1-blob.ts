/**
 * Happy's v1 attachment blob: a whole file sealed at once with NaCl secretbox, no version, no chunking,
 * the same `[ nonce 24 | tag 16 | ciphertext n ]` record as a legacy record (envelope/secretbox.ts) under
 * a blob key: the master blob key (legacy sessions) or the session blob key (dataKey sessions); see
 * {@link masterBlobKey} and {@link sessionBlobKey}. The format Happy's app opens without v2; new media use the
 * chunked v2 format, and v1 stays readable and writable for the app. A v1 blob is at most Happy's
 * attachment cap (attachment-limit.ts).
 *
 * @module
 */

import type { EncryptOptions } from '../envelope/nonce.js';
import { openSecretboxRecord, sealSecretboxRecord } from '../envelope/secretbox.js';

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
