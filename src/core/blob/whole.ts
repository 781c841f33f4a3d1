/**
 * Whole-buffer helpers, on the same engines as the streams.
 *
 * @module
 */
import { assertBytes } from '../bytes.js';
import { BlobDecryptor } from './decryptor.js';
import { BlobEncryptor } from './encryptor.js';
import type { BlobOptions } from './options.js';
import { ciphertextSize } from './sizes.js';

/** Copies pieces into one array of the given size. */
function collect(pieces: readonly Uint8Array[], out: Uint8Array, at: number): number {
  let position = at;
  for (const p of pieces) {
    out.set(p, position);
    position += p.length;
  }
  return position;
}

/**
 * Encrypts a whole buffer into a Cobblestone-256 blob of exactly `ciphertextSize(plaintext.length)` bytes.
 *
 * @param plaintext the data (any view; it is not modified).
 * @param key 32-byte blob key.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad key, plaintext or option.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` past `maxPlaintextBytes`.
 * @example
 * ```ts
 * const blob = await encryptBlob(bytes, blobKey);
 * ```
 */
export async function encryptBlob(
  plaintext: Uint8Array,
  key: Uint8Array,
  options?: BlobOptions,
): Promise<Uint8Array> {
  assertBytes(plaintext, 'plaintext');
  return encryptWhole(new BlobEncryptor(key, options), plaintext);
}

/** Runs a prepared encryptor over a whole buffer (shared with the test-only fixed-salt helper). */
export async function encryptWhole(encryptor: BlobEncryptor, plaintext: Uint8Array): Promise<Uint8Array> {
  const out = new Uint8Array(ciphertextSize(plaintext.length));
  let at = collect([await encryptor.start()], out, 0);
  at = collect(await encryptor.push(plaintext), out, at);
  collect(await encryptor.finish(), out, at);
  return out;
}

/**
 * Decrypts a whole Cobblestone-256 blob. Returns the plaintext only if every chunk verified.
 *
 * @param ciphertext the blob (any view; it is not modified).
 * @param key 32-byte blob key.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or context, any modification,
 * truncation, reordering or trailing data (one error for all).
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` past `maxPlaintextBytes`.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad key or option.
 * @example
 * ```ts
 * const bytes = await decryptBlob(blob, blobKey);
 * ```
 */
export async function decryptBlob(
  ciphertext: Uint8Array,
  key: Uint8Array,
  options?: BlobOptions,
): Promise<Uint8Array> {
  assertBytes(ciphertext, 'ciphertext');
  const decryptor = new BlobDecryptor(key, options);
  const pieces = [...(await decryptor.push(ciphertext)), ...(await decryptor.finish())];
  const out = new Uint8Array(decryptor.plaintextBytes);
  collect(pieces, out, 0);
  return out;
}
