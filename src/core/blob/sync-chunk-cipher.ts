/**
 * The chunk driver of a synchronous AES-GCM (node:crypto, react-native-quick-crypto, noble): a batch of up
 * to 64 chunks is one call and one output array, each chunk sealed or opened straight into its place where
 * the implementation can (`sealInto`/`openInto`), so the per-chunk cost is the cipher's own calls: no
 * promise, no intermediate array, no join.
 *
 * @module
 */
import type { SyncAesGcm } from '../aes-gcm/aes-gcm.js';
import { DecryptionError, InternalError } from '../errors.js';
import type { ChunkCipher } from './chunk-cipher.js';
import { BLOB_NONCE_SIZE, BLOB_TAG_SIZE } from './constants.js';
import { chunkNonceInto } from './key-schedule.js';

/** Chunk cipher over a {@link SyncAesGcm}. */
export class SyncChunkCipher implements ChunkCipher {
  readonly #aes: SyncAesGcm;
  readonly #key: unknown;
  readonly #baseNonce: Uint8Array;
  /** One nonce array for every chunk: a synchronous implementation is done with it when it returns. */
  readonly #nonce = new Uint8Array(BLOB_NONCE_SIZE);
  /** The runtime's output arrays (maybe not zero-filled: every byte is written before one is returned). */
  readonly #output: (length: number) => Uint8Array;

  constructor(aes: SyncAesGcm, key: unknown, baseNonce: Uint8Array, output: (length: number) => Uint8Array) {
    this.#aes = aes;
    this.#key = key;
    this.#baseNonce = baseNonce.slice();
    this.#output = output;
  }

  seal(first: number, plaintexts: readonly Uint8Array[]): Uint8Array {
    const aes = this.#aes;
    let total = 0;
    for (const p of plaintexts) total += p.length + BLOB_TAG_SIZE;
    const out = this.#output(total);
    let at = 0;
    for (let i = 0; i < plaintexts.length; i++) {
      const plaintext = plaintexts[i] as Uint8Array;
      const nonce = chunkNonceInto(this.#baseNonce, first + i, this.#nonce);
      if (aes.sealInto) aes.sealInto(this.#key, nonce, plaintext, out, at);
      else {
        const sealed = aes.seal(this.#key, nonce, plaintext);
        // Every byte of a possibly uninitialised array must be written (never hand out stale memory).
        if (sealed.length !== plaintext.length + BLOB_TAG_SIZE) {
          throw new InternalError('the AES-GCM implementation returned an unexpected ciphertext length');
        }
        out.set(sealed, at);
      }
      at += plaintext.length + BLOB_TAG_SIZE;
    }
    return out;
  }

  open(first: number, sealed: readonly Uint8Array[]): Uint8Array {
    const aes = this.#aes;
    let total = 0;
    for (const s of sealed) {
      if (s.length < BLOB_TAG_SIZE) throw new DecryptionError();
      total += s.length - BLOB_TAG_SIZE;
    }
    const out = this.#output(total);
    let at = 0;
    try {
      for (let i = 0; i < sealed.length; i++) {
        const chunk = sealed[i] as Uint8Array;
        const nonce = chunkNonceInto(this.#baseNonce, first + i, this.#nonce);
        if (aes.openInto) aes.openInto(this.#key, nonce, chunk, out, at);
        else {
          const plain = aes.open(this.#key, nonce, chunk);
          if (plain.length !== chunk.length - BLOB_TAG_SIZE) throw new DecryptionError();
          out.set(plain, at);
        }
        at += chunk.length - BLOB_TAG_SIZE;
      }
    } catch (error) {
      // A tag failed: what the batch wrote is wiped and none of it is returned. A chunk index past the
      // format's limit (LimitError) cannot be authentic either; every failure is the one error.
      out.fill(0);
      if (error instanceof DecryptionError) throw error;
      throw new DecryptionError();
    }
    return out;
  }
}
