/**
 * Happy's client against a server that does not play fair (a relay the user may not run): answers that
 * trickle or never end, error pages without end, listings that page forever, tokens that cannot go in a
 * header, plain http to another machine, records that lie about their `seq` or name another session's
 * attachment. Each must end with a typed error (or a bounded, honest result), having read a bounded
 * number of bytes and made a bounded number of requests. Happy's real server cannot misbehave so; the
 * scripted `fetch` here does.
 */
import { describe, expect, it } from 'vitest';
import { HappyServerStore } from '../../../src/core/happy/attachment-store.js';
import { ERROR_BODY_MAX_BYTES } from '../../../src/core/happy/error-detail.js';
import { ANSWER_MAX_BYTES } from '../../../src/core/happy/happy-api.js';
import type { FetchFunction } from '../../../src/core/transport/index.js';
import { createAccountSecret, happyFileEvent, sealSessionRecord } from '../../../src/happy.js';
import { HappyClient, parseHappyCredentials, textMessage } from '../../../src/index.js';
import { rejectionOf } from '../../helpers/errors.js';

const SID = 'cmx6k89sd00016q7dnk5axjpq';
const OTHER_SID = 'cmx6k89sd00016q7dnk5axjzz';
const UUID = '95a8b6b8-a5d6-45f6-98e6-ae455c57b9a0';
const URL_BASE = 'http://127.0.0.1:3005';
const policy = { retries: 2, retryDelayMs: 1, maxRetryDelayMs: 2 };

type Route = (url: URL, init: RequestInit | undefined) => Response | Promise<Response>;

/** A `fetch` that answers `route` and counts the requests, honouring the request's signal as fetch does. */
function server(route: Route): { fetch: FetchFunction; requests: string[] } {
  const requests: string[] = [];
  const fetch: FetchFunction = async (input, init) => {
    const url = new URL(String(input));
    requests.push(`${init?.method ?? 'GET'} ${url.pathname}${url.search}`);
    init?.signal?.throwIfAborted();
    return route(url, init);
  };
  return { fetch, requests };
}

const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });

/** A body that yields `chunk` forever (or until `limit` bytes), counting what was pulled from it. */
function endless(
  chunk: Uint8Array,
  signal?: AbortSignal | null,
): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (signal?.aborted) {
        controller.error(signal.reason);
        return;
      }
      pulled += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return { body, pulled: () => pulled };
}

/** A body that sends its head and then nothing, until the request's signal ends it. */
function trickle(signal: AbortSignal | null | undefined): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"ref":'));
      signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true });
    },
  });
}

const session = (id: string) => ({
  id,
  seq: 1,
  createdAt: 1,
  updatedAt: 1,
  active: false,
  activeAt: 1,
  metadata: null,
  dataEncryptionKey: null,
});

async function connect(route: Route, extra: Record<string, unknown> = {}) {
  const secret = createAccountSecret();
  const { fetch, requests } = server(route);
  const client = await HappyClient.connect({
    url: URL_BASE,
    credentials: { kind: 'secret', secret },
    token: 'tok-1',
    fetch,
    ...policy,
    ...extra,
  });
  return { client, requests, secret };
}

describe('a hostile Happy server: every body read has a deadline and the caller’s signal', () => {
  it('a request-upload answer that trickles ends with the timeout (retried, then ERR_UPLOAD_FAILED), and Ctrl-C ends it at once', async () => {
    const { fetch, requests } = server((url, init) =>
      url.pathname.endsWith('/request-upload')
        ? new Response(trickle(init?.signal), { status: 200 })
        : new Response(null, { status: 500 }),
    );
    const store = new HappyServerStore({
      url: URL_BASE,
      token: 'tok',
      sessionId: SID,
      fetch,
      ...policy,
      timeoutMs: 50,
    });
    const timedOut = await rejectionOf(store.create(3, () => new Blob([new Uint8Array(3)]).stream()));
    expect(timedOut.code).toBe('ERR_UPLOAD_FAILED');
    expect(timedOut.message).toMatch(/^request-upload failed: the answer did not arrive within 50 ms/);
    expect(requests.length).toBe(1 + policy.retries);

    const patient = new HappyServerStore({
      url: URL_BASE,
      token: 'tok',
      sessionId: SID,
      fetch,
      ...policy,
      timeoutMs: 0,
    });
    const controller = new AbortController();
    const pending = rejectionOf(
      patient.create(3, () => new Blob([new Uint8Array(3)]).stream(), { signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 20);
    expect((await pending).code).toBe('ERR_ABORTED');
  });

  it('a request-download answer that trickles ends the same way (play --happy)', async () => {
    const { fetch } = server((url, init) =>
      url.pathname.endsWith('/request-download') ? new Response(trickle(init?.signal)) : json({}),
    );
    const store = new HappyServerStore({
      url: URL_BASE,
      token: 'tok',
      sessionId: SID,
      fetch,
      ...policy,
      timeoutMs: 50,
    });
    const error = await rejectionOf(store.get(`media/${UUID}`));
    expect(error.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(error.message).toMatch(/^request-download failed: the answer did not arrive within 50 ms/);
  });
});

describe('a hostile Happy server: every body parsed has a size limit', () => {
  it('an endless 200 to GET /v2/sessions is ERR_LIMIT_EXCEEDED after at most its limit, not retried', async () => {
    let pulled = () => 0;
    const { client, requests } = await connect(() => {
      const body = endless(new Uint8Array(64 * 1024).fill(0x20));
      pulled = body.pulled;
      return new Response(body.body, { status: 200 });
    });
    const error = await rejectionOf(client.listSessions());
    expect(error.code).toBe('ERR_LIMIT_EXCEEDED');
    expect(error.message).toMatch(/^list-sessions failed: the answer of Happy's server/);
    expect(requests).toEqual(['GET /v2/sessions?limit=200']);
    // Read up to the limit and one more piece, never the endless rest.
    expect(pulled()).toBeLessThanOrEqual(ANSWER_MAX_BYTES['list-sessions'] + 2 * 64 * 1024);
  });

  it('a Content-Length over the limit is refused before the body is read', async () => {
    let pulled = () => 0;
    const { client } = await connect(() => {
      const body = endless(new Uint8Array(1024));
      pulled = body.pulled;
      return new Response(body.body, { status: 200, headers: { 'content-length': String(1024 ** 4) } });
    });
    expect((await rejectionOf(client.listSessions())).code).toBe('ERR_LIMIT_EXCEEDED');
    expect(pulled()).toBeLessThanOrEqual(2 * 1024);
  });

  it('an endless 500 body is read only up to the error detail’s limit, on every attempt', async () => {
    const pulls: (() => number)[] = [];
    const { client, requests } = await connect(() => {
      const body = endless(new TextEncoder().encode('{"error":"x'.padEnd(1000, 'x')));
      pulls.push(body.pulled);
      return new Response(body.body, { status: 500 });
    });
    const error = await rejectionOf(client.listSessions());
    expect(error.code).toBe('ERR_STORAGE');
    expect(error.message).toMatch(/^list-sessions failed: Happy's server answered 500$/);
    expect(requests.length).toBe(1 + policy.retries);
    for (const pulled of pulls) expect(pulled()).toBeLessThanOrEqual(ERROR_BODY_MAX_BYTES + 2 * 1000);
  });

  it('an endless answer to request-upload is ERR_LIMIT_EXCEEDED, and nothing is uploaded', async () => {
    const { fetch, requests } = server(() => new Response(endless(new Uint8Array(4096).fill(0x20)).body));
    const store = new HappyServerStore({ url: URL_BASE, token: 'tok', sessionId: SID, fetch, ...policy });
    let asked = false;
    const error = await rejectionOf(
      store.create(3, () => {
        asked = true;
        return new Blob([new Uint8Array(3)]).stream();
      }),
    );
    expect(error.code).toBe('ERR_LIMIT_EXCEEDED');
    expect(asked).toBe(false);
    expect(requests.length).toBe(1);
  });
});

describe('a hostile Happy server: paging ends', () => {
  it('empty pages that say more follow, with two alternating cursors, end the listing', async () => {
    let n = 0;
    const { client, requests } = await connect(() => {
      n += 1;
      return json({ sessions: n === 1 ? [session(SID)] : [], hasNext: true, nextCursor: n % 2 ? 'a' : 'b' });
    });
    expect((await client.listSessions()).map((s) => s.id)).toEqual([SID]);
    expect(requests.length).toBe(2);
  });

  it('a cursor seen before (not only the previous one) ends the listing; nothing listed is lost', async () => {
    const pages: Record<string, { id: string; next: string }> = {
      '': { id: 's1', next: 'a' },
      a: { id: 's2', next: 'b' },
      b: { id: 's3', next: 'a' },
    };
    const { client, requests } = await connect((url) => {
      const page = pages[url.searchParams.get('cursor') ?? '']!;
      return json({ sessions: [session(page.id)], hasNext: true, nextCursor: page.next });
    });
    expect((await client.listSessions()).map((s) => s.id)).toEqual(['s1', 's2', 's3']);
    expect(requests.length).toBe(3);
  });

  it('a listing that pages on with fresh cursors stops at the page budget with ERR_LIMIT_EXCEEDED', async () => {
    let n = 0;
    const { client, requests } = await connect(() => {
      n += 1;
      return json({ sessions: [session(`s${n}`)], hasNext: true, nextCursor: `c${n}` });
    });
    const error = await rejectionOf(client.openSession('never'));
    expect(error.code).toBe('ERR_LIMIT_EXCEEDED');
    expect(error.message).toMatch(/^list-sessions failed: Happy's server answered 1000 pages/);
    expect(requests.length).toBe(1000);
  });
});

describe('a hostile Happy server: records that lie', () => {
  async function readAll(records: (key: Parameters<typeof sealSessionRecord>[1]) => unknown[]) {
    let page: unknown[] = [];
    const { client } = await connect((url) => {
      if (url.pathname === '/v2/sessions') return json({ sessions: [session(SID)] });
      const after = Number(url.searchParams.get('after_seq'));
      return json({ messages: after === 0 ? page : [], hasMore: false });
    });
    const opened = await client.openSession(SID);
    page = records(opened.key);
    const out = [];
    for await (const record of client.readMessages(opened)) out.push(record);
    return out;
  }

  const record = (seq: unknown, id: string, c: string) => ({
    id,
    seq,
    content: { t: 'encrypted', c },
    localId: null,
    createdAt: 5,
  });
  const text = (key: Parameters<typeof sealSessionRecord>[1], words: string, id = words) =>
    sealSessionRecord(textMessage({ role: 'user', text: words }, { id, time: 1 }), key).content;

  it('a v1 file event naming another session’s attachment is ERR_INVALID_REF, not this session’s media/<uuid>', async () => {
    const file = (key: Parameters<typeof sealSessionRecord>[1], sid: string, id: string) =>
      sealSessionRecord(
        happyFileEvent(
          { role: 'user', ref: `sessions/${sid}/attachments/${UUID}.enc`, name: `${id}.bin`, size: 3 },
          { id, time: 1 },
        ),
        key,
      ).content;
    const read = await readAll((key) => [
      record(1, 'r1', file(key, OTHER_SID, 'f1')),
      record(2, 'r2', file(key, SID, 'f2')),
    ]);
    expect(read[0]).toMatchObject({
      seq: 1,
      kind: 'unreadable',
      error: { code: 'ERR_INVALID_REF' },
      messages: [],
    });
    expect(read[1]?.messages).toEqual([expect.objectContaining({ type: 'file', ref: `media/${UUID}` })]);
  });

  it('a record whose seq is no sequence number does not move the read cursor; the records around it are kept', async () => {
    const read = await readAll((key) => [
      record(1, 'r1', text(key, 'one')),
      record(1e300, 'r2', text(key, 'absurd')),
      record(2.5, 'r3', text(key, 'fraction')),
      record(2, 'r4', text(key, 'two')),
    ]);
    expect(read.map((r) => [r.seq, r.kind])).toEqual([
      [1, 'message'],
      [1, 'unreadable'],
      [1, 'unreadable'],
      [2, 'message'],
    ]);
  });

  it('a seq sent twice: the same record is dropped, another one under it is reported and the first stands', async () => {
    const read = await readAll((key) => {
      const one = text(key, 'one');
      return [
        record(1, 'r1', one),
        record(1, 'r1', one),
        record(1, 'r1b', text(key, 'forged', 'x')),
        record(2, 'r2', text(key, 'two')),
      ];
    });
    expect(read.map((r) => [r.seq, r.kind, r.recordId])).toEqual([
      [1, 'message', 'r1'],
      [1, 'unreadable', 'r1b'],
      [2, 'message', 'r2'],
    ]);
    expect(read[1]).toMatchObject({ error: { code: 'ERR_DOWNLOAD_FAILED' } });
    expect((read[1] as { error: Error }).error.message).toMatch(/seq 1, which this reading had passed/);
  });
});

describe('a hostile Happy server: tokens and plain http', () => {
  it('a token with CR/LF in Happy CLI’s access.key is refused where it is read, before any request', () => {
    const text = JSON.stringify({
      encryption: { publicKey: Buffer.alloc(32, 7).toString('base64'), machineKey: 'x' },
      token: 'abc\r\ndef',
    });
    expect(() => parseHappyCredentials(text)).toThrow(
      expect.objectContaining({
        code: 'ERR_INVALID_ARGUMENT',
        message: expect.stringMatching(/line break \(CR\/LF\) at position 3/),
      }),
    );
  });

  it('connect refuses a token that cannot go in a header, whatever its source, with no request', async () => {
    const { fetch, requests } = server(() => json({}));
    for (const options of [
      { credentials: { kind: 'secret' as const, secret: createAccountSecret() }, token: 'a b' },
      {
        credentials: {
          kind: 'content-public-key' as const,
          contentPublicKey: new Uint8Array(32).fill(9),
          token: 'x\ny',
        },
      },
    ]) {
      const error = await rejectionOf(HappyClient.connect({ url: URL_BASE, fetch, ...options }));
      expect(error.code).toBe('ERR_INVALID_ARGUMENT');
    }
    expect(requests).toEqual([]);
  });

  it('a sign-in answer whose token cannot go in a header is a storage error, not a later network failure', async () => {
    const { fetch, requests } = server(() => json({ token: 'tok\r\nX-Injected: 1' }));
    const error = await rejectionOf(
      HappyClient.connect({
        url: URL_BASE,
        fetch,
        credentials: { kind: 'secret', secret: createAccountSecret() },
        ...policy,
      }),
    );
    expect(error.code).toBe('ERR_STORAGE');
    expect(requests.length).toBe(1);
  });

  it('http: to another machine is refused before anything is sent, unless insecureHttp; loopback is fine', async () => {
    const { fetch, requests } = server(() => json({ sessions: [] }));
    const secret = createAccountSecret();
    for (const url of ['http://192.168.1.5:3005', 'http://happy.example']) {
      const error = await rejectionOf(
        HappyClient.connect({ url, fetch, credentials: { kind: 'secret', secret } }),
      );
      expect(error.code).toBe('ERR_INVALID_ARGUMENT');
      expect(error.message).toMatch(
        /sign-in proof and the bearer token would cross the network in clear text/,
      );
      expect(() => new HappyServerStore({ url, token: 't', sessionId: SID, fetch })).toThrow(/insecureHttp/);
    }
    expect(requests).toEqual([]);
    const insecure = await HappyClient.connect({
      url: 'http://192.168.1.5:3005',
      fetch,
      credentials: { kind: 'secret', secret },
      token: 't',
      insecureHttp: true,
    });
    expect(await insecure.listSessions()).toEqual([]);
    for (const url of [
      'http://localhost:3005',
      'http://127.0.0.2',
      'http://[::1]:3005',
      'https://happy.example',
    ]) {
      expect(() => new HappyServerStore({ url, token: 't', sessionId: SID, fetch })).not.toThrow();
    }
  });
});

describe('HappyServerStore.head', () => {
  it('a 200 without Content-Length is no size: the size comes from a ranged GET instead of reading 0', async () => {
    const blob = new Uint8Array(1234);
    const { fetch, requests } = server((url, init) => {
      if (url.pathname.endsWith('/request-download')) return json({ downloadUrl: `${URL_BASE}/files/x` });
      if (init?.method === 'HEAD') return new Response(null, { status: 200 });
      return new Response(blob.slice(0, 1), {
        status: 206,
        headers: { 'content-range': `bytes 0-0/${blob.length}`, 'content-length': '1' },
      });
    });
    const store = new HappyServerStore({ url: URL_BASE, token: 'tok', sessionId: SID, fetch, ...policy });
    expect(await store.head(`media/${UUID}`)).toEqual({ size: 1234 });
    expect(requests).toEqual([
      `POST /v1/sessions/${SID}/attachments/request-download`,
      'HEAD /files/x',
      'GET /files/x',
    ]);
  });
});
