/**
 * Which AES-256-GCM implementation the dataKey variant uses. The universal default is @noble/ciphers
 * (pure JS, about 60 MB/s here, synchronous); `happy-media/node` installs node:crypto (OpenSSL, AES-NI)
 * on import. Every implementation produces identical bytes, which the tests check with fixed nonces.
 *
 * The seam is synchronous on purpose: the envelope API is synchronous, and WebCrypto (async only) would
 * force every caller to await for messages of a few kilobytes.
 *
 * @module
 */
import { gcm } from '@noble/ciphers/aes.js';
import { DecryptionError, InvalidArgumentError } from '../errors.js';

/** A synchronous AES-256-GCM with a 12-byte nonce, a 16-byte tag appended, and no AAD. */
export interface EnvelopeAesGcm {
  /** Short name for diagnostics and benchmarks, e.g. `noble` or `node`. */
  readonly name: string;
  /** Encrypts; returns `ciphertext | tag 16`. */
  seal(plaintext: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array;
  /**
   * Optional: encrypts into `out` from `at` on (`ciphertext | tag 16`, `plaintext.length + 16` bytes), so
   * the dataKey record is assembled in one array instead of copied out of a second one. It must write
   * every one of those bytes: `out` may be a scratch array holding other bytes of the process.
   */
  sealInto?(plaintext: Uint8Array, nonce: Uint8Array, key: Uint8Array, out: Uint8Array, at: number): void;
  /**
   * Decrypts `ciphertext | tag 16`; returns nothing unless the tag verifies.
   *
   * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when it does not.
   */
  open(sealed: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array;
}

/** The universal implementation, over @noble/ciphers. */
export const nobleEnvelopeAesGcm: EnvelopeAesGcm = {
  name: 'noble',
  seal: (plaintext, nonce, key) => gcm(key, nonce).encrypt(plaintext),
  open: (sealed, nonce, key) => {
    try {
      return gcm(key, nonce).decrypt(sealed);
    } catch {
      // noble's error is dropped on purpose: every authentication failure is the same error.
      throw new DecryptionError();
    }
  },
};

let current: EnvelopeAesGcm = nobleEnvelopeAesGcm;

/**
 * Installs the AES-256-GCM implementation of the dataKey variant (`happy-media/node` installs
 * node:crypto on import). It must produce the same bytes as {@link nobleEnvelopeAesGcm}.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `implementation` lacks `seal`/`open`.
 * @example
 * ```ts
 * setEnvelopeAesGcm(nobleEnvelopeAesGcm); // force pure JS, e.g. for a cross-check
 * ```
 */
export function setEnvelopeAesGcm(implementation: EnvelopeAesGcm): void {
  if (
    typeof implementation !== 'object' ||
    implementation === null ||
    typeof implementation.seal !== 'function' ||
    typeof implementation.open !== 'function' ||
    typeof implementation.name !== 'string'
  ) {
    throw new InvalidArgumentError(
      'expected an EnvelopeAesGcm with name, seal() and open() for `implementation`',
    );
  }
  current = implementation;
}

/** The AES-256-GCM implementation the dataKey variant uses now. */
export function getEnvelopeAesGcm(): EnvelopeAesGcm {
  return current;
}
