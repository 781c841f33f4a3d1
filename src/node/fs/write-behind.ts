/**
 * Write-behind batching for a sequential file writer: pieces queue, and what is queued goes to disk in
 * one call (a `writev`) while the caller produces the next pieces. At most one write is in flight, so
 * the order on disk is the order of the pieces, and the queue is bounded ({@link WRITE_QUEUE_BYTES}), so
 * memory stays flat whatever the size of the file.
 *
 * Why: decrypting and writing in turn (decrypt a piece, await its write, decrypt the next) leaves the
 * main thread idle during every write and the disk idle during every decryption; a download to a file
 * then costs the sum of both instead of the larger. Small pieces also cost a system call each.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */

/**
 * Bytes gathered before a write starts: large enough to amortise a call (each one also costs the main
 * thread a hand-over to the thread pool), small enough that writing starts early in a small file.
 */
export const WRITE_BATCH_BYTES = 256 * 1024;

/**
 * Bytes queued behind a write in flight before {@link WriteBehind.add} waits: the memory bound. Kept
 * small on purpose: a queued piece outlives the young generation, and 4 MiB raised the peak RSS of a
 * 1 GiB playback by 20-30 MiB (V8 frees old pieces late), 1 MiB by nothing measurable.
 */
export const WRITE_QUEUE_BYTES = 1024 * 1024;

/**
 * Batches pieces for `writeBatch`, one batch in flight at a time: a batch starts when at least
 * `batchBytes` are queued and no write is in flight; while one is, pieces queue (up to `queueBytes`, then
 * `add` waits), and they all go in the next call, so a slow disk gets fewer, larger writes.
 *
 * A failed batch fails the next {@link WriteBehind.add} or {@link WriteBehind.flush} (and every one after
 * it) with that batch's error; nothing queued after a failure reaches `writeBatch`.
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
  readonly #queueBytes: number;
  #parts: Uint8Array[] = [];
  #bytes = 0;
  #inFlight: Promise<void> | undefined;
  #failed = false;
  #failure: unknown;

  /**
   * @param writeBatch writes every part, in order, after everything written before (called one at a time).
   * @param limits `batchBytes` queued before a write starts (default {@link WRITE_BATCH_BYTES});
   *   `queueBytes` queued before `add` waits (default {@link WRITE_QUEUE_BYTES}).
   */
  constructor(
    writeBatch: (parts: Uint8Array[]) => Promise<void>,
    limits: { batchBytes?: number; queueBytes?: number } = {},
  ) {
    this.#writeBatch = writeBatch;
    this.#batchBytes = limits.batchBytes ?? WRITE_BATCH_BYTES;
    this.#queueBytes = Math.max(this.#batchBytes, limits.queueBytes ?? WRITE_QUEUE_BYTES);
  }

  /**
   * Queues `bytes`, which become this writer's: the caller must not change them afterwards. Resolves at
   * once, or, when the queue is full, once the write in flight is done.
   *
   * @throws whatever an earlier batch's write threw.
   */
  async add(bytes: Uint8Array): Promise<void> {
    this.#throwIfFailed();
    if (bytes.length === 0) return;
    this.#parts.push(bytes);
    this.#bytes += bytes.length;
    this.#pump(this.#batchBytes);
    while (this.#bytes >= this.#queueBytes && this.#inFlight) await this.#inFlight;
    this.#throwIfFailed();
  }

  /**
   * Writes what is queued and resolves once every byte is written.
   *
   * @throws whatever a batch's write threw.
   */
  async flush(): Promise<void> {
    this.#pump(1);
    while (this.#inFlight) {
      await this.#inFlight;
      this.#pump(1);
    }
    this.#throwIfFailed();
  }

  /** Drops what is queued and waits for the write in flight, ignoring its outcome (for error paths). */
  async settle(): Promise<void> {
    this.#parts = [];
    this.#bytes = 0;
    while (this.#inFlight) await this.#inFlight;
  }

  /** Starts a write of everything queued when nothing is in flight and at least `atLeast` bytes wait. */
  #pump(atLeast: number): void {
    if (this.#inFlight || this.#failed || this.#bytes < atLeast) return;
    const parts = this.#parts;
    this.#parts = [];
    this.#bytes = 0;
    // The promise in #inFlight never rejects: a failure is kept for the next add/flush to throw.
    this.#inFlight = this.#writeBatch(parts).then(
      () => {
        this.#inFlight = undefined;
        this.#pump(this.#batchBytes);
      },
      (error: unknown) => {
        this.#inFlight = undefined;
        this.#failed = true;
        this.#failure = error;
        this.#parts = [];
        this.#bytes = 0;
      },
    );
  }

  #throwIfFailed(): void {
    if (this.#failed) throw this.#failure;
  }
}
