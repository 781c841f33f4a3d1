/**
 * Write-behind for a sequential file writer: pieces are copied into one of two buffers of its own, and a
 * full buffer goes to disk in one call while the caller fills the other. At most one write is in flight,
 * so the order on disk is the order of the pieces, and memory is the two buffers, whatever the size of
 * the file.
 *
 * Why: decrypting and writing in turn (decrypt a piece, await its write, decrypt the next) leaves the
 * main thread idle during every write and the disk idle during every decryption; a download to a file
 * then costs the sum of both instead of the larger. Small pieces also cost a system call each. And why
 * copy rather than queue the caller's pieces: a piece that waits for a write outlives the garbage
 * collector's young generation, and a download's megabytes of such pieces, freed only by full
 * collections, cost more than the copy into two buffers that stay warm in the cache.
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

/**
 * Copies pieces into batches of `batchBytes` for `writeBatch`, one batch in flight at a time: a batch
 * goes as soon as it is full; `add` waits only when the other buffer is full too, i.e. the disk is
 * slower than the caller.
 *
 * A failed batch fails the next {@link WriteBehind.add} or {@link WriteBehind.flush} (and every one after
 * it) with that batch's error; nothing added after a failure reaches `writeBatch`.
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
  /** The two buffers, made at the first byte (a file of nothing needs none). */
  #buffers: [Uint8Array, Uint8Array] | undefined;
  /** Which buffer is being filled. */
  #turn = 0;
  #filled = 0;
  #inFlight: Promise<void> | undefined;
  #failed = false;
  #failure: unknown;

  /**
   * @param writeBatch writes every part, in order, after everything written before (called one at a time;
   *   the parts are the writer's and change once the promise settled).
   * @param limits `batchBytes` per write (default {@link WRITE_BATCH_BYTES}).
   */
  constructor(writeBatch: (parts: Uint8Array[]) => Promise<void>, limits: { batchBytes?: number } = {}) {
    this.#writeBatch = writeBatch;
    this.#batchBytes = limits.batchBytes ?? WRITE_BATCH_BYTES;
  }

  /**
   * Copies `bytes` into the batch being filled (the caller may reuse its array at once). Resolves at once,
   * or, when both buffers are full, once the write in flight is done.
   *
   * @throws whatever an earlier batch's write threw.
   */
  async add(bytes: Uint8Array): Promise<void> {
    this.#throwIfFailed();
    for (let at = 0; at < bytes.length; ) {
      this.#buffers ??= [new Uint8Array(this.#batchBytes), new Uint8Array(this.#batchBytes)];
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
    if (this.#inFlight) await this.#inFlight;
    this.#throwIfFailed();
  }

  /** Drops what is buffered and waits for the write in flight, ignoring its outcome (for error paths). */
  async settle(): Promise<void> {
    this.#filled = 0;
    await this.#inFlight;
  }

  /** Starts the write of the buffer being filled, once the write before it is done; fills the other next. */
  async #handOff(): Promise<void> {
    // Not awaited when nothing is in flight: the write then starts within the caller's call.
    if (this.#inFlight) await this.#inFlight;
    this.#throwIfFailed();
    const batch = (this.#buffers as [Uint8Array, Uint8Array])[this.#turn]?.subarray(
      0,
      this.#filled,
    ) as Uint8Array;
    this.#turn ^= 1;
    this.#filled = 0;
    // The promise in #inFlight never rejects: a failure is kept for the next add/flush to throw.
    this.#inFlight = this.#writeBatch([batch]).then(
      () => {
        this.#inFlight = undefined;
      },
      (error: unknown) => {
        this.#inFlight = undefined;
        this.#failed = true;
        this.#failure = error;
      },
    );
  }

  #throwIfFailed(): void {
    if (this.#failed) throw this.#failure;
  }
}
