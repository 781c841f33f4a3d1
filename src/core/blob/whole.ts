/**
 * Whole-buffer helpers (`encryptBlob`, `decryptBlob`), on the same engine as the streams.
 *
 * @module
 */
import { assertBytes } from '../bytes.js';
import { DecryptionError } from '../errors.js';
import type { BlobOptions } from './format.js';
import { blobLayout, ciphertextSize } from './sizes.js';
import { BlobDecryptor, BlobEncryptor, type BlobEngine, pumpEngine } from './stream.js';

/** Piece size the whole-buffer helpers feed their engine with (bounds the engine's working memory). */
const WHOLE_PIECE_BYTES = 1024 * 1024;

/**
 * Runs `engine` over a whole buffer into one array of `outputSize` bytes, the only large allocation: the
 * input is fed in 1 MiB views and each output piece copied into place as it comes. On a failure the
 * bytes already written are wiped (decrypted plaintext never outlives a failed decryption).
 */
async function runWhole(engine: BlobEngine, input: Uint8Array, outputSize: number): Promise<Uint8Array> {
  const out = new Uint8Array(outputSize);
  let at = 0;
  function* pieces() {
    for (let i = 0; i < input.length; i += WHOLE_PIECE_BYTES) yield input.subarray(i, i + WHOLE_PIECE_BYTES);
  }
  try {
    await pumpEngine(pieces(), engine, (piece) => {
      out.set(piece, at);
      at += piece.length;
    });
  } catch (error) {
    out.fill(0, 0, at);
    throw error;
  }
  return out;
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
 * const blob = await encryptBlob(bytes, blobKey, { context: mediaBlobContext(ref) });
 * ```
 */
export async function encryptBlob(
  plaintext: Uint8Array,
  key: Uint8Array,
  options: BlobOptions,
): Promise<Uint8Array> {
  assertBytes(plaintext, 'plaintext');
  return encryptWhole(new BlobEncryptor(key, options), plaintext);
}

/** Runs a prepared encryptor over a whole buffer (shared with the test-only fixed-salt helper). */
export function encryptWhole(encryptor: BlobEncryptor, plaintext: Uint8Array): Promise<Uint8Array> {
  return runWhole(encryptor, plaintext, ciphertextSize(plaintext.length));
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
 * const bytes = await decryptBlob(blob, blobKey, { context: mediaBlobContext(ref) });
 * ```
 */
export async function decryptBlob(
  ciphertext: Uint8Array,
  key: Uint8Array,
  options: BlobOptions,
): Promise<Uint8Array> {
  assertBytes(ciphertext, 'ciphertext');
  const decryptor = new BlobDecryptor(key, options);
  // A length no blob can have is a truncated or extended blob: inauthentic, whatever its chunks hold.
  const layout = blobLayout(ciphertext.length);
  if (layout === undefined) throw new DecryptionError();
  return runWhole(decryptor, ciphertext, layout.plaintextSize);
}
