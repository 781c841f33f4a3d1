/**
 * Waiting for work shared between callers, each with its own abort signal: a caller that aborts stops
 * waiting at once (and says so, so the shared work can stop when no one waits any more), while the work
 * goes on for the others. {@link SharedWork} (shared-work.ts) waits this way for every caller of a
 * download the playback caches of Node and of the Expo app share.
 *
 * @module
 */
import { AbortedError } from './errors.js';

/**
 * Resolves or rejects as `promise` does, unless `signal` aborts first (or already has): then `onAbort`
 * runs once and the result is an {@link AbortedError} saying that `what` was aborted, with the signal's
 * reason as its cause. The listener on `signal` is removed either way.
 *
 * @param promise - the shared work.
 * @param signal - this caller's signal, if any.
 * @param onAbort - what this caller's leaving does to the shared work (e.g. one waiter fewer).
 * @param what - what the caller was doing, for the message (`'the download'`).
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts first; else whatever `promise` rejects with.
 * @example
 * ```ts
 * const file = await waitOrAbort(shared.promise, signal, () => shared.waiters--, 'the download');
 * ```
 */
export function waitOrAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: () => void,
  what: string,
): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      onAbort();
      reject(new AbortedError(`${what} was aborted`, { cause: signal.reason }));
    };
    // Handlers go on the shared promise even for a caller that has already left, so its failure is
    // never an unhandled rejection when this caller was its last waiter.
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}
