/**
 * Timeouts from user values. A JavaScript timer cannot wait longer than 2^31 − 1 ms (about 24.8 days):
 * `setTimeout(f, 2 ** 31)` fires after 1 ms (Node prints a `TimeoutOverflowWarning`, browsers say
 * nothing). So `probe --timeout 2147483648`, `probeTimeoutMs` or an `HttpBlobStore` `timeoutMs` of 2^31
 * or more meant "fail at once" instead of "wait very long". Every timeout taken from a caller goes
 * through {@link checkedTimeoutMs}: it must be a non-negative integer, and is clamped to
 * {@link MAX_TIMER_DELAY_MS}, which is longer than anything we wait for.
 *
 * @module
 */
import { assertNonNegativeInteger } from './bytes.js';
import { LimitError } from './errors.js';

/** The longest delay a timer honours: 2^31 − 1 ms (about 24.8 days). */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * Checks a timeout given by a caller and returns it ready for `setTimeout`: a non-negative integer of
 * milliseconds, clamped to {@link MAX_TIMER_DELAY_MS}. Where the caller documents `0` as "no limit",
 * it stays `0`.
 *
 * @param value - the caller's value.
 * @param name - the option's name, for the message (`'timeoutMs'`, `'--timeout'`).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for anything but a non-negative safe integer.
 * @example
 * ```ts
 * this.timeoutMs = checkedTimeoutMs(options.timeoutMs ?? 60_000, 'timeoutMs'); // 2 ** 40 → 2147483647
 * ```
 */
export function checkedTimeoutMs(value: unknown, name: string): number {
  return Math.min(assertNonNegativeInteger(value, name), MAX_TIMER_DELAY_MS);
}

/**
 * What a request's timer aborts it with: the limit that was hit, as a {@link LimitError}. The caller turns
 * the aborted request into its own error (e.g. a retryable `ERR_DOWNLOAD_FAILED`) and keeps this as its
 * `cause`.
 *
 * @example
 * ```ts
 * const timer = setTimeout(() => controller.abort(timeoutReason(timeoutMs)), timeoutMs);
 * ```
 */
export function timeoutReason(timeoutMs: number, name = 'timeoutMs'): LimitError {
  return new LimitError(`no answer within ${timeoutMs} ms (${name})`);
}

/**
 * A request's own abort signal: it aborts when the caller's signal does, or when no response head came
 * within `timeoutMs` (with {@link timeoutReason} as its reason). Every HTTP request of the library makes
 * its signal this one way, so a timeout of `0` means "no limit" everywhere and every request lets go of
 * the caller's signal when it is done.
 */
export interface RequestSignal {
  /** Pass to `fetch`; it also ends the response body when aborted after the head. */
  readonly signal: AbortSignal;
  /** Whether the head timer, not the caller, aborted the request. */
  readonly timedOut: boolean;
  /** Stops the head timer (call once the head arrived, or the request failed). */
  stopTimer(): void;
  /** Lets go of the caller's signal (call when the body is read or dropped); stops the timer too. */
  release(): void;
}

/**
 * Makes a {@link RequestSignal} linked to the caller's `signal`, with a head timer of `timeoutMs`
 * (`0`: none). An already aborted caller's signal aborts it at once.
 *
 * @param signal - the caller's signal, if any.
 * @param timeoutMs - a value from {@link checkedTimeoutMs}.
 * @example
 * ```ts
 * const request = requestSignal(options.signal, timeoutMs);
 * try {
 *   const response = await fetch(url, { signal: request.signal });
 *   request.stopTimer();
 *   return await response.text();
 * } finally {
 *   request.release();
 * }
 * ```
 */
export function requestSignal(signal: AbortSignal | undefined, timeoutMs: number): RequestSignal {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined =
    timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(timeoutReason(timeoutMs));
        }, timeoutMs)
      : undefined;
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const stopTimer = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    stopTimer,
    release: () => {
      stopTimer();
      signal?.removeEventListener('abort', onAbort);
    },
  };
}
