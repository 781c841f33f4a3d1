import { describe, expect, it } from 'vitest';
import { fetchRange } from '../../../src/core/transport/fetch-range.js';
import { isRetryableError } from '../../../src/core/transport/retry.js';
import { rejectionOf } from '../../helpers/errors.js';
import { streamOf } from '../../node/storage/store-contract.js';

const BLOB = new Uint8Array(5000).map((_, i) => (i * 7) % 251);

type Answer = { status: number; headers?: Record<string, string>; body?: Uint8Array | null };

/** A fake fetch that records the request headers and answers with `answer(rangeHeader)`. */
function fakeFetch(answer: (range: string | undefined) => Answer) {
  const seen: (string | undefined)[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const range = (init?.headers as Record<string, string> | undefined)?.range;
    seen.push(range);
    const a = answer(range);
    return new Response(a.body === null || a.body === undefined ? null : streamOf(a.body, 333), {
      status: a.status,
      headers: a.headers ?? {},
    });
  };
  return { fetch, seen };
}

/** An honest server: 206 with the right Content-Range, or 200 for the whole blob. */
function honest(range: string | undefined): Answer {
  if (!range) return { status: 200, headers: { 'content-length': String(BLOB.length) }, body: BLOB };
  const [, a, b] = /^bytes=(\d+)-(\d*)$/.exec(range) ?? [];
  const start = Number(a);
  if (start >= BLOB.length) return { status: 416, headers: { 'content-range': `bytes */${BLOB.length}` } };
  const end = Math.min(b ? Number(b) : BLOB.length - 1, BLOB.length - 1);
  return {
    status: 206,
    headers: { 'content-range': `bytes ${start}-${end}/${BLOB.length}` },
    body: BLOB.subarray(start, end + 1),
  };
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const URL_ = 'http://127.0.0.1:1/blob';

describe('fetchRange', () => {
  it('returns exactly the asked range from an honest 206, and the whole blob from a 200', async () => {
    const { fetch, seen } = fakeFetch(honest);
    const part = await fetchRange(URL_, { fetch, range: { offset: 1000, length: 1500 } });
    expect(seen.at(-1)).toBe('bytes=1000-2499');
    expect(part.status).toBe(206);
    expect(part.totalSize).toBe(BLOB.length);
    expect(part.length).toBe(1500);
    expect(await bytesOf(part.body)).toEqual(BLOB.subarray(1000, 2500));

    const tail = await fetchRange(URL_, { fetch, range: { offset: 4000, length: 99999 } });
    expect(await bytesOf(tail.body)).toEqual(BLOB.subarray(4000));

    const open = await fetchRange(URL_, { fetch, range: { offset: 4900 } });
    expect(seen.at(-1)).toBe('bytes=4900-');
    expect(await bytesOf(open.body)).toEqual(BLOB.subarray(4900));

    const whole = await fetchRange(URL_, { fetch });
    expect(seen.at(-1)).toBeUndefined();
    expect(whole.totalSize).toBe(BLOB.length);
    expect(await bytesOf(whole.body)).toEqual(BLOB);
  });

  it('skips to the offset when the server ignores Range and answers 200 with the whole body', async () => {
    const { fetch } = fakeFetch(() => ({
      status: 200,
      headers: { 'content-length': String(BLOB.length) },
      body: BLOB,
    }));
    for (const [offset, length] of [
      [0, 10],
      [332, 2],
      [333, 333],
      [4999, 10],
      [1234, 3000],
    ] as const) {
      const got = await fetchRange(URL_, { fetch, range: { offset, length } });
      expect(got.rangeIgnored).toBe(true);
      expect(got.status).toBe(200);
      expect(await bytesOf(got.body)).toEqual(BLOB.subarray(offset, offset + length));
    }
    const atEnd = await fetchRange(URL_, { fetch, range: { offset: BLOB.length, length: 5 } });
    expect((await bytesOf(atEnd.body)).length).toBe(0);
    const past = await rejectionOf(
      fetchRange(URL_, { fetch, range: { offset: BLOB.length + 1, length: 5 } }),
    );
    expect(past.code).toBe('ERR_INVALID_ARGUMENT');
  });

  it('skips also when a 200 has no Content-Length (chunked)', async () => {
    const { fetch } = fakeFetch(() => ({ status: 200, body: BLOB }));
    const got = await fetchRange(URL_, { fetch, range: { offset: 2000, length: 700 } });
    expect(await bytesOf(got.body)).toEqual(BLOB.subarray(2000, 2700));
  });

  it('treats a 206 with the wrong or no Content-Range as a retryable download failure', async () => {
    const wrongs: Record<string, string>[] = [
      { 'content-range': `bytes 0-1499/${BLOB.length}` }, // the start of the blob instead of the resume point
      { 'content-range': `bytes 1000-1999/${BLOB.length}` }, // shorter than asked, not at the end
      { 'content-range': `bytes 1000-2600/${BLOB.length}` }, // longer than asked
      { 'content-range': 'bytes 1000-2499/2000' }, // past the total
      { 'content-range': 'items 1000-2499/5000' },
      {},
    ];
    for (const headers of wrongs) {
      const { fetch } = fakeFetch(() => ({ status: 206, headers, body: BLOB.subarray(0, 1500) }));
      const error = await rejectionOf(fetchRange(URL_, { fetch, range: { offset: 1000, length: 1500 } }));
      expect(error.code, JSON.stringify(headers)).toBe('ERR_DOWNLOAD_FAILED');
      expect(isRetryableError(error)).toBe(true);
      expect(error.message).toMatch(/^download failed/);
    }
  });

  it('fails a 206 whose body is shorter or longer than its Content-Range', async () => {
    const header = { 'content-range': `bytes 1000-2499/${BLOB.length}` };
    const short = fakeFetch(() => ({ status: 206, headers: header, body: BLOB.subarray(1000, 2400) }));
    const s = await fetchRange(URL_, { fetch: short.fetch, range: { offset: 1000, length: 1500 } });
    const shortError = await rejectionOf(bytesOf(s.body));
    expect(shortError.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(isRetryableError(shortError)).toBe(true);

    const long = fakeFetch(() => ({ status: 206, headers: header, body: BLOB.subarray(1000, 2600) }));
    const l = await fetchRange(URL_, { fetch: long.fetch, range: { offset: 1000, length: 1500 } });
    expect((await rejectionOf(bytesOf(l.body))).code).toBe('ERR_DOWNLOAD_FAILED');
  });

  it('reads a 416 at exactly the end as an empty range, past the end as a bad argument', async () => {
    const { fetch } = fakeFetch(honest);
    const empty = await fetchRange(URL_, { fetch, range: { offset: BLOB.length, length: 10 } });
    expect((await bytesOf(empty.body)).length).toBe(0);
    const past = await rejectionOf(
      fetchRange(URL_, { fetch, range: { offset: BLOB.length + 1, length: 10 } }),
    );
    expect(past.code).toBe('ERR_INVALID_ARGUMENT');
    const none = await fetchRange(URL_, { fetch, range: { offset: 10, length: 0 } });
    expect((await bytesOf(none.body)).length).toBe(0);
  });

  it('maps statuses to typed errors, retryable only for 408, 429 and 5xx, and names the leg', async () => {
    const cases: [number, string, boolean][] = [
      [404, 'ERR_NOT_FOUND', false],
      [401, 'ERR_DOWNLOAD_FAILED', false],
      [403, 'ERR_DOWNLOAD_FAILED', false],
      [400, 'ERR_DOWNLOAD_FAILED', false],
      [429, 'ERR_DOWNLOAD_FAILED', true],
      [500, 'ERR_DOWNLOAD_FAILED', true],
      [503, 'ERR_DOWNLOAD_FAILED', true],
    ];
    for (const [status, code, retry] of cases) {
      const { fetch } = fakeFetch(() => ({ status, body: new TextEncoder().encode('{"error":"x"}') }));
      const error = await rejectionOf(fetchRange(URL_, { fetch, leg: 'request-download', what: 'media/x' }));
      expect(error.code, String(status)).toBe(code);
      expect(isRetryableError(error), String(status)).toBe(retry);
      expect(error.message).toMatch(/^request-download failed/);
    }
  });

  it('uses the caller mapping of error statuses when given', async () => {
    const { fetch } = fakeFetch(() => ({ status: 418 }));
    const { StorageError } = await import('../../../src/core/errors.js');
    const error = await rejectionOf(
      fetchRange(URL_, {
        fetch,
        statusError: (r) => new StorageError(`teapot ${r.status}`, { code: 'ERR_STORAGE' }),
      }),
    );
    expect(error.code).toBe('ERR_STORAGE');
  });

  it('reports a network failure as retryable and never puts the URL path or query in the message', async () => {
    const fetch = async () => {
      throw new TypeError('fetch failed');
    };
    const error = await rejectionOf(
      fetchRange('http://127.0.0.1:1/secret-path?X-Amz-Signature=abc', { fetch }),
    );
    expect(error.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(isRetryableError(error)).toBe(true);
    expect(error.message).not.toMatch(/secret-path|Signature/);
  });

  it('aborts before the request and through the body', async () => {
    const before = new AbortController();
    before.abort();
    const { fetch } = fakeFetch(honest);
    expect((await rejectionOf(fetchRange(URL_, { fetch, signal: before.signal }))).code).toBe('ERR_ABORTED');

    const during = new AbortController();
    const stalling = async (_u: string | URL | Request, init?: RequestInit) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(BLOB.subarray(0, 10));
          init?.signal?.addEventListener('abort', () => controller.error(init.signal?.reason));
        },
      });
      return new Response(body, { status: 200 });
    };
    const got = await fetchRange(URL_, { fetch: stalling, signal: during.signal });
    const reading = bytesOf(got.body);
    setTimeout(() => during.abort(), 20);
    expect((await rejectionOf(reading)).code).toBe('ERR_ABORTED');
  });

  it('checks its arguments', async () => {
    const { fetch } = fakeFetch(honest);
    expect((await rejectionOf(fetchRange('not a url', { fetch }))).code).toBe('ERR_INVALID_ARGUMENT');
    expect((await rejectionOf(fetchRange(URL_, { fetch, range: { offset: -1, length: 1 } }))).code).toBe(
      'ERR_INVALID_ARGUMENT',
    );
  });
});

/**
 * Issue 24, item 8: every request added an abort listener to the caller's signal and never removed it,
 * so a signal shared by many requests (a `--serve` response reads a long range as many windows) piled
 * them up and Node printed `MaxListenersExceededWarning` after the tenth. The listener now goes when the
 * body ends, however it ends, or when the request fails.
 */
describe('fetchRange and the caller’s signal', () => {
  /** A signal that counts its abort listeners (duck-typed: fetchRange adds, removes and reads `aborted`). */
  function countingSignal() {
    const listeners = new Set<unknown>();
    const signal = {
      aborted: false,
      reason: undefined,
      addEventListener: (_type: string, listener: unknown) => listeners.add(listener),
      removeEventListener: (_type: string, listener: unknown) => listeners.delete(listener),
    } as unknown as AbortSignal;
    return { signal, listeners };
  }

  it('leaves no listener behind after bodies read to the end, cancelled, empty, or a failed request', async () => {
    const { fetch } = fakeFetch(honest);
    const { signal, listeners } = countingSignal();
    for (let i = 0; i < 20; i++) {
      const part = await fetchRange(URL_, { fetch, signal, range: { offset: i * 100, length: 100 } });
      await bytesOf(part.body);
    }
    expect(listeners.size).toBe(0);
    const cancelled = await fetchRange(URL_, { fetch, signal, range: { offset: 0, length: 4000 } });
    await cancelled.body.cancel();
    expect(listeners.size).toBe(0);
    const atEnd = await fetchRange(URL_, { fetch, signal, range: { offset: BLOB.length, length: 10 } });
    expect(atEnd.length).toBe(0);
    expect(listeners.size).toBe(0);
    const missing = fakeFetch(() => ({ status: 404 }));
    await expect(fetchRange(URL_, { fetch: missing.fetch, signal })).rejects.toMatchObject({
      code: 'ERR_NOT_FOUND',
    });
    const short = fakeFetch((range) => ({ ...honest(range), body: BLOB.subarray(0, 10) }));
    const cut = await fetchRange(URL_, { fetch: short.fetch, signal, range: { offset: 0, length: 100 } });
    await expect(bytesOf(cut.body)).rejects.toMatchObject({ code: 'ERR_DOWNLOAD_FAILED' });
    expect(listeners.size).toBe(0);
  });

  it('a file: or javascript: URL is ERR_INVALID_ARGUMENT at once, not a network failure to retry', async () => {
    const { fetch, seen } = fakeFetch(honest);
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'data:,x', 'ftp://host/blob']) {
      const error = await rejectionOf(fetchRange(url, { fetch }));
      expect(error).toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
      expect(isRetryableError(error)).toBe(false);
      expect((error as Error).message).not.toContain('passwd');
    }
    expect(seen).toEqual([]);
  });
});
