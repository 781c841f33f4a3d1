/**
 * HappyServerStore's client logic against a scripted fake of the server: S3 mode (multipart POST with
 * the policy fields then the file, no bearer), retries of 429/5xx and not of 401/403/404, the loopback
 * URL rewrite, the token never sent to another origin, and a download from a server that ignores Range and
 * tells no length. The behaviour against the real server is in
 * test/node/happy/attachment-store.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { encryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { randomBytes } from '../../../src/core/bytes.js';
import { HAPPY_MAX_ATTACHMENT_BYTES } from '../../../src/core/happy/attachment-limit.js';
import { HappyServerStore } from '../../../src/core/happy/attachment-store.js';
import { encryptV1Blob } from '../../../src/core/happy/v1-blob.js';
import { downloadMedia, memorySink } from '../../../src/core/playback/index.js';
import type { BlobStore } from '../../../src/core/storage/blob-store.js';
import type { FetchFunction } from '../../../src/core/transport/index.js';
import { rejectionOf } from '../../helpers/errors.js';

const SID = 'cmx6k89sd00016q7dnk5axjpq';
const UUID = '95a8b6b8-a5d6-45f6-98e6-ae455c57b9a0';
const SERVER_REF = `sessions/${SID}/attachments/${UUID}.enc`;
const TOKEN = 'tok-secret-1234';

interface Seen {
  method: string;
  url: string;
  auth: string | null;
  body?: unknown;
}

type Handler = (req: Seen, init: RequestInit | undefined) => Response | Promise<Response>;

function fake(handler: Handler): { fetch: FetchFunction; seen: Seen[] } {
  const seen: Seen[] = [];
  const fetch: FetchFunction = async (input, init) => {
    const headers = new Headers(init?.headers);
    const req: Seen = {
      method: init?.method ?? 'GET',
      url: String(input),
      auth: headers.get('authorization'),
    };
    seen.push(req);
    return handler(req, init);
  };
  return { fetch, seen };
}

const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });

function stream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      c.enqueue(bytes);
      c.close();
    },
  });
}

const opts = {
  url: 'http://127.0.0.1:3005',
  token: TOKEN,
  sessionId: SID,
  retryDelayMs: 1,
  maxRetryDelayMs: 2,
  // Happy's pacing of request-uploads, shortened: a 429 waits 1 ms, then 2.
  uploadRate: { refusedPausesMs: [1, 2] },
};

describe('HappyServerStore (scripted server)', () => {
  it('uploads in S3 mode: multipart POST with the policy fields first, then the file; no bearer to S3', async () => {
    let form: FormData | undefined;
    const { fetch, seen } = fake(async (req, init) => {
      if (req.url.endsWith('/request-upload')) {
        return json({
          ref: SERVER_REF,
          uploadUrl: 'https://s3.example/bucket',
          method: 'POST',
          formFields: { key: SERVER_REF, Policy: 'p', 'X-Amz-Signature': 's' },
        });
      }
      form = init?.body as FormData;
      return new Response(null, { status: 204 });
    });
    const store = new HappyServerStore({ ...opts, fetch });
    const bytes = new Uint8Array([1, 2, 3, 4, 5]);
    const { ref } = await store.create(bytes.length, () => stream(bytes));
    expect(ref).toBe(`media/${UUID}`);
    expect(seen.map((s) => s.method)).toEqual(['POST', 'POST']);
    expect(seen[0]?.auth).toBe(`Bearer ${TOKEN}`);
    expect(seen[1]?.url).toBe('https://s3.example/bucket');
    expect(seen[1]?.auth).toBeNull();
    expect([...(form?.keys() ?? [])]).toEqual(['key', 'Policy', 'X-Amz-Signature', 'file']);
    const file = form?.get('file') as Blob;
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
  });

  it('waits out 429 on request-upload and retries 5xx with backoff on every leg, but not 401, 403 or 404', async () => {
    let calls = 0;
    const flaky = fake((req) => {
      calls++;
      if (req.url.endsWith('/request-upload')) {
        return calls < 3
          ? json({ error: 'Too many upload requests. Try again in a minute.' }, 429)
          : json({
              ref: SERVER_REF,
              uploadUrl: `http://127.0.0.1:3005/v1/sessions/${SID}/attachments/${UUID}.enc`,
              method: 'PUT',
            });
      }
      return calls < 5 ? new Response('oops', { status: 503 }) : json({ ok: true });
    });
    const store = new HappyServerStore({ ...opts, fetch: flaky.fetch });
    expect((await store.create(3, () => stream(new Uint8Array(3)))).ref).toBe(`media/${UUID}`);
    expect(flaky.seen.map((s) => `${s.method} ${new URL(s.url).pathname.split('/').pop()}`)).toEqual([
      'POST request-upload',
      'POST request-upload',
      'POST request-upload',
      `PUT ${UUID}.enc`,
      `PUT ${UUID}.enc`,
    ]);

    for (const status of [401, 403, 404]) {
      const once = fake(() => json({ error: 'nope' }, status));
      const s = new HappyServerStore({ ...opts, fetch: once.fetch });
      const error = await rejectionOf(s.create(3, () => stream(new Uint8Array(3))));
      expect(error.message).toMatch(/^request-upload failed/);
      expect(once.seen.length, String(status)).toBe(1);
      const down = await rejectionOf(s.get(`media/${UUID}`));
      expect(down.message).toMatch(/^request-download failed/);
      // The token refused is one code on every leg; 403 and 404 stay storage errors.
      const codes = { 401: 'ERR_UNAUTHORIZED', 403: 'ERR_UPLOAD_FAILED', 404: 'ERR_UPLOAD_FAILED' } as const;
      expect(error.code, String(status)).toBe(codes[status as 401 | 403 | 404]);
      expect(once.seen.length, String(status)).toBe(2);
    }

    // A 429 on the other legs is retried by the policy like a 503 (request-upload's is waited out:
    // below, "within Happy's 60 new attachments a minute").
    const always = fake(() => json({ error: 'busy' }, 429));
    const limited = new HappyServerStore({ ...opts, retries: 2, fetch: always.fetch });
    const error = await rejectionOf(limited.get(`media/${UUID}`));
    expect(error.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(error.message).toMatch(/^request-download failed.*429/);
    expect(always.seen.length).toBe(3);
  });

  it('maps the server 400 "Too big" to ERR_LIMIT_EXCEEDED', async () => {
    const { fetch } = fake(() =>
      json(
        { error: 'Error', message: 'body/size Too big: expected number to be <=10485760', statusCode: 400 },
        400,
      ),
    );
    const store = new HappyServerStore({ ...opts, fetch });
    expect((await rejectionOf(store.create(3, () => stream(new Uint8Array(3))))).code).toBe(
      'ERR_LIMIT_EXCEEDED',
    );
  });

  it('rewrites a loopback download URL to the server it talks to, and sends the token only there', async () => {
    const { fetch, seen } = fake((req) => {
      if (req.url.endsWith('/request-download')) {
        return json({ downloadUrl: `http://localhost:3005/v1/sessions/${SID}/attachments/${UUID}.enc` });
      }
      return new Response(new Uint8Array([9, 9, 9]), { status: 200, headers: { 'content-length': '3' } });
    });
    const store = new HappyServerStore({ ...opts, url: 'https://happy.example', fetch });
    const body = await new Response(await store.get(`media/${UUID}`)).arrayBuffer();
    expect(new Uint8Array(body)).toEqual(new Uint8Array([9, 9, 9]));
    expect(seen[1]?.url).toBe(`https://happy.example/v1/sessions/${SID}/attachments/${UUID}.enc`);
    expect(seen[1]?.auth).toBe(`Bearer ${TOKEN}`);

    const foreign = fake((req) =>
      req.url.endsWith('/request-download')
        ? json({ downloadUrl: 'https://cdn.example/x?X-Amz-Signature=abc' })
        : new Response(new Uint8Array([1]), { status: 200 }),
    );
    const s3 = new HappyServerStore({ ...opts, fetch: foreign.fetch });
    await new Response(await s3.get(`media/${UUID}`)).arrayBuffer();
    expect(foreign.seen[1]?.auth).toBeNull();
  });

  it('renews a reused download URL the host refuses (an expired presigned URL), once, on get and head', async () => {
    const blob = new Uint8Array(100).map((_, i) => i);
    let issued = 0;
    let expiredBelow = 0; // URLs numbered below this have expired
    const { fetch, seen } = fake((req, init) => {
      if (req.url.endsWith('/request-download')) {
        issued += 1;
        return json({ downloadUrl: `https://cdn.example/blob?sig=${issued}` });
      }
      const sig = Number(new URL(req.url).searchParams.get('sig'));
      if (sig < expiredBelow || req.method === 'HEAD') {
        return new Response('<Error><Code>AccessDenied</Code></Error>', { status: 403 });
      }
      const [, first, last] = /^bytes=(\d+)-(\d+)$/.exec(new Headers(init?.headers).get('range') ?? '') ?? [];
      return new Response(blob.slice(Number(first), Number(last) + 1), {
        status: 206,
        headers: { 'content-range': `bytes ${first}-${last}/100` },
      });
    });
    const store = new HappyServerStore({ ...opts, fetch });
    const sizes: number[] = [];
    const read = async () =>
      new Uint8Array(
        await new Response(
          await store.get(`media/${UUID}`, { offset: 10, length: 10 }, { onSize: (n) => sizes.push(n) }),
        ).arrayBuffer(),
      );
    expect(await read()).toEqual(blob.slice(10, 20));
    expiredBelow = 2; // the first URL expires; the store still holds it
    expect(await read()).toEqual(blob.slice(10, 20));
    expect(sizes).toEqual([100, 100]);
    const path = (s: Seen) => `${s.method} ${s.url.replace(/^.*\//, '')}`;
    expect(seen.map(path)).toEqual([
      'POST request-download',
      'GET blob?sig=1',
      'GET blob?sig=1', // refused: expired
      'POST request-download',
      'GET blob?sig=2',
    ]);
    // head: HEAD is refused as S3 refuses it on a GET URL, then the ranged GET of an expired URL is too.
    expiredBelow = 3;
    seen.length = 0;
    expect(await store.head(`media/${UUID}`)).toEqual({ size: 100 });
    expect(seen.map(path)).toEqual([
      'HEAD blob?sig=2',
      'GET blob?sig=2',
      'POST request-download',
      'HEAD blob?sig=3',
      'GET blob?sig=3',
    ]);
    // A fresh URL that is refused is not asked again: the refusal is the answer.
    expiredBelow = 100;
    seen.length = 0;
    const error = await rejectionOf(read());
    expect(error.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(error.message).toMatch(/^download failed.*403/);
    expect(seen.map(path)).toEqual(['GET blob?sig=3', 'POST request-download', 'GET blob?sig=4']);
  });

  it('validates its options and refs, and has no put or delete (the server issues refs, cannot delete one)', async () => {
    for (const bad of [
      { ...opts, url: 'ftp://x' },
      { ...opts, url: 'http://u:p@x' },
      { ...opts, token: ' ' },
      { ...opts, sessionId: '../x' },
    ]) {
      expect(() => new HappyServerStore(bad)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      );
    }
    const { fetch, seen } = fake(() => json({}));
    const store: BlobStore = new HappyServerStore({ ...opts, fetch });
    expect(store.serverRef?.(`media/${UUID}`)).toBe(SERVER_REF);
    expect(store.mediaRef?.(SERVER_REF)).toBe(`media/${UUID}`);
    expect(() => store.mediaRef?.(`sessions/other/attachments/${UUID}.enc`)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_REF' }),
    );
    expect(store.put).toBeUndefined();
    expect(store.delete).toBeUndefined();
    expect((await rejectionOf(store.get('media/not-a-uuid'))).code).toBe('ERR_INVALID_REF');
    expect(
      (await rejectionOf(store.create(HAPPY_MAX_ATTACHMENT_BYTES + 1, () => stream(new Uint8Array(1))))).code,
    ).toBe('ERR_LIMIT_EXCEEDED');
    expect(seen).toEqual([]);
  });

  it('create hands the ref request-upload issued to the body before reading it; a short body uploads nothing', async () => {
    const { fetch, seen } = fake(() =>
      json({
        ref: SERVER_REF,
        uploadUrl: `http://127.0.0.1:3005/v1/sessions/${SID}/attachments/${UUID}.enc`,
        method: 'PUT',
      }),
    );
    const store = new HappyServerStore({ ...opts, fetch });
    const given: string[] = [];
    const error = await rejectionOf(
      store.create(6, (ref) => {
        given.push(ref);
        expect(seen.map((s) => new URL(s.url).pathname.split('/').pop())).toEqual(['request-upload']);
        return stream(new Uint8Array(5));
      }),
    );
    expect(error.code).toBe('ERR_UPLOAD_FAILED');
    expect(given).toEqual([`media/${UUID}`]);
    expect(seen.length).toBe(1);
  });

  it('downloadMedia reads a v2 and a v1 attachment from a server that ignores Range and tells no length', async () => {
    const blobKey = randomBytes(32);
    const plain = randomBytes(300_000 + 77);
    const ref = `media/${UUID}`;
    const blobs = {
      v2: await encryptBlob(plain, blobKey, { context: mediaBlobContext(ref) }),
      v1: encryptV1Blob(plain, blobKey),
    };
    for (const format of ['v2', 'v1'] as const) {
      for (const sized of [true, false]) {
        // HEAD without a length, and every GET answered 200 with the whole blob, chunked (no length).
        const { fetch, seen } = fake((req) => {
          if (req.url.endsWith('/request-download'))
            return json({ downloadUrl: 'http://127.0.0.1:3005/files/x.enc' });
          if (req.method === 'HEAD') return new Response(null, { status: 200 });
          return new Response(stream(blobs[format]), { status: 200 });
        });
        const store = new HappyServerStore({ ...opts, fetch });
        const input = {
          ref,
          ...(format === 'v1' ? { format } : {}),
          ...(sized ? { size: plain.length } : {}),
        };
        const got = await downloadMedia(input, { source: store, blobKey, sink: memorySink() });
        expect(Buffer.from(got).equals(Buffer.from(plain)), `${format} sized=${sized}`).toBe(true);
        expect(seen.some((s) => s.method === 'HEAD')).toBe(true);
      }
    }
  });
});

describe("HappyServerStore within Happy's 60 new attachments a minute", () => {
  const issue = (n: number) =>
    json({
      ref: `sessions/${SID}/attachments/${UUID.slice(0, -2)}${String(n).padStart(2, '0')}.enc`,
      uploadUrl: `http://127.0.0.1:3005/v1/sessions/${SID}/attachments/x.enc`,
      method: 'PUT',
    });

  it('paces request-uploads to the window and says how long it waits', async () => {
    const times: number[] = [];
    const { fetch } = fake((req) => {
      if (req.url.endsWith('/request-upload')) {
        times.push(Date.now());
        return issue(times.length);
      }
      return json({ ok: true });
    });
    const store = new HappyServerStore({ ...opts, fetch, uploadRate: { perWindow: 3, windowMs: 400 } });
    const waits: { ms: number; reason: string }[] = [];
    for (let i = 0; i < 5; i++) {
      await store.create(3, () => stream(new Uint8Array(3)), { onWait: (wait) => waits.push(wait) });
    }
    expect(times).toHaveLength(5);
    // The 4th and 5th waited for the window: never more than 3 within 400 ms.
    for (let i = 3; i < times.length; i++) {
      expect((times[i] as number) - (times[i - 3] as number)).toBeGreaterThanOrEqual(399);
    }
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(waits[0]?.ms).toBeGreaterThan(0);
    expect(waits[0]?.ms).toBeLessThanOrEqual(400);
    expect(waits[0]?.reason).toMatch(/at most 3 new attachments a minute/);
  });

  it('a 429 is waited out with growing pauses, each said; past the bound the send fails, saying why', async () => {
    let refusals = 3;
    const { fetch, seen } = fake((req) => {
      if (req.url.endsWith('/request-upload')) {
        if (refusals-- > 0) return json({ error: 'Too many upload requests. Try again in a minute.' }, 429);
        return issue(1);
      }
      return json({ ok: true });
    });
    const store = new HappyServerStore({ ...opts, fetch, uploadRate: { refusedPausesMs: [10, 20, 40] } });
    const waits: { ms: number; reason: string }[] = [];
    await store.create(3, () => stream(new Uint8Array(3)), { onWait: (wait) => waits.push(wait) });
    expect(waits.map((wait) => wait.ms)).toEqual([10, 20, 40]);
    expect(waits[0]?.reason).toMatch(/429/);
    expect(seen.filter((s) => s.url.endsWith('/request-upload'))).toHaveLength(4);

    const always = fake(() => json({ error: 'Too many upload requests.' }, 429));
    const stuck = new HappyServerStore({
      ...opts,
      fetch: always.fetch,
      uploadRate: { refusedPausesMs: [5], giveUpMs: 50 },
    });
    const error = await rejectionOf(stuck.create(3, () => stream(new Uint8Array(3))));
    expect(error.code).toBe('ERR_UPLOAD_FAILED');
    expect(error.message).toMatch(/refused new attachments \(429\)/);
    // Nothing was uploaded.
    expect(always.seen.every((s) => s.url.endsWith('/request-upload'))).toBe(true);
  });

  it('an abort ends a wait at once', async () => {
    const { fetch } = fake((req) => (req.url.endsWith('/request-upload') ? issue(1) : json({ ok: true })));
    const store = new HappyServerStore({ ...opts, fetch, uploadRate: { perWindow: 1, windowMs: 60_000 } });
    await store.create(3, () => stream(new Uint8Array(3)));
    const abort = new AbortController();
    const started = Date.now();
    const waiting = store.create(3, () => stream(new Uint8Array(3)), {
      signal: abort.signal,
      onWait: () => abort.abort(),
    });
    expect((await rejectionOf(waiting)).code).toBe('ERR_ABORTED');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
