/**
 * Which transport failures heal by themselves, and a bounded retry loop for them.
 *
 * A retryable failure is one a later attempt can fix: a network error, a timeout, `408`, `429` (rate
 * limit) and `5xx`. `401`, `403` and `404` never heal and are never retried; neither is an abort or a
 * bad argument. Errors are marked where they are made ({@link markRetryable}), so the decision does
 * not depend on parsing messages.
 *
 * @module
 */
import { AbortedError } from '../errors.js';

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

/** True when `error` was marked retryable by the transport layer. */
export function isRetryableError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && retryable.has(error);
}

/** Options of {@link withRetries}. */
export interface RetryOptions {
  /** Attempts after the first one (default 4). */
  retries?: number;
  /** Delay before the first retry in ms; doubles per retry (default 200). */
  baseDelayMs?: number;
  /** Largest delay between attempts in ms (default 5000). */
  maxDelayMs?: number;
  /** Cancels the waiting (`ERR_ABORTED`). */
  signal?: AbortSignal;
  /** Which errors to retry (default {@link isRetryableError}). */
  isRetryable?: (error: unknown) => boolean;
  /** Called before each retry with the attempt number (1-based) and the delay (for logs and tests). */
  onRetry?: (attempt: number, delayMs: number, error: unknown) => void;
}

/**
 * Runs `attempt` until it succeeds, it fails with an error that is not retryable, or the retries are
 * spent (then the last error is thrown). The backoff is exponential with jitter, capped.
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
  const retries = options.retries ?? 4;
  const base = options.baseDelayMs ?? 200;
  const cap = options.maxDelayMs ?? 5000;
  const canRetry = options.isRetryable ?? isRetryableError;
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (n >= retries || !canRetry(error) || options.signal?.aborted) throw error;
      // Full jitter keeps many clients hitting one rate limit from retrying in lockstep.
      const delay = Math.round(Math.min(cap, base * 2 ** n) * (0.5 + Math.random() / 2));
      options.onRetry?.(n + 1, delay, error);
      await sleep(delay, options.signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
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
