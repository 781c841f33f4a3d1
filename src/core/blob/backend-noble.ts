/**
 * The pure-JavaScript backend: @noble/ciphers AES-256-GCM. Slow (~60 MB/s) but runs everywhere,
 * including React Native without a WebCrypto polyfill.
 *
 * @module
 */
import { gcm } from '@noble/ciphers/aes.js';
import { DecryptionError } from '../errors.js';
import type { BlobBackend, ChunkCipher } from './backend.js';
import { concatChunks } from './concat-chunks.js';
import { BLOB_NONCE_SIZE } from './constants.js';
import { chunkNonceInto } from './key-schedule.js';

/** Pure-JS chunk cipher over @noble/ciphers `gcm`. */
class NobleChunkCipher implements ChunkCipher {
  readonly #key: Uint8Array;
  readonly #baseNonce: Uint8Array;

  constructor(aeadKey: Uint8Array, baseNonce: Uint8Array) {
    this.#key = aeadKey.slice();
    this.#baseNonce = baseNonce.slice();
  }

  seal(first: number, plaintexts: readonly Uint8Array[]): Uint8Array {
    return concatChunks(
      plaintexts.map((p, i) =>
        gcm(this.#key, chunkNonceInto(this.#baseNonce, first + i, new Uint8Array(BLOB_NONCE_SIZE))).encrypt(
          p,
        ),
      ),
    );
  }

  open(first: number, sealed: readonly Uint8Array[]): Uint8Array {
    const out: Uint8Array[] = [];
    for (let i = 0; i < sealed.length; i++) {
      const nonce = chunkNonceInto(this.#baseNonce, first + i, new Uint8Array(BLOB_NONCE_SIZE));
      try {
        out.push(gcm(this.#key, nonce).decrypt(sealed[i] as Uint8Array));
      } catch (cause) {
        throw new DecryptionError({ cause });
      }
    }
    return concatChunks(out);
  }
}

/** The `noble` backend (pure JS, universal). */
export const nobleBlobBackend: BlobBackend = {
  name: 'noble',
  createChunkCipher: (aeadKey, baseNonce) => new NobleChunkCipher(aeadKey, baseNonce),
};
