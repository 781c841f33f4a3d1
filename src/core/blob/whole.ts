/**
 * Whole-buffer helpers, on the same engines as the streams.
 *
 * @module
 */
import { assertBytes } from '../bytes.js';
import { DecryptionError } from '../errors.js';
import { BlobDecryptor } from './decryptor.js';
import { BlobEncryptor } from './encryptor.js';
import type { BlobOptions } from './options.js';
import { blobLayout, ciphertextSize } from './sizes.js';

/** Piece size the whole-buffer helpers feed their engine with (bounds the engine's working memory). */
const WHOLE_PIECE_BYTES = 1024 * 1024;

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

/**
 * Runs a prepared encryptor over a whole buffer (shared with the test-only fixed-salt helper). The input
 * is fed in 1 MiB pieces and each sealed batch copied into place at once, so the only large allocation
 * is the result.
 */
export async function encryptWhole(encryptor: BlobEncryptor, plaintext: Uint8Array): Promise<Uint8Array> {
  const out = new Uint8Array(ciphertextSize(plaintext.length));
  let at = collect([await encryptor.start()], out, 0);
  for (let i = 0; i < plaintext.length; i += WHOLE_PIECE_BYTES) {
    at = collect(await encryptor.push(plaintext.subarray(i, i + WHOLE_PIECE_BYTES)), out, at);
  }
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
  const out = new Uint8Array(layout.plaintextSize);
  let at = 0;
  const take = (pieces: Uint8Array[]) => {
    for (const piece of pieces) {
      out.set(piece, at);
      at += piece.length;
    }
  };
  try {
    for (let i = 0; i < ciphertext.length; i += WHOLE_PIECE_BYTES) {
      take(await decryptor.push(ciphertext.subarray(i, i + WHOLE_PIECE_BYTES)));
    }
    take(await decryptor.finish());
  } catch (error) {
    out.fill(0, 0, at);
    throw error;
  }
  return out;
}
