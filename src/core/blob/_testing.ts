/**
 * Test-only entry points, deliberately NOT re-exported by the public index: a fixed-salt encryptor for
 * frozen vectors (a repeated salt would repeat nonces, so it must never reach applications) and C2SP's
 * raw mode (chunks without a header, from a given AEAD key and base nonce).
 *
 * @internal
 * @module
 */
import type { BlobOptions } from './format.js';
import { BlobDecryptor, BlobEncryptor, engineStream } from './stream.js';
import { encryptWhole } from './whole.js';

/** Encrypts with a fixed 24-byte salt (tests only). */
export function encryptBlobWithSalt(
  plaintext: Uint8Array,
  key: Uint8Array,
  salt: Uint8Array,
  options: BlobOptions,
): Promise<Uint8Array> {
  return encryptWhole(new BlobEncryptor(key, options, { salt }), plaintext);
}

/** An encrypting TransformStream with a fixed salt (tests only). */
export function createEncryptStreamWithSalt(
  key: Uint8Array,
  salt: Uint8Array,
  options: BlobOptions,
): TransformStream<Uint8Array, Uint8Array> {
  return engineStream(new BlobEncryptor(key, options, { salt }));
}

/**
 * Raw mode: a decryptor for the chunk sequence (no header) under an already derived key and nonce.
 * Drive it with `push()`/`finish()` like the normal engine.
 */
export function createRawDecryptor(
  aeadKey: Uint8Array,
  baseNonce: Uint8Array,
  options: BlobOptions,
): BlobDecryptor {
  // The input key is unused in raw mode but still validated by the engine; pass a dummy of the right size.
  return new BlobDecryptor(new Uint8Array(32), options, { raw: { aeadKey, baseNonce } });
}
