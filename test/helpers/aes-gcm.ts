/**
 * AES-GCM implementations for tests, made from the real ones: a synchronous implementation wrapped as an
 * asynchronous one (its calls settle later and out of order, as a thread pool's or a native bridge's do),
 * and one without its fast paths (so the drivers' plain `seal`/`open` path runs on node:crypto too).
 */
import type { AsyncAesGcm, SyncAesGcm } from '../../src/core/aes-gcm/aes-gcm.js';

/** Settles after `turns` macrotasks: calls made together then finish in another order than made. */
function later<T>(work: () => T, turns: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const step = (left: number) => {
      if (left > 0) {
        setTimeout(() => step(left - 1), 0);
        return;
      }
      try {
        resolve(work());
      } catch (error) {
        reject(error);
      }
    };
    step(turns);
  });
}

/** Options of {@link asAsync}. */
export interface AsAsyncOptions {
  /** Counts every seal/open call and the largest number in flight at once. */
  calls?: { seal: number; open: number; inFlight: number; maxInFlight: number };
}

/**
 * `sync` as an {@link AsyncAesGcm} (name `async-<name>`): every call reads its inputs only when it runs,
 * a few macrotasks after it was made (so an engine that changed an input before the call settled would
 * give wrong bytes), and calls settle out of order.
 */
export function asAsync(sync: SyncAesGcm, options: AsAsyncOptions = {}): AsyncAesGcm {
  const { calls } = options;
  let n = 0;
  const track = <T>(kind: 'seal' | 'open', work: () => T): Promise<T> => {
    if (calls) {
      calls[kind]++;
      calls.inFlight++;
      calls.maxInFlight = Math.max(calls.maxInFlight, calls.inFlight);
    }
    // 0 to 2 turns, varying from call to call: later calls may settle first.
    return later(work, (n++ * 7) % 3).finally(() => {
      if (calls) calls.inFlight--;
    });
  };
  return {
    name: `async-${sync.name}`,
    mode: 'async',
    importKey: (key) => later(() => sync.importKey(key), 1),
    seal: (key, nonce, plaintext) => track('seal', () => sync.seal(key, nonce, plaintext)),
    open: (key, nonce, sealed) => track('open', () => sync.open(key, nonce, sealed)),
  };
}

/** What {@link countedAsync} counts: seal/open calls, the most in flight at once, and key imports. */
export type CountedCalls = Required<AsAsyncOptions>['calls'] & { imports: number };

/** {@link asAsync} of `sync` that also counts its key imports (a batch should import its key once). */
export function countedAsync(sync: SyncAesGcm): { aes: AsyncAesGcm; calls: CountedCalls } {
  const calls: CountedCalls = { seal: 0, open: 0, inFlight: 0, maxInFlight: 0, imports: 0 };
  const inner = asAsync(sync, { calls });
  return {
    calls,
    aes: {
      ...inner,
      importKey: (key) => {
        calls.imports++;
        return inner.importKey(key);
      },
    },
  };
}

/** `sync` without `sealInto`/`openInto` (name `plain-<name>`): the drivers copy `seal`/`open` results. */
export function withoutFastPaths(sync: SyncAesGcm): SyncAesGcm {
  return {
    name: `plain-${sync.name}`,
    mode: 'sync',
    importKey: (key) => sync.importKey(key),
    seal: (key, nonce, plaintext) => sync.seal(key, nonce, plaintext),
    open: (key, nonce, sealed) => sync.open(key, nonce, sealed),
  };
}
