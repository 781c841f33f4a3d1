/**
 * A ciphertext download that survives dropped connections.
 *
 * The stream hands bytes downstream only in whole frames (the 56-byte header, then whole 16400-byte
 * chunk ciphertexts), so everything downstream of it has been, or is about to be, authenticated as a
 * unit. When the connection drops, the bytes of the unfinished frame are discarded and the download
 * resumes with a Range request at the last frame boundary handed on. Retries follow the one policy
 * (transport/retry.ts): after `retries` consecutive failed attempts without a new frame, the download
 * fails with `ERR_DOWNLOAD_FAILED`; errors that cannot heal (missing ref, bad ref, a store that sends
 * more than it announced, the overall deadline, abort) fail at once.
 *
 * Corruption is not this module's business and is never retried: the decryptor downstream fails, and its
 * error cancels this stream.
 *
 * @module
 */
import { AbortedError, InvalidArgumentError, StorageError } from '../errors.js';
import { checkedTimeoutMs, MAX_TIMER_DELAY_MS } from '../timeout.js';
import { markRetryable, RetryBudget, type RetryPolicy } from '../transport/retry.js';

/**
 * The part of the `BlobStore` contract (docs/architecture.md) that playback reads through: every store
 * of `happy-media/node`, and {@link fetchBlobSource} (plain `fetch` with Range requests) anywhere.
 */
export interface ReadableBlobStore {
  /** Streams the blob, whole or the byte range [offset, offset + length). Throws ERR_NOT_FOUND when absent. */
  get(
    ref: string,
    range?: { offset: number; length: number },
    options?: { signal?: AbortSignal; onSize?: (size: number) => void },
  ): Promise<ReadableStream<Uint8Array>>;
  /** Size of the stored blob. Throws ERR_NOT_FOUND when absent. */
  head(ref: string): Promise<{ size: number }>;
}

/** Options of {@link resumableDownload}. */
export interface ResumableDownloadOptions extends RetryPolicy {
  /** Where the blob is. */
  store: ReadableBlobStore;
  /** The blob's ref (already validated). */
  ref: string;
  /** Total ciphertext size in bytes (from `head`). */
  size: number;
  /**
   * The largest offset at or below `received` where a download may resume, i.e. a frame boundary.
   * Bytes are only handed downstream up to such a point. Defaults to every byte (no framing).
   */
  resumePoint?: (received: number) => number;
  /**
   * An attempt that hands on nothing new for this long counts as a dropped connection and is retried:
   * no new whole frame (with `resumePoint`), else no new byte. A silent connection and one that drips a
   * few bytes a second alike. Default 30 000.
   */
  idleTimeoutMs?: number;
  /**
   * The whole download, all attempts together, must end within this many ms, else it fails with
   * `ERR_DOWNLOAD_FAILED` (not retried). Default 10 minutes + 1 s per 64 KiB of `size`; 0: none.
   */
  deadlineMs?: number;
  /** Cancels the download with `ERR_ABORTED`. */
  signal?: AbortSignal;
  /** Called at the start of each attempt with the offset it resumes from (for tests and logs). */
  onAttempt?: (offset: number) => void;
  /** Passed to the store's `get`: the stored blob's whole size, when an answer tells it. */
  onSize?: (size: number) => void;
  /**
   * End without an error where the stored blob ends, when an answer states its whole size (`onSize`),
   * that size is short of `size`, and every byte of it came: such a blob is not cut off on the way, and
   * asking again would bring the same bytes after every retry's delay. What reads the download decides
   * (a decryptor refuses the truncation at once; a manifest of media in parts is short by design).
   * Without it (and for a store that states nothing) an answer that ends early is a dropped connection.
   */
  endAtStoredSize?: boolean;
}

/**
 * Default idle timeout of a download attempt: 30 s without a new frame (16400 bytes) is a dropped
 * connection, i.e. anything slower than ~550 bytes/s is retried from the last frame boundary.
 */
export const DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS = 30_000;

/**
 * Checks a download's `idleTimeoutMs` (default {@link DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS}) and returns it
 * ready for a timer: a positive integer of milliseconds, clamped as {@link checkedTimeoutMs} clamps. `0`
 * is refused: every attempt would count as dropped at once.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for anything but a positive safe integer.
 * @example
 * ```ts
 * checkedIdleTimeoutMs(undefined); // 30_000
 * ```
 */
export function checkedIdleTimeoutMs(value: number | undefined): number {
  const idleTimeoutMs = checkedTimeoutMs(value ?? DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS, 'idleTimeoutMs');
  if (idleTimeoutMs === 0) {
    throw new InvalidArgumentError(
      'expected a positive number of milliseconds for `idleTimeoutMs` but received 0',
    );
  }
  return idleTimeoutMs;
}

/**
 * The default overall deadline of downloading `size` bytes: 10 minutes, plus one second per 64 KiB. A
 * download that stays slower than 64 KiB/s on average past its first ten minutes fails rather than run
 * for hours (a 10 MB photo gets 12.5 minutes, a 1 GiB video 4.6 hours).
 *
 * @example
 * ```ts
 * defaultDownloadDeadlineMs(10_000_000); // 752_587
 * ```
 */
export function defaultDownloadDeadlineMs(size: number): number {
  return Math.min(MAX_TIMER_DELAY_MS, 600_000 + Math.ceil((size * 1000) / 65_536));
}

/** Frame boundaries of a Cobblestone-256 ciphertext: 0, 56, 56 + 16400, 56 + 2 * 16400, ... */
export function chunkedResumePoint(headerSize: number, frameSize: number): (received: number) => number {
  return (received) =>
    received < headerSize ? 0 : headerSize + Math.floor((received - headerSize) / frameSize) * frameSize;
}

/** A transient failure of the connection (dropped, cut short, idle): the download resumes. */
function connectionFailed(what: string): StorageError {
  return markRetryable(new StorageError(what, { code: 'ERR_DOWNLOAD_FAILED' }));
}

/**
 * Streams `size` bytes of `ref`, resuming at frame boundaries after dropped connections.
 *
 * @throws (through the stream) {StorageError} `ERR_DOWNLOAD_FAILED` after the retries are spent, or when
 *   the store sends more bytes than announced; `ERR_NOT_FOUND` at once; {AbortedError} on abort.
 * @example
 * ```ts
 * const ct = resumableDownload({ store, ref, size, resumePoint: chunkedResumePoint(56, 16400) });
 * const pt = ct.pipeThrough(createDecryptStream(key, { context: mediaBlobContext(ref) }));
 * ```
 */
export function resumableDownload(options: ResumableDownloadOptions): ReadableStream<Uint8Array> {
  const download = new ResumableDownload(options);
  return new ReadableStream<Uint8Array>(
    { pull: (controller) => download.pull(controller), cancel: () => download.cancel() },
    // A few frames of read-ahead let download, decryption and disk writes overlap.
    new CountQueuingStrategy({ highWaterMark: 4 }),
  );
}

/**
 * A resumable download read without a `ReadableStream` between it and its one consumer: each `read`
 * resolves with the frames that arrived since the last one (views of the network reads, in order),
 * `undefined` once the download is complete. A stream would cost each network read an enqueue, a read
 * and a pull (promises and queue bookkeeping on the main thread) for nothing the consumer needs.
 * Network reads go on ahead of the consumer, up to {@link FRAMES_READ_AHEAD_BYTES}, as a stream's queue
 * would: the next pieces arrive while these are decrypted, and a consumer that fell behind a fast source
 * takes several reads' frames at once (one decryptor push for all of them).
 *
 * @internal
 */
export interface FrameReader {
  /** The frames arrived since the last read; `undefined` at the end. Rejects as the stream would error. */
  read(): Promise<Uint8Array[] | undefined>;
  /** The consumer gave up: drops the connection and never fetches again. */
  cancel(): Promise<void>;
}

/** Bytes a {@link FrameReader} reads ahead of its consumer at most (16 chunks). */
const FRAMES_READ_AHEAD_BYTES = 256 * 1024;

/**
 * The download of {@link resumableDownload} as a {@link FrameReader} (same frames, retries and errors).
 *
 * @internal
 */
export function resumableFrames(options: ResumableDownloadOptions): FrameReader {
  return new FramesOf(new ResumableDownload(options));
}

/** Where a download hands on its frames: a stream's controller, or a {@link FrameReader}'s batch. */
interface FrameTarget {
  enqueue(frame: Uint8Array): void;
  close(): void;
}

/** {@link resumableFrames}: pulls of the download one at a time, ahead of the consumer. */
class FramesOf implements FrameReader, FrameTarget {
  readonly #download: ResumableDownload;
  /** Frames arrived and not read yet, in order. */
  #ready: Uint8Array[] = [];
  #readyBytes = 0;
  #pulling: Promise<void> | undefined;
  #closed = false;
  #failed: { error: unknown } | undefined;

  constructor(download: ResumableDownload) {
    this.#download = download;
  }

  enqueue(frame: Uint8Array): void {
    this.#ready.push(frame);
    this.#readyBytes += frame.length;
  }

  close(): void {
    this.#closed = true;
  }

  async read(): Promise<Uint8Array[] | undefined> {
    for (;;) {
      // A failure is reported at once, as a stream's error drops what it had queued.
      if (this.#failed) throw this.#failed.error;
      if (this.#ready.length > 0) {
        const frames = this.#ready;
        this.#ready = [];
        this.#readyBytes = 0;
        this.#pull();
        return frames;
      }
      if (this.#closed) return undefined;
      await this.#pull();
    }
  }

  async cancel(): Promise<void> {
    this.#closed = true;
    this.#download.cancel();
  }

  /**
   * Starts the next pull unless one is in flight, the download ended or enough is read ahead; each pull
   * that ends starts the next. Resolves when the pull in flight is done.
   */
  #pull(): Promise<void> | undefined {
    if (
      this.#pulling === undefined &&
      !this.#closed &&
      !this.#failed &&
      this.#readyBytes < FRAMES_READ_AHEAD_BYTES
    ) {
      this.#pulling = this.#download.pull(this).then(
        () => {
          this.#pulling = undefined;
          this.#pull();
        },
        (error: unknown) => {
          this.#pulling = undefined;
          this.#failed = { error };
        },
      );
    }
    return this.#pulling;
  }
}

/** A step of a download bounded by its clocks: when its time is up, and how to fail it then. */
interface BoundedStep {
  endAt: number;
  deadlineAt: number | undefined;
  fail: (error: unknown) => void;
}

/**
 * One download's state: the connection it reads (if any), the bytes it holds until the next resume point,
 * what it handed on, and the clocks (idle and overall) that bound every step.
 */
class ResumableDownload {
  readonly #options: ResumableDownloadOptions;
  readonly #resumePoint: (received: number) => number;
  readonly #budget: RetryBudget;
  readonly #idleTimeoutMs: number;
  readonly #deadlineMs: number;
  /** Set on the first pull: the clock runs while someone reads. */
  #deadlineAt: number | undefined;
  #progressAt = 0;
  /** Bytes handed downstream: always a resume point, or the end of a shorter stored blob. */
  #committed = 0;
  /** Where the download ends: `size`, or where a shorter stored blob ended (`endAtStoredSize`). */
  #end: number;
  /** The stored blob's whole size, as the store's answers state it (`onSize`), when they do. */
  #statedSize: number | undefined;
  /** Bytes received after `#committed`, as they arrived. */
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #cancelled = false;
  /** The step in flight that the idle clock and the deadline bound ({@link ResumableDownload.#bounded}). */
  #step: BoundedStep | undefined;
  /** The one timer behind every bounded step, while armed. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #onAbort = () => this.#dropConnection();

  /** @throws {InvalidArgumentError} for a retry policy, `idleTimeoutMs` or `deadlineMs` out of range. */
  constructor(options: ResumableDownloadOptions) {
    this.#options = options;
    this.#resumePoint = options.resumePoint ?? ((received: number) => received);
    this.#end = options.size;
    this.#budget = new RetryBudget(options);
    this.#idleTimeoutMs = checkedIdleTimeoutMs(options.idleTimeoutMs);
    this.#deadlineMs =
      options.deadlineMs === undefined
        ? defaultDownloadDeadlineMs(options.size)
        : checkedTimeoutMs(options.deadlineMs, 'deadlineMs');
    options.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Hands on the next frames (or closes at the end), retrying dropped connections within the budget. */
  async pull(controller: FrameTarget): Promise<void> {
    const { signal } = this.#options;
    for (;;) {
      // Downstream gave up (a tag failed, the consumer stopped): never fetch again.
      if (this.#cancelled) return;
      if (signal?.aborted) this.#fail(undefined);
      if (this.#deadlineAt === undefined && this.#deadlineMs > 0) {
        this.#deadlineAt = Date.now() + this.#deadlineMs;
      }
      if (this.#committed === this.#end) {
        signal?.removeEventListener('abort', this.#onAbort);
        this.#stopClock();
        controller.close();
        return;
      }
      try {
        if (await this.#readOnce(controller)) return;
      } catch (error) {
        if (this.#cancelled) return;
        await this.#retryOrFail(error);
      }
    }
  }

  /** Downstream cancelled: drop the connection, and never fetch again. */
  cancel(): void {
    this.#cancelled = true;
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
    this.#dropConnection();
  }

  /**
   * One read of the connection (opened first if there is none); true when it handed on new frames. All
   * of a connection that ended is handed on only when every byte arrived: every byte of `size`, or (with
   * `endAtStoredSize`) every byte of a stored blob the store states is shorter.
   */
  async #readOnce(controller: FrameTarget): Promise<boolean> {
    const { size, ref } = this.#options;
    const reader = this.#reader ?? (await this.#connect());
    const { done, value } = await this.#bounded(reader.read());
    const received = this.#committed + this.#pendingBytes;
    if (done) {
      if (received < size) {
        if (!this.#options.endAtStoredSize || received !== this.#statedSize)
          throw connectionFailed(`the connection closed at byte ${received} of ${size}`);
        this.#end = received;
      }
      this.#handOn(controller, this.#end);
      return false;
    }
    if (received + value.length > size) {
      // Not marked retryable: a store that sends more than it announced does not heal.
      throw new StorageError(
        `the store sent more than the ${size} bytes it announced for ${ref}; it is misbehaving`,
        { code: 'ERR_DOWNLOAD_FAILED' },
      );
    }
    if (value.length === 0) return false;
    this.#pending.push(value);
    this.#pendingBytes += value.length;
    const total = received + value.length;
    const point = total === size ? size : this.#resumePoint(total);
    if (point <= this.#committed) return false;
    this.#handOn(controller, point);
    this.#budget.progressed();
    this.#progressAt = Date.now();
    return true;
  }

  /** Asks the store for the rest, from the last resume point; the answer's head is bounded like a read. */
  async #connect(): Promise<ReadableStreamDefaultReader<Uint8Array>> {
    const { store, ref, size, signal, onSize } = this.#options;
    this.#options.onAttempt?.(this.#committed);
    if (this.#deadlineAt !== undefined && Date.now() >= this.#deadlineAt) throw this.#overDeadline();
    this.#progressAt = Date.now();
    const request = store.get(
      ref,
      { offset: this.#committed, length: size - this.#committed },
      {
        signal,
        onSize: (stated) => {
          this.#statedSize = stated;
          onSize?.(stated);
        },
      },
    );
    let body: ReadableStream<Uint8Array>;
    try {
      body = await this.#bounded(request);
    } catch (error) {
      // Given up on: a body that still arrives is closed, not left holding a connection.
      request
        .then(
          (late) => late.cancel(),
          () => undefined,
        )
        .catch(() => undefined);
      throw error;
    }
    this.#reader = body.getReader();
    return this.#reader;
  }

  /**
   * Enqueues the pending bytes up to `point` as they arrived (views, no copying): the decryptor accepts
   * any split, and copying every network read would cost as much as the download itself.
   */
  #handOn(controller: FrameTarget, point: number): void {
    let left = point - this.#committed;
    this.#pendingBytes -= left;
    this.#committed = point;
    while (left > 0) {
      const first = this.#pending[0] as Uint8Array;
      if (first.length <= left) {
        controller.enqueue(first);
        this.#pending.shift();
        left -= first.length;
      } else {
        controller.enqueue(first.subarray(0, left));
        this.#pending[0] = first.subarray(left);
        left = 0;
      }
    }
  }

  /**
   * After a failed step: the connection is dropped and, when the budget allows, the next attempt waits its
   * delay; otherwise the download fails (with the spent budget said in the error).
   */
  async #retryOrFail(error: unknown): Promise<void> {
    const { ref, size } = this.#options;
    this.#dropConnection();
    let retry: boolean;
    try {
      retry = await this.#budget.failed(error);
    } catch (abort) {
      this.#fail(abort);
    }
    if (this.#cancelled || retry) return;
    this.#fail(
      this.#budget.spent
        ? new StorageError(
            `downloading ${ref} failed ${this.#budget.failures} times in a row at byte ${this.#committed} of ${size}: ${
              error instanceof Error ? error.message : String(error)
            }`,
            { code: 'ERR_DOWNLOAD_FAILED', cause: error },
          )
        : error,
    );
  }

  /**
   * `step` (a request or a read of the connection), bounded by the idle timeout and the overall deadline.
   * One timer serves every step rather than one per step (a timer set and cleared per network read cost
   * the main thread more than the read's own bookkeeping): it is armed by a step and left running when
   * the step settles, since the next one, which ends no earlier (the clocks only move forward), follows
   * at once; when it fires it fails the step then in flight if that one's time is up, waits for the rest
   * of its time if not, and stops when none is in flight. The download's end stops it.
   */
  #bounded<T>(step: Promise<T>): Promise<T> {
    const deadlineAt = this.#deadlineAt;
    const idleAt = this.#progressAt + this.#idleTimeoutMs;
    const endAt = deadlineAt === undefined ? idleAt : Math.min(idleAt, deadlineAt);
    return new Promise<T>((resolve, reject) => {
      const bounded: BoundedStep = { endAt, deadlineAt, fail: reject };
      this.#step = bounded;
      const settled = () => {
        if (this.#step === bounded) this.#step = undefined;
      };
      step.then(
        (value) => {
          settled();
          resolve(value);
        },
        (error: unknown) => {
          settled();
          reject(error);
        },
      );
      this.#timer ??= setTimeout(this.#expire, Math.max(0, endAt - Date.now()));
    });
  }

  /** The timer of {@link ResumableDownload.#bounded}: fails the step in flight once its time is up. */
  readonly #expire = (): void => {
    this.#timer = undefined;
    const step = this.#step;
    if (step === undefined) return;
    // The clock decides, not the timer: a runtime whose timers fire early (the Hermes CLI VM runs them as
    // soon as nothing else is queued) must not end a live connection.
    const left = step.endAt - Date.now();
    if (left > 0) {
      this.#timer = setTimeout(this.#expire, left);
      return;
    }
    this.#step = undefined;
    step.fail(
      step.deadlineAt !== undefined && Date.now() >= step.deadlineAt
        ? this.#overDeadline()
        : connectionFailed(`nothing new arrived for ${this.#idleTimeoutMs} ms (idleTimeoutMs)`),
    );
  };

  /** Stops the timer of the bounded steps (the download ended, or its connection was dropped). */
  #stopClock(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#step = undefined;
  }

  /** The download's overall failure: the deadline passed (not marked retryable: final). */
  #overDeadline(): StorageError {
    const { ref, size } = this.#options;
    return new StorageError(
      `downloading ${ref} did not finish within ${this.#deadlineMs} ms (deadlineMs; ${this.#committed} of ${size} bytes arrived); raise the deadline for a slow link`,
      { code: 'ERR_DOWNLOAD_FAILED' },
    );
  }

  /** Ends the download with `error` (`ERR_ABORTED` when the signal aborted). */
  #fail(error: unknown): never {
    const { signal } = this.#options;
    signal?.removeEventListener('abort', this.#onAbort);
    this.#dropConnection();
    if (signal?.aborted) throw new AbortedError('the download was aborted', { cause: signal.reason });
    throw error;
  }

  /** Cancels the connection (if any) and forgets the bytes received after the last resume point. */
  #dropConnection(): void {
    this.#stopClock();
    const current = this.#reader;
    this.#reader = undefined;
    this.#pending = [];
    this.#pendingBytes = 0;
    current?.cancel().catch(() => undefined);
  }
}
