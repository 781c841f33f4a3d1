/**
 * The sequential engine of the format, behind every entry point that encrypts or decrypts a whole blob in
 * order (Web and Node streams, whole buffers, files, the CLI's stdin): {@link BlobEncryptor} and
 * {@link BlobDecryptor} (framing, the final-chunk rule, chunk order, the plaintext limit, fail once), the
 * one loop that drives either over pieces of input ({@link pumpEngine}), and the Web `TransformStream`s
 * over them ({@link createEncryptStream}, {@link createDecryptStream}). Which adapter drives the engine
 * where, and why each is its own: docs/blob-format.md, "Who drives the engine".
 *
 * @module
 */
import { assertBytes, assertNonNegativeInteger, randomBytes } from '../bytes.js';
import {
  DecryptionError,
  HappyMediaError,
  InternalError,
  InvalidArgumentError,
  LimitError,
} from '../errors.js';
import { abandon, type ChunkCipher, createChunkCipher } from './chunk-cipher.js';
import {
  BLOB_BATCH_CHUNKS,
  BLOB_CHUNK_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_KEY_SIZE,
  BLOB_MAX_CHUNKS,
  BLOB_NONCE_SIZE,
  BLOB_SALT_SIZE,
  BLOB_SEALED_CHUNK_SIZE,
  BLOB_TAG_SIZE,
  type BlobOptions,
  blobHeader,
  checkPlaintextLimit,
  deriveBlobKeys,
  openBlobHeader,
  type ResolvedBlobOptions,
  resolveBlobOptions,
} from './format.js';

/**
 * Cuts a sequence of byte pieces of any sizes into whole chunks of one fixed size: a chunk that lies inside
 * one piece is handed out as a view of it (no copy), one that straddles pieces is gathered into a buffer of
 * its own and handed out as a copy; the bytes after the last whole chunk wait for the next piece. The
 * encryptor cuts plaintext into 16 KiB chunks with it, and a streamed range read cuts ciphertext into sealed
 * chunks. (The decryptor holds a complete chunk back until a byte follows it, because a full-size last chunk
 * means truncation, so it keeps its own loop.)
 */
export class ChunkSplitter {
  readonly #size: number;
  readonly #pending: Uint8Array;
  #pendingLength = 0;

  /** @param size bytes per chunk. */
  constructor(size: number) {
    this.#size = size;
    this.#pending = new Uint8Array(size);
  }

  /**
   * The whole chunks `piece` completes, in order. Views of `piece` are valid as long as `piece` is; the
   * rest of `piece` is copied, so the caller may reuse `piece` once it is done with the chunks.
   */
  push(piece: Uint8Array): Uint8Array[] {
    const size = this.#size;
    const ready: Uint8Array[] = [];
    let at = 0;
    if (this.#pendingLength > 0) {
      const take = Math.min(size - this.#pendingLength, piece.length);
      this.#pending.set(piece.subarray(0, take), this.#pendingLength);
      this.#pendingLength += take;
      at = take;
      if (this.#pendingLength === size) {
        ready.push(this.#pending.slice());
        this.#pendingLength = 0;
      }
    }
    while (piece.length - at >= size) {
      ready.push(piece.subarray(at, at + size));
      at += size;
    }
    if (at < piece.length) {
      this.#pending.set(piece.subarray(at), this.#pendingLength);
      this.#pendingLength += piece.length - at;
    }
    return ready;
  }

  /** The bytes waiting for more (fewer than one chunk), as a view of the splitter's own buffer. */
  get rest(): Uint8Array {
    return this.#pending.subarray(0, this.#pendingLength);
  }

  /** Zeroes the buffer and forgets the waiting bytes (they may be plaintext). */
  wipe(): void {
    this.#pending.fill(0);
    this.#pendingLength = 0;
  }
}

/** An encrypt or decrypt engine: `start()` (the encryptor's header) once, `push()` per piece, `finish()`. */
export interface BlobEngine {
  /** The encryptor's 56-byte header, emitted before anything else; the decryptor has none. */
  start?(): Promise<Uint8Array>;
  /** Adds a piece of input; resolves with the output it completed (possibly none), in order. */
  push(data: Uint8Array): Promise<Uint8Array[]>;
  /** Ends the input; resolves with the rest of the output. */
  finish(): Promise<Uint8Array[]>;
}

/**
 * Drives `engine` over every piece of `input` and hands each output piece to `sink`, in order: the header
 * (if the engine has one), what each push completed, what finish released. Memory stays at one input
 * piece plus one batch, whatever the length of the input.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when the input yields text instead of bytes; what
 *   the engine and `sink` throw, as they threw it.
 * @example
 * ```ts
 * await pumpEngine(readFileAhead(path), new BlobEncryptor(key, options), (bytes) => out.write(bytes));
 * ```
 */
export async function pumpEngine(
  input: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array>,
  engine: BlobEngine,
  sink: (bytes: Uint8Array) => void | Promise<void>,
): Promise<void> {
  if (engine.start) await sink(await engine.start());
  for await (const piece of input) {
    if (typeof piece === 'string') {
      throw new InvalidArgumentError('expected bytes from the input stream but received text');
    }
    for (const out of await engine.push(piece)) await sink(out);
  }
  for (const out of await engine.finish()) await sink(out);
}

/**
 * The engine as a Web `TransformStream`: the header (if any) when the stream starts, then what each
 * chunk written completes, then the rest at the end.
 */
export function engineStream(engine: BlobEngine): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream<Uint8Array, Uint8Array>({
    async start(controller) {
      if (engine.start) controller.enqueue(await engine.start());
    },
    async transform(chunk, controller) {
      for (const piece of await engine.push(chunk)) controller.enqueue(piece);
    },
    async flush(controller) {
      for (const piece of await engine.finish()) controller.enqueue(piece);
    },
  });
}

/**
 * Internal knobs that are not part of the public API: tests inject a fixed salt for frozen vectors, and
 * a blob in parts re-makes one part from its file (parts.ts).
 */
export interface BlobEncryptorInternals {
  /**
   * 24-byte salt to use instead of a random one. A repeated salt repeats nonces, so it is used only to
   * make the same bytes again: frozen vectors, and a part re-made from an unchanged file (its digest is
   * compared with what was made before, before any byte of it leaves: parts.ts).
   */
  salt?: Uint8Array;
  /** Index of the first chunk `push` seals (default 0): a part that starts inside the blob. */
  firstChunk?: number;
  /** Where a synchronous cipher's batches go (see {@link EngineOutput}); default: fresh arrays. */
  output?: EngineOutput;
}

/**
 * The arrays a synchronous cipher seals or opens a batch into (`length` bytes, every one of them written
 * before the batch is handed on). A caller that is done with each output piece before its next push (it
 * copies them, as `engineToFile` does) can hand out the same few arrays again and again instead of fresh
 * ones: no allocation per piece, and memory the cache already holds. Default: the runtime's fresh arrays.
 */
export type EngineOutput = (length: number) => Uint8Array;

/**
 * Incremental Cobblestone-256 encryptor. Use: `start()` once, `push()` per piece, `finish()` once;
 * emit what each returns, in order: the header first, then sealed chunks as soon as they are complete; it
 * holds back at most one partial chunk.
 */
export class BlobEncryptor {
  readonly #options: ResolvedBlobOptions;
  readonly #key: Uint8Array;
  readonly #salt: Uint8Array;
  readonly #output: EngineOutput | undefined;
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
    if (internals?.firstChunk !== undefined) {
      this.#nextIndex = assertNonNegativeInteger(internals.firstChunk, 'firstChunk');
    }
    this.#output = internals?.output;
  }

  /** Derives the keys and returns the 56-byte header (salt || commitment). */
  async start(): Promise<Uint8Array> {
    if (this.#state !== 'new') throw new InternalError('BlobEncryptor.start() called twice');
    const keys = deriveBlobKeys(this.#key, this.#salt, this.#options.context);
    this.#cipher = await createChunkCipher(this.#options.aesGcm, keys.aeadKey, keys.baseNonce, this.#output);
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

/** Internal knobs that are not part of the public API. */
export interface BlobDecryptorInternals {
  /**
   * Raw mode (C2SP test vectors): start from an already derived AEAD key and base nonce, and expect the
   * chunks without the 56-byte header. Tests only.
   */
  raw?: { aeadKey: Uint8Array; baseNonce: Uint8Array };
  /**
   * The caller hands its pieces over: none changes after it was pushed (a download's network reads), so
   * the decryptor keeps views of them instead of copying what it holds back, and a chunk inside one piece
   * reaches the cipher as a view even when it waited for the next piece.
   */
  keepsPieces?: boolean;
  /** Where a synchronous cipher's batches go (see {@link EngineOutput}); default: fresh arrays. */
  output?: EngineOutput;
}

/**
 * The sealed bytes the decryptor holds back: at most one sealed chunk, not yet known to be a non-final
 * one. Copied into a buffer of its own, or kept as views of the caller's pieces when it hands them over
 * ({@link BlobDecryptorInternals.keepsPieces}): then only a chunk that straddles two pieces is joined.
 *
 * A chunk handed to the cipher is joined into an array of a few kept for that: the cipher may read it
 * until its call settled, so an array comes back ({@link HeldBack.giveBack}) only then, and is joined
 * into again. A fresh array per joined chunk cost more than its copy (a download in 64 KiB pieces joins
 * one chunk in four; Chromium's allocation of such an array took 30–60 µs, against well under 1 µs
 * for the copy itself).
 */
class HeldBack {
  /** The copy of the held bytes; undefined while they are kept as views. */
  readonly #copy: Uint8Array | undefined;
  #views: Uint8Array[] = [];
  #length = 0;
  /** Arrays to join chunks into, free again (their calls settled). */
  readonly #free: Uint8Array[] = [];
  /** Arrays joined into since the last {@link HeldBack.lent}. */
  #taken: Uint8Array[] = [];

  constructor(keepsPieces: boolean) {
    this.#copy = keepsPieces ? undefined : new Uint8Array(BLOB_SEALED_CHUNK_SIZE);
  }

  /** Bytes held. */
  get length(): number {
    return this.#length;
  }

  add(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    if (this.#copy === undefined) this.#views.push(bytes);
    else this.#copy.set(bytes, this.#length);
    this.#length += bytes.length;
  }

  /**
   * The held bytes as one array that nothing changes while a cipher reads it (a piece's own view, or
   * an array joined into that stays out until it is given back), and holds nothing from then on.
   */
  take(): Uint8Array {
    const views = this.#views;
    let taken: Uint8Array;
    if (this.#copy === undefined && views.length === 1) taken = views[0] as Uint8Array;
    else {
      const joined = this.#free.pop() ?? new Uint8Array(BLOB_SEALED_CHUNK_SIZE);
      if (this.#copy !== undefined) joined.set(this.#copy.subarray(0, this.#length));
      else {
        let at = 0;
        for (const view of views) {
          joined.set(view, at);
          at += view.length;
        }
      }
      this.#taken.push(joined);
      taken = joined.subarray(0, this.#length);
    }
    this.#views = [];
    this.#length = 0;
    return taken;
  }

  /** The arrays joined into since the last call: the caller gives them back once their calls settled. */
  lent(): Uint8Array[] {
    if (this.#taken.length === 0) return NOTHING_LENT;
    const lent = this.#taken;
    this.#taken = [];
    return lent;
  }

  /** Arrays from {@link HeldBack.lent} whose cipher calls all settled: free to join into again. */
  giveBack(lent: readonly Uint8Array[]): void {
    for (const joined of lent) if (this.#free.length < JOINED_ARRAYS_KEPT) this.#free.push(joined);
  }

  /** Forgets the held bytes (and zeroes the copy). */
  wipe(): void {
    this.#copy?.fill(0);
    this.#views = [];
    this.#length = 0;
  }
}

/** Nothing joined since the last {@link HeldBack.lent} (shared: never written). */
const NOTHING_LENT: Uint8Array[] = [];

/**
 * Free join arrays a decryptor keeps at most: about as many pushes as a download keeps in flight
 * (64 chunks in 64 KiB pieces: 16), at 16400 bytes each.
 */
const JOINED_ARRAYS_KEPT = 32;

/**
 * Incremental Cobblestone-256 decryptor: `push()` per piece, `finish()` once; emit what they return. It
 * checks the commitment before any chunk, releases a chunk only after its tag verified, and knows a chunk
 * is not the last only when at least one byte follows it (there is no final flag: the final chunk is the
 * short one). Truncation, reordering, trailing bytes and a full-size final chunk all end in the same
 * {@link DecryptionError}; once failed, every later call fails the same way.
 */
export class BlobDecryptor {
  readonly #options: ResolvedBlobOptions;
  readonly #key: Uint8Array;
  readonly #header = new Uint8Array(BLOB_HEADER_SIZE);
  #headerLength = 0;
  #cipher: ChunkCipher | undefined;
  /** Set while the cipher is being prepared: pushes that arrive meanwhile wait for it, in call order. */
  #cipherReady: Promise<void> | undefined;
  /** Pushes waiting for the cipher that have not framed yet. */
  #waiting = 0;
  /** Sealed bytes not yet known to be a non-final chunk: at most one sealed chunk. */
  readonly #held: HeldBack;
  #nextIndex = 0;
  /** Plaintext bytes handed to the cipher so far (checked against the limit before decrypting). */
  #submitted = 0;
  #released = 0;
  #state: 'open' | 'finished' | 'failed' = 'open';
  #failure: HappyMediaError | undefined;
  #raw: { aeadKey: Uint8Array; baseNonce: Uint8Array } | undefined;
  readonly #output: EngineOutput | undefined;

  /**
   * Validates the key and options at once.
   *
   * @throws {InvalidArgumentError} for a key that is not 32 bytes or bad options.
   */
  constructor(key: Uint8Array, options: BlobOptions, internals?: BlobDecryptorInternals) {
    this.#key = assertBytes(key, 'key', BLOB_KEY_SIZE).slice();
    this.#options = resolveBlobOptions(options);
    this.#held = new HeldBack(internals?.keepsPieces === true);
    this.#output = internals?.output;
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
   * is not referenced after that (a partial chunk is copied), so the caller may then reuse its buffer,
   * unless it handed its pieces over ({@link BlobDecryptorInternals.keepsPieces}).
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
      if (this.#cipher === undefined && this.#cipherReady === undefined) {
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
      // Pushes waiting here resume in the order they were made, so their framing keeps that order. A push
      // made once the cipher exists but while earlier ones have yet to resume waits too, behind them:
      // framing it at once would put its chunks before theirs. One made after finish() is trailing data,
      // refused here as at once.
      if (this.#cipher === undefined || this.#waiting > 0) {
        this.#waiting++;
        try {
          await this.#cipherReady;
        } finally {
          this.#waiting--;
        }
        this.#ensureOpen();
      }
      // Everything from here to the cipher calls runs without awaiting, so overlapping pushes frame in
      // call order.
      const ready: Uint8Array[] = [];
      this.#frame(data, at, ready);
      return this.#open(ready);
    });
  }

  /**
   * Adds several pieces at once, as {@link BlobDecryptor.push} of each in turn would, but with one
   * promise for all of them once the cipher exists: a caller that has the pieces of a network read
   * together (a download) pays the push's bookkeeping once per read instead of once per piece.
   *
   * @throws {DecryptionError} as `push`.
   * @throws {LimitError} as `push`.
   */
  async pushPieces(pieces: readonly Uint8Array[]): Promise<Uint8Array[]> {
    if (pieces.length === 1) return this.push(pieces[0] as Uint8Array);
    if (this.#cipher === undefined || this.#waiting > 0) {
      // The header or the cipher is still on its way: the pushes wait for it in call order.
      return (await Promise.all(pieces.map((piece) => this.push(piece)))).flat();
    }
    this.#ensureOpen();
    for (const piece of pieces) assertBytes(piece, 'chunk');
    return this.#guard(async () => {
      const ready: Uint8Array[] = [];
      for (const piece of pieces) this.#frame(piece, 0, ready);
      return this.#open(ready);
    });
  }

  /**
   * Frames `data` from `at` on: the chunks it completes go to `ready`, the rest is held back. A chunk is
   * complete and not final only when at least one more byte follows it.
   */
  #frame(data: Uint8Array, from: number, ready: Uint8Array[]): void {
    let at = from;
    const held = this.#held;
    if (held.length > 0 && at < data.length) {
      const take = Math.min(BLOB_SEALED_CHUNK_SIZE - held.length, data.length - at);
      held.add(data.subarray(at, at + take));
      at += take;
      if (held.length === BLOB_SEALED_CHUNK_SIZE && at < data.length) ready.push(held.take());
    }
    while (data.length - at > BLOB_SEALED_CHUNK_SIZE) {
      ready.push(data.subarray(at, at + BLOB_SEALED_CHUNK_SIZE));
      at += BLOB_SEALED_CHUNK_SIZE;
    }
    if (at < data.length) held.add(data.subarray(at));
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
      if (this.#held.length < BLOB_TAG_SIZE || this.#held.length === BLOB_SEALED_CHUNK_SIZE) {
        throw new DecryptionError();
      }
      // Finished from now on (a push after this is trailing data); nothing changes the final chunk while
      // an asynchronous cipher reads it.
      const last = this.#held.take();
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
    this.#cipher = await createChunkCipher(this.#options.aesGcm, raw.aeadKey, raw.baseNonce, this.#output);
  }

  async #openHeader(): Promise<void> {
    // The commitment is checked before any chunk is even handed to the cipher.
    const keys = openBlobHeader(this.#key, this.#header, this.#options.context);
    this.#cipher = await createChunkCipher(this.#options.aesGcm, keys.aeadKey, keys.baseNonce, this.#output);
    keys.aeadKey.fill(0);
  }

  async #open(sealed: Uint8Array[]): Promise<Uint8Array[]> {
    const cipher = this.#cipher as ChunkCipher;
    // Every batch of this push is handed to the cipher before any is awaited, so an asynchronous AES-GCM
    // (WebCrypto: a thread pool behind each call) works on all of them at once; a synchronous one (node)
    // runs them in turn. The limit is checked first, from the sealed lengths, so a hostile blob
    // is refused before it is decrypted. Nothing is released unless every batch verified.
    const opening: (Uint8Array | Uint8Array[] | Promise<Uint8Array | Uint8Array[]>)[] = [];
    // The chunks joined for this call go back once every call settled, verified (after a failure the
    // decryptor takes nothing again, and a call still running may read them).
    const lent = this.#held.lent();
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
    if (lent.length > 0) this.#held.giveBack(lent);
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
      this.#held.wipe();
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

/**
 * A `TransformStream` that encrypts plaintext into a Cobblestone-256 blob: the 56-byte header first,
 * then each 16 KiB chunk as soon as it is complete (it buffers at most one chunk). The output length is
 * exactly `ciphertextSize(input length)`.
 *
 * @param key 32-byte blob key.
 * @throws {InvalidArgumentError} at once for a key that is not 32 bytes or bad options; through the
 * stream, `LimitError` past `maxPlaintextBytes`.
 * @example
 * ```ts
 * const encrypted = file.stream().pipeThrough(createEncryptStream(blobKey, { context: mediaBlobContext(ref) }));
 * await upload(encrypted, ciphertextSize(file.size));
 * ```
 */
export function createEncryptStream(
  key: Uint8Array,
  options: BlobOptions,
): TransformStream<Uint8Array, Uint8Array> {
  return engineStream(new BlobEncryptor(key, options));
}

/**
 * A `TransformStream` that decrypts a Cobblestone-256 blob. It checks the key commitment before any
 * chunk, emits a chunk's plaintext only after its tag verified, and errors with `DecryptionError`
 * (`ERR_DECRYPTION_FAILED`) on any wrong key or context, modification, truncation, reordering or trailing
 * data. The readable side may have emitted the verified chunks before the failing one: a consumer that
 * needs all-or-nothing must hold the output until the stream ends (as `decryptFile` does).
 *
 * @param key 32-byte blob key.
 * @throws {InvalidArgumentError} at once for a key that is not 32 bytes or bad options; through the
 * stream, `DecryptionError` or `LimitError` (past `maxPlaintextBytes`).
 * @example
 * ```ts
 * const plain = response.body!.pipeThrough(createDecryptStream(blobKey, { context: mediaBlobContext(ref) }));
 * ```
 */
export function createDecryptStream(
  key: Uint8Array,
  options: BlobOptions,
): TransformStream<Uint8Array, Uint8Array> {
  return engineStream(new BlobDecryptor(key, options));
}
