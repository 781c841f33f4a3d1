/**
 * The chunk driver of an asynchronous AES-GCM (WebCrypto, expo-crypto): one call per chunk, and every call
 * of a batch is made before any is awaited, so an implementation that works off the calling thread
 * (Chromium's and Node's WebCrypto, a native module) runs them while the caller goes on. Each chunk's
 * array is handed on as the implementation made it (`sealChunks`, `openChunks`), so the streaming engines
 * never join them.
 *
 * @module
 */
import type { AsyncAesGcm } from '../aes-gcm/aes-gcm.js';
import { DecryptionError, InternalError } from '../errors.js';
import type { ChunkCipher } from './chunk-cipher.js';
import { concatChunks } from './concat-chunks.js';
import { BLOB_NONCE_SIZE, BLOB_TAG_SIZE } from './constants.js';
import { chunkNonceInto } from './key-schedule.js';

/**
 * The nonces of chunks `first`, `first + 1`, ...: views of one array per batch (one allocation, not one
 * per chunk). None is written again once made, so a nonce cannot change under a call, however late an
 * implementation reads it.
 */
function chunkNonces(baseNonce: Uint8Array, first: number, count: number): Uint8Array[] {
  const nonces = new Uint8Array(count * BLOB_NONCE_SIZE);
  const views: Uint8Array[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const view = nonces.subarray(i * BLOB_NONCE_SIZE, (i + 1) * BLOB_NONCE_SIZE);
    chunkNonceInto(baseNonce, first + i, view);
    views[i] = view;
  }
  return views;
}

/** Calls already started when a later one threw: their outcome no longer matters, nor is it released. */
function abandon(started: readonly (Promise<unknown> | undefined)[]): void {
  for (const call of started) call?.catch(() => undefined);
}

/** Chunk cipher over an {@link AsyncAesGcm}. */
export class AsyncChunkCipher implements ChunkCipher {
  readonly #aes: AsyncAesGcm;
  readonly #key: unknown;
  readonly #baseNonce: Uint8Array;

  constructor(aes: AsyncAesGcm, key: unknown, baseNonce: Uint8Array) {
    this.#aes = aes;
    this.#key = key;
    this.#baseNonce = baseNonce.slice();
  }

  async seal(first: number, plaintexts: readonly Uint8Array[]): Promise<Uint8Array> {
    return concatChunks(await this.sealChunks(first, plaintexts));
  }

  /** The batch as the implementation returns it, one array per chunk (no join; see {@link ChunkCipher}). */
  async sealChunks(first: number, plaintexts: readonly Uint8Array[]): Promise<Uint8Array[]> {
    const nonces = chunkNonces(this.#baseNonce, first, plaintexts.length);
    const sealing: Promise<Uint8Array>[] = new Array(plaintexts.length);
    try {
      for (let i = 0; i < plaintexts.length; i++) {
        sealing[i] = this.#aes.seal(this.#key, nonces[i] as Uint8Array, plaintexts[i] as Uint8Array);
      }
    } catch (error) {
      abandon(sealing);
      throw error;
    }
    const sealed = await Promise.all(sealing);
    for (let i = 0; i < sealed.length; i++) {
      if (sealed[i]?.length !== (plaintexts[i] as Uint8Array).length + BLOB_TAG_SIZE) {
        throw new InternalError('the AES-GCM implementation returned an unexpected ciphertext length');
      }
    }
    return sealed;
  }

  async open(first: number, sealed: readonly Uint8Array[]): Promise<Uint8Array> {
    return concatChunks(await this.openChunks(first, sealed));
  }

  /** The batch as the implementation returns it, one array per chunk (no join; see {@link ChunkCipher}). */
  async openChunks(first: number, sealed: readonly Uint8Array[]): Promise<Uint8Array[]> {
    for (const s of sealed) if (s.length < BLOB_TAG_SIZE) throw new DecryptionError();
    const nonces = chunkNonces(this.#baseNonce, first, sealed.length);
    const opening: Promise<Uint8Array>[] = new Array(sealed.length);
    let opened: Uint8Array[];
    try {
      for (let i = 0; i < sealed.length; i++) {
        opening[i] = this.#aes.open(this.#key, nonces[i] as Uint8Array, sealed[i] as Uint8Array);
      }
      opened = await Promise.all(opening);
    } catch {
      // A tag failed (or a call threw): nothing of the batch is returned, whatever else verified.
      abandon(opening);
      throw new DecryptionError();
    }
    for (let i = 0; i < opened.length; i++) {
      if (opened[i]?.length !== (sealed[i] as Uint8Array).length - BLOB_TAG_SIZE) {
        for (const plain of opened) plain.fill(0);
        throw new DecryptionError();
      }
    }
    return opened;
  }
}
