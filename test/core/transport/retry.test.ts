/**
 * The one retry policy (src/core/transport/retry.ts) and the loops that follow it: which errors are
 * retried, the backoff rule, a budget that counts consecutive failures and is spent once, a wait that an
 * abort ends at once; and, through the playback engine, that a refusal is never retried, a wait before
 * asking a store's size is abortable, and a store that retries its own requests is not retried again.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomBytes } from '../../../src/core/bytes.js';
import { AbortedError, StorageError } from '../../../src/core/errors.js';
import { HappyServerStore } from '../../../src/core/happy/attachment-store.js';
import { downloadMedia, memorySink } from '../../../src/core/playback/index.js';
import type { FetchFunction } from '../../../src/core/transport/fetch-range.js';
import {
  DEFAULT_RETRY_POLICY,
  isRetryableError,
  markRetryable,
  RetryBudget,
  retryDelay,
  retryPolicy,
  withRetries,
} from '../../../src/core/transport/retry.js';
import { codeOf, rejectionOf } from '../../helpers/errors.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('what is retried', () => {
  it('an error marked where it was made, and a foreign one; never one of ours left unmarked', () => {
    expect(isRetryableError(markRetryable(new StorageError('503', { code: 'ERR_DOWNLOAD_FAILED' })))).toBe(
      true,
    );
    expect(isRetryableError(new Error('connection reset'))).toBe(true);
    expect(isRetryableError(new TypeError('fetch failed'))).toBe(true);
    expect(isRetryableError(new StorageError('403', { code: 'ERR_DOWNLOAD_FAILED' }))).toBe(false);
    expect(isRetryableError(new StorageError('gone', { code: 'ERR_NOT_FOUND' }))).toBe(false);
    expect(isRetryableError(new AbortedError())).toBe(false);
  });
});

describe('the backoff rule', () => {
  it('doubles from retryDelayMs, is capped at maxRetryDelayMs, and keeps half to all of each step', () => {
    const policy = retryPolicy({ retryDelayMs: 100, maxRetryDelayMs: 1000 });
    for (let i = 0; i < 50; i++) {
      for (const [retry, step] of [
        [1, 100],
        [2, 200],
        [4, 800],
        [5, 1000],
        [60, 1000],
      ] as const) {
        const delay = retryDelay(retry, policy);
        expect(delay).toBeGreaterThanOrEqual(step / 2);
        expect(delay).toBeLessThanOrEqual(step);
      }
    }
  });

  it('has one set of defaults and refuses options out of range', () => {
    expect(retryPolicy()).toEqual(DEFAULT_RETRY_POLICY);
    expect(codeOf(() => retryPolicy({ retries: -1 }))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => retryPolicy({ retries: 101 }))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => retryPolicy({ retryDelayMs: 1.5 }))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => retryPolicy({ maxRetryDelayMs: 2 ** 31 }))).toBe('ERR_INVALID_ARGUMENT');
  });
});

describe('RetryBudget', () => {
  it('counts consecutive failures, starts again after progress, and is spent once', async () => {
    const budget = new RetryBudget({ retries: 2, retryDelayMs: 0 });
    const transient = () => markRetryable(new StorageError('cut', { code: 'ERR_DOWNLOAD_FAILED' }));
    expect(await budget.failed(transient())).toBe(true);
    expect(await budget.failed(transient())).toBe(true);
    budget.progressed();
    expect(await budget.failed(transient())).toBe(true);
    expect(await budget.failed(transient())).toBe(true);
    const last = transient();
    expect(await budget.failed(last)).toBe(false);
    expect(budget.spent).toBe(true);
    // Spent: an outer loop does not retry it again.
    expect(isRetryableError(last)).toBe(false);
  });

  it('never retries what cannot heal, and does not count it', async () => {
    const budget = new RetryBudget({ retries: 5, retryDelayMs: 0 });
    expect(await budget.failed(new StorageError('404', { code: 'ERR_NOT_FOUND' }))).toBe(false);
    expect(budget.failures).toBe(0);
    expect(budget.spent).toBe(false);
  });

  it('ends its wait at once when the signal aborts', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const controller = new AbortController();
    const budget = new RetryBudget({ retryDelayMs: 60_000, signal: controller.signal });
    const waiting = budget.failed(new Error('reset'));
    controller.abort();
    // No timer is advanced: only the abort can end the wait.
    expect(await rejectionOf(waiting)).toBeInstanceOf(AbortedError);
  });
});

describe('withRetries', () => {
  it('retries what heals up to `retries` times, then throws the last error', async () => {
    let calls = 0;
    const error = await rejectionOf(
      withRetries(
        async () => {
          calls++;
          throw markRetryable(new StorageError(`try ${calls}`, { code: 'ERR_STORAGE' }));
        },
        { retries: 3, retryDelayMs: 0 },
      ),
    );
    expect(calls).toBe(4);
    expect(error.message).toBe('try 4');
  });
});

describe('the loops that retry follow the one policy', () => {
  const key = randomBytes(32);
  const REF = 'media/k2x9q0c1v3b5n7m8a1s2d3f4';
  const URL_OF = 'https://blobs.example/k2x9q0c1v3b5n7m8a1s2d3f4';

  it('a download refused with 401 or 403 is not retried', async () => {
    for (const status of [401, 403]) {
      let requests = 0;
      const fetch: FetchFunction = async () => {
        requests++;
        return new Response(null, { status });
      };
      const error = await rejectionOf(
        downloadMedia(
          { ref: REF },
          { source: URL_OF, fetch, blobKey: key, sink: memorySink(), retryDelayMs: 0 },
        ),
      );
      expect(error.code, String(status)).toBe('ERR_DOWNLOAD_FAILED');
      expect(requests, String(status)).toBe(1);
    }
  });

  it('the wait before asking a store for the size again ends at once on abort', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let heads = 0;
    const store = {
      head: async () => {
        heads++;
        throw new Error('connection reset');
      },
      get: async () => new ReadableStream<Uint8Array>(),
    };
    const controller = new AbortController();
    const download = downloadMedia(
      { ref: REF },
      { source: store, blobKey: key, sink: memorySink(), retryDelayMs: 60_000, signal: controller.signal },
    );
    await vi.waitFor(() => expect(heads).toBe(1));
    controller.abort();
    expect((await rejectionOf(download)).code).toBe('ERR_ABORTED');
    expect(heads).toBe(1);
  });

  it("a store that retries its own requests is not retried again by the download (Happy's server)", async () => {
    const methods: string[] = [];
    const fetch: FetchFunction = async (input, init) => {
      const url = String(input);
      if (url.endsWith('/request-download')) {
        return Response.json({ downloadUrl: 'http://127.0.0.1:3005/files/blob.enc' });
      }
      methods.push(init?.method ?? 'GET');
      return new Response('busy', { status: 503 });
    };
    const store = new HappyServerStore({
      url: 'http://127.0.0.1:3005',
      token: 'tok',
      sessionId: 'cmx6k89sd00016q7dnk5axjpq',
      fetch,
      retries: 2,
      retryDelayMs: 0,
    });
    const error = await rejectionOf(
      downloadMedia(
        { ref: 'media/95a8b6b8-a5d6-45f6-98e6-ae455c57b9a0', size: 40_000 },
        { source: store, blobKey: key, sink: memorySink(), retries: 3, retryDelayMs: 0 },
      ),
    );
    expect(error.code).toBe('ERR_DOWNLOAD_FAILED');
    // The store's 1 + 2 attempts for the download, not (1 + 3) × (1 + 2); the size asked once beside it.
    expect(methods.filter((m) => m === 'GET')).toHaveLength(3);
    expect(methods.filter((m) => m === 'HEAD')).toHaveLength(3);
  });
});
