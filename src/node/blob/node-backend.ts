/**
 * The `node` backend: node:crypto AES-256-GCM (OpenSSL, AES-NI), one cipher object per chunk.
 *
 * GCM cannot restart a cipher with a new nonce, so each chunk costs a `createCipheriv` (and `update`,
 * `final`, `getAuthTag` allocate per chunk). That per-chunk floor is 0.54–0.63 of one streaming cipher on
 * cache-resident data and above it on large data; a worker thread sharing each batch measured slower on
 * this loaded 2-core machine (docs/blob-format.md, "Streaming encrypt against one cipher").
 *
 * @module
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { BlobBackend, ChunkCipher } from '../../core/blob/backend.js';
import { BLOB_NONCE_SIZE, BLOB_TAG_SIZE } from '../../core/blob/constants.js';
import { chunkNonceInto } from '../../core/blob/key-schedule.js';
import { DecryptionError } from '../../core/errors.js';

const AES_256_GCM = 'aes-256-gcm';

/** Cipher options shared by every chunk (no object allocated per chunk). */
const TAG_OPTIONS = Object.freeze({ authTagLength: BLOB_TAG_SIZE });

/**
 * A plain `Uint8Array` of `size` bytes over its own `ArrayBuffer`, not zero-filled: the batch output is
 * written in full before anyone sees it, so zeroing it first is wasted work (a megabyte per batch). Its own
 * buffer (not Node's shared pool) so a consumer that keeps or transfers `.buffer` sees nothing else; a plain
 * `Uint8Array` (not a `Buffer`) so `.slice()` copies as callers expect.
 */
function uninitialisedBytes(size: number): Uint8Array {
  const buffer = Buffer.allocUnsafeSlow(size);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

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
    const out = uninitialisedBytes(total);
    let at = 0;
    for (let i = 0; i < plaintexts.length; i++) {
      const cipher = createCipheriv(
        AES_256_GCM,
        this.#key,
        chunkNonceInto(this.#baseNonce, first + i, this.#nonce),
        TAG_OPTIONS,
      );
      const body = cipher.update(plaintexts[i] as Uint8Array);
      out.set(body, at);
      at += body.length;
      // GCM is a stream mode: final() adds no bytes, but it must run before the tag exists.
      const rest = cipher.final();
      if (rest.length > 0) {
        out.set(rest, at);
        at += rest.length;
      }
      out.set(cipher.getAuthTag(), at);
      at += BLOB_TAG_SIZE;
    }
    // Every byte of the uninitialised array must have been written (never hand out stale memory).
    if (at !== total) throw new Error('node:crypto AES-GCM returned an unexpected ciphertext length');
    return out;
  }

  open(first: number, sealed: readonly Uint8Array[]): Uint8Array {
    let total = 0;
    for (const s of sealed) {
      if (s.length < BLOB_TAG_SIZE) throw new DecryptionError();
      total += s.length - BLOB_TAG_SIZE;
    }
    const out = uninitialisedBytes(total);
    let at = 0;
    for (let i = 0; i < sealed.length; i++) {
      const chunk = sealed[i] as Uint8Array;
      const bodyLength = chunk.length - BLOB_TAG_SIZE;
      const decipher = createDecipheriv(
        AES_256_GCM,
        this.#key,
        chunkNonceInto(this.#baseNonce, first + i, this.#nonce),
        TAG_OPTIONS,
      );
      decipher.setAuthTag(chunk.subarray(bodyLength));
      const body = decipher.update(chunk.subarray(0, bodyLength));
      out.set(body, at);
      at += body.length;
      try {
        // Throws on a bad tag; then nothing of the batch is returned and the buffer is wiped.
        const rest = decipher.final();
        if (rest.length > 0) {
          out.set(rest, at);
          at += rest.length;
        }
      } catch (cause) {
        out.fill(0);
        throw new DecryptionError({ cause });
      }
    }
    if (at !== total) {
      out.fill(0);
      throw new DecryptionError();
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
