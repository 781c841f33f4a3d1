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
  const { store, ref, size, signal } = options;
  const resumePoint = options.resumePoint ?? ((received: number) => received);
  const budget = new RetryBudget(options);
  const idleTimeoutMs = checkedIdleTimeoutMs(options.idleTimeoutMs);
  const deadlineMs =
    options.deadlineMs === undefined
      ? defaultDownloadDeadlineMs(size)
      : checkedTimeoutMs(options.deadlineMs, 'deadlineMs');
  // Set on the first pull: the clock runs while someone reads.
  let deadlineAt: number | undefined;
  let progressAt = 0;

  let committed = 0; // bytes handed downstream: always a resume point
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let cancelled = false;

  const dropConnection = () => {
    const current = reader;
    reader = undefined;
    pending = [];
    pendingBytes = 0;
    current?.cancel().catch(() => undefined);
  };
  const onAbort = () => dropConnection();
  signal?.addEventListener('abort', onAbort, { once: true });

  // Hands on the first `count` pending bytes as they arrived (views, no copying): the decryptor accepts
  // any split, and copying every network read would cost as much as the download itself.
  const takePending = (count: number): Uint8Array[] => {
    const out: Uint8Array[] = [];
    let left = count;
    while (left > 0) {
      const first = pending[0]!;
      if (first.length <= left) {
        out.push(first);
        pending.shift();
        left -= first.length;
      } else {
        out.push(first.subarray(0, left));
        pending[0] = first.subarray(left);
        left = 0;
      }
    }
    pendingBytes -= count;
    return out;
  };

  /** The download's overall failure: the deadline passed (not marked retryable: final). */
  const overDeadline = () =>
    new StorageError(
      `downloading ${ref} did not finish within ${deadlineMs} ms (deadlineMs; ${committed} of ${size} bytes arrived); raise the deadline for a slow link`,
      { code: 'ERR_DOWNLOAD_FAILED' },
    );

  /** `step` (a request or a read of the connection), bounded by the idle timeout and the overall deadline. */
  const bounded = <T>(step: Promise<T>): Promise<T> => {
    const now = Date.now();
    const idleAt = progressAt + idleTimeoutMs;
    const endAt = deadlineAt === undefined ? idleAt : Math.min(idleAt, deadlineAt);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      const arm = (wait: number): void => {
        timer = setTimeout(() => {
          // The clock decides, not the timer: a runtime whose timers fire early (the Hermes CLI VM runs
          // them as soon as nothing else is queued) must not end a live connection.
          const left = endAt - Date.now();
          if (left > 0) return arm(left);
          reject(
            deadlineAt !== undefined && Date.now() >= deadlineAt
              ? overDeadline()
              : connectionFailed(`nothing new arrived for ${idleTimeoutMs} ms (idleTimeoutMs)`),
          );
        }, wait);
      };
      arm(Math.max(0, endAt - now));
    });
    return Promise.race([step, expired]).finally(() => clearTimeout(timer));
  };

  const fail = (error: unknown): never => {
    signal?.removeEventListener('abort', onAbort);
    dropConnection();
    if (signal?.aborted) throw new AbortedError('the download was aborted', { cause: signal.reason });
    throw error;
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          // Downstream gave up (a tag failed, the consumer stopped): never fetch again.
          if (cancelled) return;
          if (signal?.aborted) fail(undefined);
          if (deadlineAt === undefined && deadlineMs > 0) deadlineAt = Date.now() + deadlineMs;
          if (committed === size) {
            signal?.removeEventListener('abort', onAbort);
            controller.close();
            return;
          }
          try {
            if (!reader) {
              options.onAttempt?.(committed);
              if (deadlineAt !== undefined && Date.now() >= deadlineAt) throw overDeadline();
              progressAt = Date.now();
              const request = store.get(
                ref,
                { offset: committed, length: size - committed },
                options.onSize === undefined ? { signal } : { signal, onSize: options.onSize },
              );
              let body: ReadableStream<Uint8Array>;
              try {
                body = await bounded(request);
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
              reader = body.getReader();
            }
            const { done, value } = await bounded(reader.read());
            const received = committed + pendingBytes;
            if (done) {
              if (received < size) {
                throw connectionFailed(`the connection closed at byte ${received} of ${size}`);
              }
              for (const part of takePending(pendingBytes)) controller.enqueue(part);
              committed = size;
              continue;
            }
            if (received + value.length > size) {
              // Not marked retryable: a store that sends more than it announced does not heal.
              throw new StorageError(
                `the store sent more than the ${size} bytes it announced for ${ref}; it is misbehaving`,
                { code: 'ERR_DOWNLOAD_FAILED' },
              );
            }
            if (value.length === 0) continue;
            pending.push(value);
            pendingBytes += value.length;
            const total = committed + pendingBytes;
            const point = total === size ? size : resumePoint(total);
            if (point > committed) {
              for (const part of takePending(point - committed)) controller.enqueue(part);
              committed = point;
              budget.progressed();
              progressAt = Date.now();
              return;
            }
          } catch (error) {
            if (cancelled) return;
            dropConnection();
            let retry: boolean;
            try {
              retry = await budget.failed(error);
            } catch (abort) {
              return fail(abort);
            }
            if (cancelled) return;
            if (!retry) {
              fail(
                budget.spent
                  ? new StorageError(
                      `downloading ${ref} failed ${budget.failures} times in a row at byte ${committed} of ${size}: ${
                        error instanceof Error ? error.message : String(error)
                      }`,
                      { code: 'ERR_DOWNLOAD_FAILED', cause: error },
                    )
                  : error,
              );
            }
          }
        }
      },
      cancel() {
        cancelled = true;
        signal?.removeEventListener('abort', onAbort);
        dropConnection();
      },
    },
    // A few frames of read-ahead let download, decryption and disk writes overlap.
    new CountQueuingStrategy({ highWaterMark: 4 }),
  );
}
