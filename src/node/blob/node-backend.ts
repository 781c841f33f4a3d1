/**
 * The `node` backend: node:crypto AES-256-GCM (OpenSSL, AES-NI), one cipher object per chunk.
 *
 * GCM cannot restart a cipher with a new nonce, so each chunk costs a `createCipheriv`; measured here that
 * keeps ~75–85 % of one streaming cipher's throughput (docs/blob-format.md), above the 50 % target, so
 * no worker threads: on a 2-core machine shared with I/O they would not pay.
 *
 * @module
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { BlobBackend, ChunkCipher } from '../../core/blob/backend.js';
import { BLOB_NONCE_SIZE, BLOB_TAG_SIZE } from '../../core/blob/constants.js';
import { chunkNonceInto } from '../../core/blob/key-schedule.js';
import { DecryptionError } from '../../core/errors.js';

/** Chunk cipher over node:crypto. Synchronous: no promise per chunk on the hot path. */
class NodeChunkCipher implements ChunkCipher {
  readonly #key: Uint8Array;
  readonly #baseNonce: Uint8Array;
  readonly #nonce = new Uint8Array(BLOB_NONCE_SIZE);

  constructor(aeadKey: Uint8Array, baseNonce: Uint8Array) {
    this.#key = aeadKey.slice();
    this.#baseNonce = baseNonce.slice();
  }

  seal(first: number, plaintexts: readonly Uint8Array[]): Uint8Array {
    let total = 0;
    for (const p of plaintexts) total += p.length + BLOB_TAG_SIZE;
    // One output array per batch: each chunk's ciphertext and tag are copied straight into place.
    const out = new Uint8Array(total);
    let at = 0;
    for (let i = 0; i < plaintexts.length; i++) {
      const plaintext = plaintexts[i] as Uint8Array;
      const cipher = createCipheriv(
        'aes-256-gcm',
        this.#key,
        chunkNonceInto(this.#baseNonce, first + i, this.#nonce),
        {
          authTagLength: BLOB_TAG_SIZE,
        },
      );
      const body = cipher.update(plaintext);
      out.set(body, at);
      // GCM is a stream mode: final() adds no bytes, but it must run before the tag exists.
      const rest = cipher.final();
      out.set(rest, at + body.length);
      at += plaintext.length;
      out.set(cipher.getAuthTag(), at);
      at += BLOB_TAG_SIZE;
    }
    return out;
  }

  open(first: number, sealed: readonly Uint8Array[]): Uint8Array {
    let total = 0;
    for (const s of sealed) {
      if (s.length < BLOB_TAG_SIZE) throw new DecryptionError();
      total += s.length - BLOB_TAG_SIZE;
    }
    const out = new Uint8Array(total);
    let at = 0;
    for (let i = 0; i < sealed.length; i++) {
      const chunk = sealed[i] as Uint8Array;
      const bodyLength = chunk.length - BLOB_TAG_SIZE;
      const decipher = createDecipheriv(
        'aes-256-gcm',
        this.#key,
        chunkNonceInto(this.#baseNonce, first + i, this.#nonce),
        { authTagLength: BLOB_TAG_SIZE },
      );
      decipher.setAuthTag(chunk.subarray(bodyLength));
      out.set(decipher.update(chunk.subarray(0, bodyLength)), at);
      try {
        // Throws on a bad tag; then nothing of the batch is returned and the buffer is wiped.
        decipher.final();
      } catch (cause) {
        out.fill(0);
        throw new DecryptionError({ cause });
      }
      at += bodyLength;
    }
    return out;
  }
}

/**
 * The node:crypto backend. `happy-media/node` registers it on import, which makes it the automatic
 * choice in Node.
 *
 * @example
 * ```ts
 * import { encryptBlob } from 'happy-media/node'; // node backend registered
 * await encryptBlob(bytes, key, { backend: 'node' });
 * ```
 */
export const nodeBlobBackend: BlobBackend = {
  name: 'node',
  createChunkCipher: (aeadKey, baseNonce) => new NodeChunkCipher(aeadKey, baseNonce),
};
