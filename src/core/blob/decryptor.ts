/**
 * The decryption engine behind every decrypting entry point. Push ciphertext pieces of any size; it
 * checks the commitment before any chunk, releases a chunk only after its tag verified, and knows a
 * chunk is not the last only when at least one byte follows it (there is no final flag: the final chunk
 * is the short one). Truncation, reordering, trailing bytes and a full-size final chunk all end in the
 * same {@link DecryptionError}; once failed, every later call fails the same way.
 *
 * @module
 */
import { assertBytes } from '../bytes.js';
import { DecryptionError, HappyMediaError } from '../errors.js';
import { type ChunkCipher, createChunkCipher } from './chunk-cipher.js';
import {
  BLOB_BATCH_CHUNKS,
  BLOB_HEADER_SIZE,
  BLOB_KEY_SIZE,
  BLOB_MAX_CHUNKS,
  BLOB_NONCE_SIZE,
  BLOB_SEALED_CHUNK_SIZE,
  BLOB_TAG_SIZE,
} from './constants.js';
import { openBlobHeader } from './key-schedule.js';
import {
  type BlobOptions,
  checkPlaintextLimit,
  type ResolvedBlobOptions,
  resolveBlobOptions,
} from './options.js';

/** Internal knobs that are not part of the public API. */
export interface BlobDecryptorInternals {
  /**
   * Raw mode (C2SP test vectors): start from an already derived AEAD key and base nonce, and expect the
   * chunks without the 56-byte header. Tests only.
   */
  raw?: { aeadKey: Uint8Array; baseNonce: Uint8Array };
}

/** Incremental Cobblestone-256 decryptor: `push()` per piece, `finish()` once; emit what they return. */
export class BlobDecryptor {
  readonly #options: ResolvedBlobOptions;
  readonly #key: Uint8Array;
  readonly #header = new Uint8Array(BLOB_HEADER_SIZE);
  #headerLength = 0;
  #cipher: ChunkCipher | undefined;
  /** Set while the cipher is being prepared: pushes that arrive meanwhile wait for it, in call order. */
  #cipherReady: Promise<void> | undefined;
  /** Sealed bytes not yet known to be a non-final chunk: at most one sealed chunk. */
  readonly #pending = new Uint8Array(BLOB_SEALED_CHUNK_SIZE);
  #pendingLength = 0;
  #nextIndex = 0;
  /** Plaintext bytes handed to the cipher so far (checked against the limit before decrypting). */
  #submitted = 0;
  #released = 0;
  #state: 'open' | 'finished' | 'failed' = 'open';
  #failure: HappyMediaError | undefined;
  #raw: { aeadKey: Uint8Array; baseNonce: Uint8Array } | undefined;

  /**
   * Validates the key and options at once.
   *
   * @throws {InvalidArgumentError} for a key that is not 32 bytes or bad options.
   */
  constructor(key: Uint8Array, options: BlobOptions, internals?: BlobDecryptorInternals) {
    this.#key = assertBytes(key, 'key', BLOB_KEY_SIZE).slice();
    this.#options = resolveBlobOptions(options);
    if (internals?.raw) {
      this.#raw = {
        aeadKey: assertBytes(internals.raw.aeadKey, 'aeadKey', BLOB_KEY_SIZE).slice(),
        baseNonce: assertBytes(internals.raw.baseNonce, 'baseNonce', BLOB_NONCE_SIZE).slice(),
      };
    }
  }

  /**
   * Adds ciphertext; returns verified plaintext pieces (possibly none).
   * `data` must stay unchanged until the promise settles (an asynchronous cipher may read it late); it
   * is not referenced after that (a partial chunk is copied), so the caller may then reuse its buffer.
   *
   * Pushes may overlap: a push's framing happens when it is called (after the cipher exists), so a
   * caller may push again before the last promise settled and keep several batches in flight with an
   * asynchronous cipher; each promise resolves with its own chunks, so awaiting them in call order
   * releases the plaintext in order, and each only once every chunk in it verified.
   *
   * @throws {DecryptionError} on any authentication failure, now and on every later call.
   * @throws {LimitError} past `maxPlaintextBytes`.
   */
  async push(data: Uint8Array): Promise<Uint8Array[]> {
    this.#ensureOpen();
    assertBytes(data, 'chunk');
    return this.#guard(async () => {
      let at = 0;
      if (this.#cipher === undefined) {
        if (this.#cipherReady === undefined) {
          if (this.#raw !== undefined) {
            this.#cipherReady = this.#createRawCipher();
          } else {
            const take = Math.min(BLOB_HEADER_SIZE - this.#headerLength, data.length);
            this.#header.set(data.subarray(0, take), this.#headerLength);
            this.#headerLength += take;
            at = take;
            if (this.#headerLength < BLOB_HEADER_SIZE) return [];
            this.#cipherReady = this.#openHeader();
          }
        }
        // Pushes waiting here resume in the order they were made, so their framing keeps that order; one
        // made after finish() is trailing data, refused here as at once.
        await this.#cipherReady;
        this.#ensureOpen();
      }
      // A chunk is complete and not final only when at least one more byte follows it. Everything from
      // here to the cipher calls runs without awaiting, so overlapping pushes frame in call order.
      const ready: Uint8Array[] = [];
      if (this.#pendingLength > 0 && at < data.length) {
        const take = Math.min(BLOB_SEALED_CHUNK_SIZE - this.#pendingLength, data.length - at);
        this.#pending.set(data.subarray(at, at + take), this.#pendingLength);
        this.#pendingLength += take;
        at += take;
        if (this.#pendingLength === BLOB_SEALED_CHUNK_SIZE && at < data.length) {
          ready.push(this.#pending.slice());
          this.#pendingLength = 0;
        }
      }
      while (data.length - at > BLOB_SEALED_CHUNK_SIZE) {
        ready.push(data.subarray(at, at + BLOB_SEALED_CHUNK_SIZE));
        at += BLOB_SEALED_CHUNK_SIZE;
      }
      if (at < data.length) {
        this.#pending.set(data.subarray(at), this.#pendingLength);
        this.#pendingLength += data.length - at;
      }
      return this.#open(ready);
    });
  }

  /**
   * Ends the input: the held-back bytes must be a short final chunk (16 to 16399 bytes) that verifies.
   *
   * @throws {DecryptionError} for a truncated blob (missing header, missing or full-size final chunk) or a
   * final chunk that does not verify.
   */
  async finish(): Promise<Uint8Array[]> {
    this.#ensureOpen();
    return this.#guard(async () => {
      if (this.#cipher === undefined && this.#raw !== undefined) {
        this.#cipherReady ??= this.#createRawCipher();
      }
      if (this.#cipherReady !== undefined) await this.#cipherReady;
      if (this.#cipher === undefined) throw new DecryptionError();
      if (this.#pendingLength < BLOB_TAG_SIZE || this.#pendingLength === BLOB_SEALED_CHUNK_SIZE) {
        throw new DecryptionError();
      }
      // Finished from now on (a push after this is trailing data); the final chunk is a copy, so nothing
      // can change it while an asynchronous cipher reads it.
      const last = this.#pending.slice(0, this.#pendingLength);
      this.#state = 'finished';
      return this.#open([last]);
    });
  }

  /** Bytes of verified plaintext released so far. */
  get plaintextBytes(): number {
    return this.#released;
  }

  async #createRawCipher(): Promise<void> {
    const raw = this.#raw as { aeadKey: Uint8Array; baseNonce: Uint8Array };
    this.#cipher = await createChunkCipher(this.#options.aesGcm, raw.aeadKey, raw.baseNonce);
  }

  async #openHeader(): Promise<void> {
    // The commitment is checked before any chunk is even handed to the cipher.
    const keys = openBlobHeader(this.#key, this.#header, this.#options.context);
    this.#cipher = await createChunkCipher(this.#options.aesGcm, keys.aeadKey, keys.baseNonce);
    keys.aeadKey.fill(0);
  }

  async #open(sealed: Uint8Array[]): Promise<Uint8Array[]> {
    const cipher = this.#cipher as ChunkCipher;
    // Every batch of this push is handed to the cipher before any is awaited, so an asynchronous AES-GCM
    // (WebCrypto: a thread pool behind each call) works on all of them at once; a synchronous one (node)
    // runs them in turn. The limit is checked first, from the sealed lengths, so a hostile blob
    // is refused before it is decrypted. Nothing is released unless every batch verified.
    const opening: (Uint8Array | Uint8Array[] | Promise<Uint8Array | Uint8Array[]>)[] = [];
    let submitted = this.#submitted;
    try {
      for (let b = 0; b < sealed.length; b += BLOB_BATCH_CHUNKS) {
        const batch = sealed.slice(b, b + BLOB_BATCH_CHUNKS);
        // More chunks than the format allows cannot be authentic.
        if (this.#nextIndex + batch.length > BLOB_MAX_CHUNKS) throw new DecryptionError();
        for (const chunk of batch) submitted += Math.max(0, chunk.length - BLOB_TAG_SIZE);
        checkPlaintextLimit(submitted, this.#options);
        // One array per chunk where the driver has them (asynchronous AES-GCM: no join); else one per batch.
        opening.push(
          cipher.openChunks ? cipher.openChunks(this.#nextIndex, batch) : cipher.open(this.#nextIndex, batch),
        );
        this.#nextIndex += batch.length;
      }
    } catch (error) {
      abandon(opening);
      throw error;
    }
    this.#submitted = submitted;
    const pieces = (await Promise.all(opening)).flat();
    for (const piece of pieces) this.#released += piece.length;
    return pieces;
  }

  async #guard(work: () => Promise<Uint8Array[]>): Promise<Uint8Array[]> {
    try {
      return await work();
    } catch (error) {
      this.#state = 'failed';
      // A failure that is not ours (a cipher's own error) becomes the one authentication error, without
      // it as cause (src/core/errors.ts: never a cause on an authentication failure).
      this.#failure = error instanceof HappyMediaError ? error : new DecryptionError();
      this.#pending.fill(0);
      throw this.#failure;
    }
  }

  #ensureOpen(): void {
    if (this.#state === 'failed') throw this.#failure ?? new DecryptionError();
    // Anything after the end is trailing data: as inauthentic as a bad tag.
    if (this.#state === 'finished') {
      this.#state = 'failed';
      this.#failure = new DecryptionError();
      throw this.#failure;
    }
  }
}

/** Batches already handed to the cipher when a later one was refused: their outcome no longer matters. */
export function abandon(started: readonly (Uint8Array | Uint8Array[] | Promise<unknown>)[]): void {
  for (const batch of started) if (batch instanceof Promise) batch.catch(() => undefined);
}
