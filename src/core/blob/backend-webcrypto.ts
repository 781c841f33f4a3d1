/**
 * The WebCrypto backend: `crypto.subtle` AES-GCM, native speed in browsers. Each batch's chunks are
 * submitted together, so an implementation that works off the main thread (Node's does) runs them in
 * parallel.
 *
 * @module
 */
import { DecryptionError } from '../errors.js';
import type { BlobBackend, ChunkCipher } from './backend.js';
import { concatChunks } from './concat-chunks.js';
import { BLOB_NONCE_SIZE, BLOB_TAG_SIZE } from './constants.js';
import { chunkNonceInto } from './key-schedule.js';

/** WebCrypto wants `ArrayBuffer`-backed views; ours may sit on any buffer, so copy only when needed. */
function asBufferSource(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer
    ? (bytes as Uint8Array<ArrayBuffer>)
    : (new Uint8Array(bytes) as Uint8Array<ArrayBuffer>);
}

/** Chunk cipher over `crypto.subtle` with one imported, non-extractable key. */
class WebCryptoChunkCipher implements ChunkCipher {
  readonly #key: CryptoKey;
  readonly #baseNonce: Uint8Array;

  constructor(key: CryptoKey, baseNonce: Uint8Array) {
    this.#key = key;
    this.#baseNonce = baseNonce.slice();
  }

  #params(index: number): AesGcmParams {
    const iv = chunkNonceInto(
      this.#baseNonce,
      index,
      new Uint8Array(BLOB_NONCE_SIZE),
    ) as Uint8Array<ArrayBuffer>;
    return { name: 'AES-GCM', iv, tagLength: BLOB_TAG_SIZE * 8 };
  }

  async seal(first: number, plaintexts: readonly Uint8Array[]): Promise<Uint8Array> {
    const params = plaintexts.map((_, i) => this.#params(first + i));
    const sealed = await Promise.all(
      plaintexts.map((p, i) =>
        globalThis.crypto.subtle.encrypt(params[i] as AesGcmParams, this.#key, asBufferSource(p)),
      ),
    );
    return concatChunks(sealed.map((b) => new Uint8Array(b)));
  }

  async open(first: number, sealed: readonly Uint8Array[]): Promise<Uint8Array> {
    const params = sealed.map((_, i) => this.#params(first + i));
    try {
      const opened = await Promise.all(
        sealed.map((s, i) =>
          globalThis.crypto.subtle.decrypt(params[i] as AesGcmParams, this.#key, asBufferSource(s)),
        ),
      );
      return concatChunks(opened.map((b) => new Uint8Array(b)));
    } catch (cause) {
      // OperationError for a bad tag; nothing of the batch is returned.
      throw new DecryptionError({ cause });
    }
  }
}

/** The `webcrypto` backend (`crypto.subtle`, universal where WebCrypto exists). */
export const webCryptoBlobBackend: BlobBackend = {
  name: 'webcrypto',
  async createChunkCipher(aeadKey, baseNonce) {
    const key = await globalThis.crypto.subtle.importKey(
      'raw',
      asBufferSource(aeadKey.slice()),
      'AES-GCM',
      false,
      ['encrypt', 'decrypt'],
    );
    return new WebCryptoChunkCipher(key, baseNonce);
  },
};
