/**
 * fetchSize, the one way download clients ask a URL's size: a 206's Content-Range total, a 200's
 * Content-Length, and a server that ignores Range and tells no length (a chunked 200), whose body is
 * counted where the caller allows it, refused past the bound, and otherwise a download failure, never 0.
 */
import { describe, expect, it } from 'vitest';
import { fetchSize } from '../../../src/core/transport/fetch-size.js';
import { rejectionOf } from '../../helpers/errors.js';
import { streamOf } from '../../node/storage/store-contract.js';

const BLOB = new Uint8Array(5000).map((_, i) => (i * 7) % 251);
const URL_ = 'http://127.0.0.1:1/blob';

/** A fake server: every request is recorded as `GET <range>`, and answered by `answer`. */
function server(answer: (range: string | undefined) => Response) {
  const seen: string[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const range = (init?.headers as Record<string, string> | undefined)?.range;
    seen.push(`${init?.method ?? 'GET'} ${range ?? 'whole'}`);
    return answer(range);
  };
  return { fetch, seen };
}

const chunked = () => new Response(streamOf(BLOB, 333), { status: 200 });

describe('fetchSize', () => {
  it("reads a 206's Content-Range total and a 200's Content-Length, with one request", async () => {
    const partial = server(
      () =>
        new Response(streamOf(BLOB.subarray(0, 1), 1), {
          status: 206,
          headers: { 'content-range': `bytes 0-0/${BLOB.length}` },
        }),
    );
    expect(await fetchSize(URL_, { fetch: partial.fetch })).toBe(BLOB.length);
    expect(partial.seen).toEqual(['GET bytes=0-0']);
    const whole = server(
      () =>
        new Response(streamOf(BLOB, 333), {
          status: 200,
          headers: { 'content-length': String(BLOB.length) },
        }),
    );
    expect(await fetchSize(URL_, { fetch: whole.fetch, countUpTo: 10 })).toBe(BLOB.length);
    expect(whole.seen).toEqual(['GET bytes=0-0']);
  });

  it('counts the body of a 200 that ignores Range and tells no length, where the caller allows it', async () => {
    const { fetch, seen } = server(chunked);
    expect(await fetchSize(URL_, { fetch, countUpTo: BLOB.length })).toBe(BLOB.length);
    expect(seen).toEqual(['GET bytes=0-0', 'GET whole']);
  });

  it('refuses such a body past the bound, and without a bound tells no size rather than 0', async () => {
    const bounded = server(chunked);
    const over = await rejectionOf(
      fetchSize(URL_, { fetch: bounded.fetch, countUpTo: BLOB.length - 1, what: 'media/x' }),
    );
    expect(over.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(over.message).toMatch(/media\/x is longer than the 4999 bytes/);
    const unbounded = server(chunked);
    const none = await rejectionOf(fetchSize(URL_, { fetch: unbounded.fetch, leg: 'asking the size' }));
    expect(none.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(none.message).toMatch(/^asking the size failed: the server told no size/);
    expect(unbounded.seen).toEqual(['GET bytes=0-0']);
  });

  it('an empty blob is 0 bytes, from the 416 that says so', async () => {
    const { fetch } = server(
      () => new Response(null, { status: 416, headers: { 'content-range': 'bytes */0' } }),
    );
    expect(await fetchSize(URL_, { fetch })).toBe(0);
  });
});
