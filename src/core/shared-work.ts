/**
 * Work shared by every caller of one key (the playback caches of Node and of the Expo app download a ref
 * once, however many open it at the same time): the first caller starts it, later ones join it, each
 * hears its progress and waits with its own signal, and it is cancelled only when every caller left.
 *
 * @module
 */
import { waitOrAbort } from './wait-or-abort.js';

/** A progress event of shared work, told to every caller that listens. */
export interface SharedProgress {
  done: number;
  total: number;
}

/** What the work is started with: its own signal (aborted when no caller is left) and where progress goes. */
export interface SharedWorkContext {
  signal: AbortSignal;
  onProgress: (event: SharedProgress) => void;
}

interface Running<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
  listeners: Set<(event: SharedProgress) => void>;
}

/**
 * The running work by key. A key's work is forgotten once it settled, so the next caller starts anew.
 *
 * @example
 * ```ts
 * const downloads = new SharedWork<File>();
 * const file = await downloads.join(id, ({ signal, onProgress }) => download(ref, signal, onProgress),
 *   { signal, onProgress }, 'the download');
 * ```
 */
export class SharedWork<T> {
  readonly #running = new Map<string, Running<T>>();

  /** Whether work under `key` is running now. */
  has(key: string): boolean {
    return this.#running.has(key);
  }

  /**
   * Waits for the work under `key`, started with `start` when none runs. A caller whose `signal` aborts
   * stops waiting at once; the work is aborted when that caller was the last one waiting.
   *
   * @param what - what the caller was doing, for the abort's message (`'the download'`).
   * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts first; else whatever the work rejects with.
   */
  join(
    key: string,
    start: (context: SharedWorkContext) => Promise<T>,
    options: { signal?: AbortSignal; onProgress?: (event: SharedProgress) => void },
    what: string,
  ): Promise<T> {
    let running = this.#running.get(key);
    if (running === undefined) {
      const controller = new AbortController();
      const listeners = new Set<(event: SharedProgress) => void>();
      const promise = start({
        signal: controller.signal,
        onProgress: (event) => {
          for (const listener of listeners) listener(event);
        },
      }).finally(() => this.#running.delete(key));
      // Work failing with no caller left must not become an unhandled rejection.
      promise.catch(() => undefined);
      running = { promise, controller, waiters: 0, listeners };
      this.#running.set(key, running);
    }
    const current = running;
    const { signal, onProgress } = options;
    current.waiters++;
    if (onProgress) current.listeners.add(onProgress);
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      current.waiters--;
      if (onProgress) current.listeners.delete(onProgress);
    };
    return waitOrAbort(
      current.promise,
      signal,
      () => {
        leave();
        if (current.waiters === 0) current.controller.abort(signal?.reason);
      },
      what,
    ).finally(leave);
  }
}
