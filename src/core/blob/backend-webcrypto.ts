/**
 * The WebCrypto backend: `crypto.subtle` AES-GCM, native speed in browsers. Each batch's chunks are
 * submitted together, so an implementation that works off the main thread (Chromium's and Node's do) runs
 * them while the caller goes on; sealed and opened chunks are handed over one array each, as WebCrypto
 * made them (`sealChunks`, `openChunks`), so the streaming engines never join them.
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

/** AES-GCM tag length in bits, as WebCrypto takes it. */
const TAG_BITS = BLOB_TAG_SIZE * 8;

/**
 * The nonces of chunks `first`, `first + 1`, ...: views of one array per batch (one allocation, not one
 * per chunk). None is written again once made, so a nonce cannot change under a call, however late an
 * implementation reads it.
 */
function chunkNonces(baseNonce: Uint8Array, first: number, count: number): Uint8Array<ArrayBuffer>[] {
  const nonces = new Uint8Array(count * BLOB_NONCE_SIZE);
  const views: Uint8Array<ArrayBuffer>[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const view = nonces.subarray(i * BLOB_NONCE_SIZE, (i + 1) * BLOB_NONCE_SIZE);
    chunkNonceInto(baseNonce, first + i, view);
    views[i] = view;
  }
  return views;
}

/**
 * Chunk cipher over `crypto.subtle` with one imported, non-extractable key. WebCrypto takes one call per
 * chunk (each has its own nonce and tag), and in Chromium each call costs the main thread some 15–25 µs
 * whatever its size, more than decrypting 16 KiB takes: so the calls of a batch are all made before any
 * is awaited, and what runs around them (parameters, joins) is kept small.
 */
class WebCryptoChunkCipher implements ChunkCipher {
  readonly #key: CryptoKey;
  readonly #baseNonce: Uint8Array;

  constructor(key: CryptoKey, baseNonce: Uint8Array) {
    this.#key = key;
    this.#baseNonce = baseNonce.slice();
  }

  async seal(first: number, plaintexts: readonly Uint8Array[]): Promise<Uint8Array> {
    return concatChunks(await this.sealChunks(first, plaintexts));
  }

  /** The batch as WebCrypto returns it, one fresh array per chunk (no join; see {@link ChunkCipher}). */
  async sealChunks(first: number, plaintexts: readonly Uint8Array[]): Promise<Uint8Array[]> {
    const subtle = globalThis.crypto.subtle;
    const nonces = chunkNonces(this.#baseNonce, first, plaintexts.length);
    const sealing: Promise<ArrayBuffer>[] = new Array(plaintexts.length);
    for (let i = 0; i < plaintexts.length; i++) {
      // A parameters object of its own per call: sealing relies on nothing about when they are read (a
      // nonce used twice would be fatal to AES-GCM).
      const params: AesGcmParams = { name: 'AES-GCM', iv: nonces[i]!, tagLength: TAG_BITS };
      sealing[i] = subtle.encrypt(params, this.#key, asBufferSource(plaintexts[i]!));
    }
    const sealed = await Promise.all(sealing);
    const out: Uint8Array[] = new Array(sealed.length);
    for (let i = 0; i < sealed.length; i++) out[i] = new Uint8Array(sealed[i]!);
    return out;
  }

  async open(first: number, sealed: readonly Uint8Array[]): Promise<Uint8Array> {
    return concatChunks(await this.openChunks(first, sealed));
  }

  /** The batch as WebCrypto returns it, one fresh array per chunk (no join; see {@link ChunkCipher}). */
  async openChunks(first: number, sealed: readonly Uint8Array[]): Promise<Uint8Array[]> {
    const subtle = globalThis.crypto.subtle;
    const nonces = chunkNonces(this.#baseNonce, first, sealed.length);
    // One parameters object for the batch, pointed at each chunk's nonce before its call: WebCrypto reads
    // (normalizes) the algorithm when called, and reusing it saves a tenth or more of a call's cost in
    // Chromium. An implementation that read it late could only see a wrong nonce, and a tag that fails.
    const params: AesGcmParams = { name: 'AES-GCM', iv: nonces[0]!, tagLength: TAG_BITS };
    const opening: Promise<ArrayBuffer>[] = new Array(sealed.length);
    for (let i = 0; i < sealed.length; i++) {
      params.iv = nonces[i]!;
      opening[i] = subtle.decrypt(params, this.#key, asBufferSource(sealed[i]!));
    }
    let opened: ArrayBuffer[];
    try {
      opened = await Promise.all(opening);
    } catch (cause) {
      // OperationError for a bad tag; nothing of the batch is returned.
      throw new DecryptionError({ cause });
    }
    const out: Uint8Array[] = new Array(opened.length);
    for (let i = 0; i < opened.length; i++) out[i] = new Uint8Array(opened[i]!);
    return out;
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
