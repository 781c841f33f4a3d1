/**
 * The one retry policy: which failures heal by themselves, how long to wait before trying again, and how
 * often. Every loop of the library that retries (Happy's API requests, Happy's attachment legs, the
 * resumable download, the size asked of a store) goes through {@link RetryBudget}, so they share:
 *
 * - **What is retried** ({@link isRetryableError}): an error marked retryable where it was made
 *   ({@link markRetryable}: a network failure, a timeout, a cut body, `408`, `429`, `5xx`), and an error
 *   that is not one of ours (a store of the app's, a runtime's stream): code that does not classify its
 *   failures is presumed to have met a transient one, and the bounded retries decide. Our own errors
 *   that are not marked never heal (`401`, `403`, `404`, a bad argument, an abort, a failed
 *   authentication) and are thrown at once, so the decision never depends on parsing messages.
 * - **How long to wait** ({@link retryDelay}): exponential from `retryDelayMs`, capped at
 *   `maxRetryDelayMs`, with jitter (half to all of the step) so many clients hitting one rate limit do
 *   not retry in lockstep. The wait is abortable: the caller's signal ends it at once with `ERR_ABORTED`.
 * - **How often**: `retries` failed attempts after the first; a loop that makes progress (a download that
 *   received another frame) starts its count again, so `retries` bounds consecutive failures.
 * - **Once only**: a failure that spent a budget is no longer retryable, so a loop around a loop (a
 *   download over a store that retries its own requests) does not multiply the attempts.
 *
 * Deadlines fit beside it: an idle attempt is a failure marked retryable (as a dropped connection is),
 * an overall deadline an unmarked one, so no loop retries it.
 *
 * @module
 */
import { assertNonNegativeInteger } from '../bytes.js';
import { AbortedError, HappyMediaError } from '../errors.js';

/** How often a loop retries and how long it waits; every option that takes these uses these names. */
export interface RetryPolicy {
  /** Failed attempts tolerated after the first (consecutive, where a loop makes progress); 0–100 (default 5). */
  retries?: number;
  /** Wait before the first retry in ms, doubled per retry, with jitter; 0–60 000 (default 250). */
  retryDelayMs?: number;
  /** Longest wait between attempts in ms; 0–600 000 (default 10 000). */
  maxRetryDelayMs?: number;
}

/** The policy every retrying loop uses unless its caller says otherwise. */
export const DEFAULT_RETRY_POLICY: Readonly<Required<RetryPolicy>> = Object.freeze({
  retries: 5,
  retryDelayMs: 250,
  maxRetryDelayMs: 10_000,
});

/**
 * Checks a caller's retry options and fills in the defaults.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` naming the first option out of its range.
 * @example
 * ```ts
 * const policy = retryPolicy({ retries: 2 }); // { retries: 2, retryDelayMs: 250, maxRetryDelayMs: 10000 }
 * ```
 */
export function retryPolicy(options: RetryPolicy = {}): Required<RetryPolicy> {
  return {
    retries: assertNonNegativeInteger(options.retries ?? DEFAULT_RETRY_POLICY.retries, 'retries', 100),
    retryDelayMs: assertNonNegativeInteger(
      options.retryDelayMs ?? DEFAULT_RETRY_POLICY.retryDelayMs,
      'retryDelayMs',
      60_000,
    ),
    maxRetryDelayMs: assertNonNegativeInteger(
      options.maxRetryDelayMs ?? DEFAULT_RETRY_POLICY.maxRetryDelayMs,
      'maxRetryDelayMs',
      600_000,
    ),
  };
}

const retryable = new WeakSet<object>();

/** True for statuses a later attempt may get past: 408, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** Marks `error` as retryable (a transient transport failure) and returns it. */
export function markRetryable<E extends object>(error: E): E {
  retryable.add(error);
  return error;
}

/**
 * True when a later attempt may get past `error`: it was marked retryable where it was made, or it is not
 * a happy-media error (a foreign store's or runtime's failure). Whether the caller aborted is decided by
 * its signal, not by the error.
 */
export function isRetryableError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return true;
  return retryable.has(error) || !(error instanceof HappyMediaError);
}

/**
 * The wait before retry number `retry` (1 for the first): `retryDelayMs · 2^(retry-1)`, capped at
 * `maxRetryDelayMs`, times a random factor in [0.5, 1].
 */
export function retryDelay(retry: number, policy: Required<RetryPolicy>): number {
  const step = Math.min(policy.maxRetryDelayMs, policy.retryDelayMs * 2 ** Math.min(retry - 1, 30));
  return Math.round(step * (0.5 + Math.random() / 2));
}

/**
 * Waits `ms` milliseconds, or rejects with {@link AbortedError} as soon as `signal` aborts (at once when
 * it already has).
 *
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new AbortedError('aborted while waiting to retry', { cause: signal.reason }));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError('aborted while waiting to retry', { cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Options of {@link RetryBudget} and {@link withRetries}. */
export interface RetryOptions extends RetryPolicy {
  /** Ends a wait with `ERR_ABORTED`; no retry is made once it aborted. */
  signal?: AbortSignal;
  /** Which errors to retry (default {@link isRetryableError}). */
  isRetryable?: (error: unknown) => boolean;
  /** Called before each wait with the retry number (1-based), the delay and the error (for logs and tests). */
  onRetry?: (retry: number, delayMs: number, error: unknown) => void;
}

/**
 * The retry state of one loop: counts its consecutive failures and decides, by the one policy, whether
 * and when another attempt is made.
 *
 * @example
 * ```ts
 * const budget = new RetryBudget({ retries: 3, signal });
 * for (;;) {
 *   try { await readMore(); budget.progressed(); }
 *   catch (error) { if (!(await budget.failed(error))) throw error; }
 * }
 * ```
 */
export class RetryBudget {
  readonly #policy: Required<RetryPolicy>;
  readonly #options: RetryOptions;
  #failures = 0;
  #spent = false;

  /** @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for retry options out of range. */
  constructor(options: RetryOptions = {}) {
    this.#policy = retryPolicy(options);
    this.#options = options;
  }

  /** Failed attempts since the start or the last progress. */
  get failures(): number {
    return this.#failures;
  }

  /** True once a retryable failure found no retry left (the caller may say so in its error). */
  get spent(): boolean {
    return this.#spent;
  }

  /** The loop moved forward: the next failure has the whole budget again and waits the first delay. */
  progressed(): void {
    this.#failures = 0;
  }

  /**
   * Counts a failed attempt. Resolves `true` after the wait when another attempt may be made; `false` at
   * once when it may not (the error cannot heal, the retries are spent, or the signal aborted): the caller
   * then throws. A spent error is unmarked, so no outer loop retries it again.
   *
   * @throws {AbortedError} `ERR_ABORTED` when the signal aborts during the wait.
   */
  async failed(error: unknown): Promise<boolean> {
    const { signal } = this.#options;
    if (signal?.aborted) return false;
    if (!(this.#options.isRetryable ?? isRetryableError)(error)) return false;
    this.#failures++;
    if (this.#failures > this.#policy.retries) {
      this.#spent = true;
      if (typeof error === 'object' && error !== null) retryable.delete(error);
      return false;
    }
    const delay = retryDelay(this.#failures, this.#policy);
    this.#options.onRetry?.(this.#failures, delay, error);
    await abortableSleep(delay, signal);
    return true;
  }
}

/**
 * Runs `attempt` until it succeeds, it fails with an error that cannot heal, or the retries are spent
 * (then the last error is thrown), waiting by the one backoff rule between attempts.
 *
 * @throws the last error of `attempt`; {@link AbortedError} when `signal` aborts while waiting.
 * @example
 * ```ts
 * const answer = await withRetries(() => postJson(url, body), { retries: 3 });
 * ```
 */
export async function withRetries<T>(
  attempt: (n: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const budget = new RetryBudget(options);
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!(await budget.failed(error))) throw error;
    }
  }
}
