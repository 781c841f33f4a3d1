/**
 * Web Streams over the engines: `createEncryptStream` / `createDecryptStream`.
 *
 * @module
 */
import { BlobDecryptor } from './decryptor.js';
import { BlobEncryptor } from './encryptor.js';
import { engineStream } from './engine.js';
import type { BlobOptions } from './options.js';

/**
 * A `TransformStream` that encrypts plaintext into a Cobblestone-256 blob: the 56-byte header first,
 * then each 16 KiB chunk as soon as it is complete (it buffers at most one chunk). The output length is
 * exactly `ciphertextSize(input length)`.
 *
 * @param key 32-byte blob key.
 * @throws {InvalidArgumentError} at once for a key that is not 32 bytes or bad options; through the
 * stream, `LimitError` past `maxPlaintextBytes`.
 * @example
 * ```ts
 * const encrypted = file.stream().pipeThrough(createEncryptStream(blobKey, { context: mediaBlobContext(ref) }));
 * await upload(encrypted, ciphertextSize(file.size));
 * ```
 */
export function createEncryptStream(
  key: Uint8Array,
  options: BlobOptions,
): TransformStream<Uint8Array, Uint8Array> {
  return engineStream(new BlobEncryptor(key, options));
}

/**
 * A `TransformStream` that decrypts a Cobblestone-256 blob. It checks the key commitment before any
 * chunk, emits a chunk's plaintext only after its tag verified, and errors with `DecryptionError`
 * (`ERR_DECRYPTION_FAILED`) on any wrong key or context, modification, truncation, reordering or trailing
 * data. The readable side may have emitted the verified chunks before the failing one: a consumer that
 * needs all-or-nothing must hold the output until the stream ends (as `decryptFile` does).
 *
 * @param key 32-byte blob key.
 * @throws {InvalidArgumentError} at once for a key that is not 32 bytes or bad options; through the
 * stream, `DecryptionError` or `LimitError` (past `maxPlaintextBytes`).
 * @example
 * ```ts
 * const plain = response.body!.pipeThrough(createDecryptStream(blobKey, { context: mediaBlobContext(ref) }));
 * ```
 */
export function createDecryptStream(
  key: Uint8Array,
  options: BlobOptions,
): TransformStream<Uint8Array, Uint8Array> {
  return engineStream(new BlobDecryptor(key, options));
}
