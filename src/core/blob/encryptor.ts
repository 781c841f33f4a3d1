/**
 * The encryption engine behind every encrypting entry point (Web stream, Node stream, whole buffer,
 * file). Push plaintext pieces of any size; it emits the header first, then sealed chunks as soon as
 * they are complete, and holds back at most one partial chunk.
 *
 * @module
 */
import { assertBytes, randomBytes } from '../bytes.js';
import { InternalError, LimitError } from '../errors.js';
import { type ChunkCipher, createChunkCipher } from './chunk-cipher.js';
import { ChunkSplitter } from './chunk-splitter.js';
import {
  BLOB_BATCH_CHUNKS,
  BLOB_CHUNK_SIZE,
  BLOB_KEY_SIZE,
  BLOB_MAX_CHUNKS,
  BLOB_SALT_SIZE,
} from './constants.js';
import { abandon } from './decryptor.js';
import { blobHeader, deriveBlobKeys } from './key-schedule.js';
import {
  type BlobOptions,
  checkPlaintextLimit,
  type ResolvedBlobOptions,
  resolveBlobOptions,
} from './options.js';

/** Internal knobs that are not part of the public API (tests inject a fixed salt for frozen vectors). */
export interface BlobEncryptorInternals {
  /** 24-byte salt to use instead of a random one. Tests only: a repeated salt repeats nonces. */
  salt?: Uint8Array;
}

/**
 * Incremental Cobblestone-256 encryptor. Use: `start()` once, `push()` per piece, `finish()` once;
 * emit what each returns, in order.
 */
export class BlobEncryptor {
  readonly #options: ResolvedBlobOptions;
  readonly #key: Uint8Array;
  readonly #salt: Uint8Array;
  #cipher: ChunkCipher | undefined;
  /** Cuts pushed plaintext into chunks; carries the partial one between pushes. */
  readonly #chunks = new ChunkSplitter(BLOB_CHUNK_SIZE);
  #nextIndex = 0;
  #total = 0;
  #state: 'new' | 'started' | 'finished' | 'failed' = 'new';

  /**
   * Validates the key and options; throws at once so a caller learns of a bad key before any I/O.
   *
   * @throws {InvalidArgumentError} for a key that is not 32 bytes or bad options.
   */
  constructor(key: Uint8Array, options: BlobOptions, internals?: BlobEncryptorInternals) {
    this.#key = assertBytes(key, 'key', BLOB_KEY_SIZE).slice();
    this.#options = resolveBlobOptions(options);
    this.#salt =
      internals?.salt === undefined
        ? randomBytes(BLOB_SALT_SIZE)
        : assertBytes(internals.salt, 'salt', BLOB_SALT_SIZE).slice();
  }

  /** Derives the keys and returns the 56-byte header (salt || commitment). */
  async start(): Promise<Uint8Array> {
    if (this.#state !== 'new') throw new InternalError('BlobEncryptor.start() called twice');
    const keys = deriveBlobKeys(this.#key, this.#salt, this.#options.context);
    this.#cipher = await createChunkCipher(this.#options.aesGcm, keys.aeadKey, keys.baseNonce);
    this.#state = 'started';
    keys.aeadKey.fill(0);
    return blobHeader(this.#salt, keys);
  }

  /**
   * Adds plaintext; returns the sealed chunks it completed, as pieces of at most 64 chunks each. A full
   * chunk is never final (the final chunk is always short), so it is sealed as soon as it is complete.
   * `data` is not referenced once the promise settles (a partial chunk is copied), so the caller may
   * reuse its buffer for the next piece.
   *
   * @throws {LimitError} past `maxPlaintextBytes` or 2^38 chunks.
   */
  async push(data: Uint8Array): Promise<Uint8Array[]> {
    this.#expect('started');
    assertBytes(data, 'chunk');
    try {
      this.#total += data.length;
      checkPlaintextLimit(this.#total, this.#options);
      return await this.#seal(this.#chunks.push(data));
    } catch (error) {
      this.#state = 'failed';
      throw error;
    }
  }

  /** Seals the final (short, possibly empty) chunk and returns it. */
  async finish(): Promise<Uint8Array[]> {
    this.#expect('started');
    try {
      const out = await this.#seal([this.#chunks.rest]);
      this.#chunks.wipe();
      this.#state = 'finished';
      return out;
    } catch (error) {
      this.#state = 'failed';
      throw error;
    }
  }

  /** Bytes of plaintext received so far. */
  get plaintextBytes(): number {
    return this.#total;
  }

  async #seal(chunks: Uint8Array[]): Promise<Uint8Array[]> {
    const cipher = this.#cipher as ChunkCipher;
    // All batches of this push go to the cipher before any is awaited: an asynchronous AES-GCM (WebCrypto)
    // seals them concurrently; a synchronous one (node) in turn.
    const sealing: (Uint8Array | Uint8Array[] | Promise<Uint8Array | Uint8Array[]>)[] = [];
    try {
      for (let b = 0; b < chunks.length; b += BLOB_BATCH_CHUNKS) {
        const batch = chunks.slice(b, b + BLOB_BATCH_CHUNKS);
        if (this.#nextIndex + batch.length > BLOB_MAX_CHUNKS) {
          throw new LimitError('a blob holds at most 2^38 chunks (4 PiB); split the data');
        }
        // One array per chunk where the driver has them (asynchronous AES-GCM: no join); else one per batch.
        sealing.push(
          cipher.sealChunks ? cipher.sealChunks(this.#nextIndex, batch) : cipher.seal(this.#nextIndex, batch),
        );
        this.#nextIndex += batch.length;
      }
    } catch (error) {
      abandon(sealing);
      throw error;
    }
    return (await Promise.all(sealing)).flat();
  }

  #expect(state: 'started'): void {
    if (this.#state !== state) {
      throw new InternalError(`BlobEncryptor used in state ${this.#state}; expected ${state}`);
    }
  }
}
