/**
 * Byte layouts of Happy's encrypted values, as named constants, so no offset is a magic number.
 *
 * ```
 * legacy (secretbox)   [ nonce 24 | tag 16 | ciphertext n ]                   overhead 40
 * dataKey (AES-GCM)    [ version 0x00 | nonce 12 | ciphertext n | tag 16 ]     overhead 29
 * data-key bundle      [ version 0x00 | ephemeral pk 32 | nonce 24 | tag 16 | box(data key 32) ]  105 bytes
 * v1 attachment blob   [ nonce 24 | tag 16 | ciphertext n ]                    overhead 40
 * ```
 *
 * @module
 */
import { assertNonNegativeInteger } from '../bytes.js';

/** Length of every symmetric key here (legacy secret, data key, blob keys, X25519 keys). */
export const KEY_BYTES = 32;

/** Nonce length of NaCl secretbox and box (XSalsa20). */
export const SECRETBOX_NONCE_BYTES = 24;
/** Poly1305 tag length of NaCl secretbox and box. */
export const SECRETBOX_TAG_BYTES = 16;
/** Bytes a legacy record or v1 blob adds to its plaintext: nonce 24 + tag 16. */
export const LEGACY_OVERHEAD_BYTES = SECRETBOX_NONCE_BYTES + SECRETBOX_TAG_BYTES;

/** The only version byte of the dataKey layout and of the data-key bundle. */
export const DATA_KEY_FORMAT_VERSION = 0x00;
/** AES-256-GCM nonce length in the dataKey layout. */
export const DATA_KEY_NONCE_BYTES = 12;
/** AES-256-GCM tag length in the dataKey layout. */
export const DATA_KEY_TAG_BYTES = 16;
/** Bytes a dataKey record adds to its plaintext: version 1 + nonce 12 + tag 16. */
export const DATA_KEY_OVERHEAD_BYTES = 1 + DATA_KEY_NONCE_BYTES + DATA_KEY_TAG_BYTES;

/** X25519 public key length. */
export const PUBLIC_KEY_BYTES = 32;
/** Bytes a public-key box adds to its plaintext: ephemeral public key 32 + nonce 24 + tag 16. */
export const PUBLIC_KEY_BOX_OVERHEAD_BYTES = PUBLIC_KEY_BYTES + SECRETBOX_NONCE_BYTES + SECRETBOX_TAG_BYTES;
/** Exact length of a data-key bundle: version 1 + box overhead 72 + data key 32 = 105. */
export const DATA_KEY_BUNDLE_BYTES = 1 + PUBLIC_KEY_BOX_OVERHEAD_BYTES + KEY_BYTES;

/**
 * Size of a legacy record (or v1 blob) for a plaintext of `plaintextBytes` bytes.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless a non-negative integer.
 *
 * @example
 * ```ts
 * legacyCiphertextSize(17); // 57
 * ```
 */
export function legacyCiphertextSize(plaintextBytes: number): number {
  return assertNonNegativeInteger(plaintextBytes, 'plaintextBytes') + LEGACY_OVERHEAD_BYTES;
}

/**
 * Size of a dataKey record for a plaintext of `plaintextBytes` bytes.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless a non-negative integer.
 *
 * @example
 * ```ts
 * dataKeyCiphertextSize(17); // 46
 * ```
 */
export function dataKeyCiphertextSize(plaintextBytes: number): number {
  return assertNonNegativeInteger(plaintextBytes, 'plaintextBytes') + DATA_KEY_OVERHEAD_BYTES;
}
