/**
 * Write-behind for a sequential file writer: pieces are copied into a ring of buffers of its own (two by
 * default), and a full buffer goes to disk in one call while the caller fills the next. The batches are
 * handed to the writer in order (one at a time by default; a writer that places each batch when called
 * may take several at once), and memory is the ring, whatever the size of the file.
 *
 * Why: decrypting and writing in turn (decrypt a piece, await its write, decrypt the next) leaves the
 * main thread idle during every write and the disk idle during every decryption; a download to a file
 * then costs the sum of both instead of the larger. Small pieces also cost a system call each. And why
 * copy rather than queue the caller's pieces: a piece that waits for a write outlives the garbage
 * collector's young generation, and a download's megabytes of such pieces, freed only by full
 * collections, cost more than the copy into a few buffers that stay warm in the cache.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */

/**
 * Bytes per write: large enough to amortise a call (each one also costs the main thread a hand-over to
 * the thread pool), small enough that writing starts early in a small file, and at most
 * `MAX_WRITE_CALL_BYTES` (see `write-size.ts`).
 */
export const WRITE_BATCH_BYTES = 256 * 1024;

/** Options of {@link WriteBehind}. */
export interface WriteBehindLimits {
  /** Bytes per batch (default {@link WRITE_BATCH_BYTES}). */
  batchBytes?: number;
  /** Buffers in the ring (default 2): the one being filled, and those written or waiting to be. */
  buffers?: number;
  /**
   * Batches written at once (default 1, at most `buffers - 1`). Above 1, `writeBatch` must take its
   * place in the file when it is called (a positioned write, as `AtomicFileWriter.writeParts` makes),
   * since the writes may finish in any order.
   */
  writes?: number;
}

/**
 * Copies pieces into batches of `batchBytes` for `writeBatch`, in a ring of buffers: a batch goes as soon
 * as it is full, up to `writes` batches at once; `add` waits only when the next buffer is still being
 * written or no write may start, i.e. the disk is slower than the caller.
 *
 * Why more than two buffers and one write for a file job: a write's completion is seen only when the main
 * thread returns to the event loop, which a busy cipher does about once per piece it is given. With one
 * write in flight, one batch then reaches the disk per piece while a piece makes several, and the cipher
 * waits for the rest in turn; with the whole output of a piece in flight at once, the thread pool writes
 * it while the next piece is sealed (figures: docs/blob-format.md, "Single thread").
 *
 * A failed batch fails the next {@link WriteBehind.add} or {@link WriteBehind.flush} (and every one after
 * it) with that batch's error; no batch starts after a failure is seen.
 *
 * @example
 * ```ts
 * const batched = new WriteBehind((parts) => writer.writeParts(parts));
 * for await (const piece of verified) await batched.add(piece);
 * await batched.flush(); // everything is written now
 * ```
 */
export class WriteBehind {
  readonly #writeBatch: (parts: Uint8Array[]) => Promise<void>;
  readonly #batchBytes: number;
  readonly #bufferCount: number;
  readonly #maxWrites: number;
  /** The ring, made at the first byte (a file of nothing needs none). */
  #buffers: Uint8Array[] | undefined;
  /** Per buffer, its write while one runs (such a promise never rejects: the failure is kept). */
  readonly #writing: (Promise<void> | undefined)[];
  /** Which buffer is being filled. */
  #turn = 0;
  #filled = 0;
  /** The writes running, oldest first. */
  readonly #running = new Set<Promise<void>>();
  #failed = false;
  #failure: unknown;

  /**
   * @param writeBatch writes every part, in order, after everything written before (called in the
   *   order of the batches; the parts are the writer's and change once the promise settled).
   * @param limits see {@link WriteBehindLimits}.
   */
  constructor(writeBatch: (parts: Uint8Array[]) => Promise<void>, limits: WriteBehindLimits = {}) {
    this.#writeBatch = writeBatch;
    this.#batchBytes = limits.batchBytes ?? WRITE_BATCH_BYTES;
    this.#bufferCount = Math.max(2, limits.buffers ?? 2);
    this.#maxWrites = Math.min(this.#bufferCount - 1, Math.max(1, limits.writes ?? 1));
    this.#writing = new Array(this.#bufferCount).fill(undefined);
  }

  /**
   * Copies `bytes` into the batch being filled (the caller may reuse its array at once). Resolves at once,
   * or, when the ring is full, once enough writes are done.
   *
   * @throws whatever an earlier batch's write threw.
   */
  async add(bytes: Uint8Array): Promise<void> {
    this.#throwIfFailed();
    for (let at = 0; at < bytes.length; ) {
      this.#buffers ??= Array.from({ length: this.#bufferCount }, () => new Uint8Array(this.#batchBytes));
      // The buffer to fill may still be on its way to disk (only when the ring is full).
      const writing = this.#writing[this.#turn];
      if (writing) {
        await writing;
        this.#throwIfFailed();
      }
      const buffer = this.#buffers[this.#turn] as Uint8Array;
      const take = Math.min(this.#batchBytes - this.#filled, bytes.length - at);
      buffer.set(bytes.subarray(at, at + take), this.#filled);
      this.#filled += take;
      at += take;
      if (this.#filled === this.#batchBytes) await this.#handOff();
    }
  }

  /**
   * Writes what is buffered and resolves once every byte is written.
   *
   * @throws whatever a batch's write threw.
   */
  async flush(): Promise<void> {
    if (this.#filled > 0) await this.#handOff();
    await this.#drain();
    this.#throwIfFailed();
  }

  /** Drops what is buffered and waits for the writes in flight, ignoring their outcome (for error paths). */
  async settle(): Promise<void> {
    this.#filled = 0;
    await this.#drain();
  }

  async #drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }

  /** Starts the write of the buffer being filled once a write may start; fills the next one next. */
  async #handOff(): Promise<void> {
    // Not awaited when a write may start: it then starts within the caller's call.
    while (this.#running.size >= this.#maxWrites) await Promise.race(this.#running);
    this.#throwIfFailed();
    const turn = this.#turn;
    const batch = (this.#buffers as Uint8Array[])[turn]?.subarray(0, this.#filled) as Uint8Array;
    this.#turn = (turn + 1) % this.#bufferCount;
    this.#filled = 0;
    const write: Promise<void> = this.#writeBatch([batch]).then(
      () => this.#done(turn, write),
      (error: unknown) => {
        this.#done(turn, write);
        if (!this.#failed) {
          this.#failed = true;
          this.#failure = error;
        }
      },
    );
    this.#writing[turn] = write;
    this.#running.add(write);
  }

  #done(turn: number, write: Promise<void>): void {
    this.#writing[turn] = undefined;
    this.#running.delete(write);
  }

  #throwIfFailed(): void {
    if (this.#failed) throw this.#failure;
  }
}
