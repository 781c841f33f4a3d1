/**
 * serveMedia: the loopback endpoint answers Range requests with exactly the right plaintext, reads only
 * the chunks it needs, speaks correct 200/206/416/Content-Range, and never sends an unverified byte.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { randomBytes } from '../../../src/core/bytes.js';
import { encryptV1Blob, V1_BLOB_MAX_PLAINTEXT_BYTES } from '../../../src/core/happy/index.js';
import { type MediaEndpoint, serveMedia } from '../../../src/node/playback/index.js';
import { MemoryStore } from './helpers/memory-store.js';
import { pseudoRandomBytes, sameBytes } from './helpers/samples.js';

const key = randomBytes(32);
const REF = 'media/servetest0000000000000000';
const plain = pseudoRandomBytes(2 * 1024 * 1024 + 12_345, 5);
let blob: Uint8Array;
let store: MemoryStore;
let endpoint: MediaEndpoint;

beforeAll(async () => {
  blob = await encryptBlob(plain, key, { context: mediaBlobContext(REF) });
  store = new MemoryStore();
  store.put(REF, blob);
  endpoint = await serveMedia(
    { ref: REF, mimeType: 'video/mp4', size: plain.length },
    { store, blobKey: key },
  );
});
afterAll(() => endpoint.close());

async function get(url: string, headers: Record<string, string> = {}, method = 'GET') {
  const response = await fetch(url, { headers, method });
  return { response, body: new Uint8Array(await response.arrayBuffer()) };
}

describe('serveMedia', () => {
  it('binds to 127.0.0.1 with a 128-bit random path and the right extension', () => {
    const url = new URL(endpoint.url);
    expect(url.hostname).toBe('127.0.0.1');
    const [token, name] = url.pathname.slice(1).split('/');
    expect(Buffer.from(token!, 'base64url')).toHaveLength(16);
    expect(name).toBe('media.mp4');
    expect(endpoint.size).toBe(plain.length);
  });

  it('answers random ranges with exactly the right plaintext (206, Content-Range)', async () => {
    for (let i = 0; i < 25; i++) {
      const start = Math.floor(Math.random() * plain.length);
      const end = Math.min(plain.length - 1, start + Math.floor(Math.random() * 100_000));
      const { response, body } = await get(endpoint.url, { Range: `bytes=${start}-${end}` });
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/${plain.length}`);
      expect(response.headers.get('content-type')).toBe('video/mp4');
      expect(Number(response.headers.get('content-length'))).toBe(end - start + 1);
      expect(sameBytes(body, plain.subarray(start, end + 1))).toBe(true);
    }
  });

  it('answers open and suffix ranges, the whole body, HEAD and unsatisfiable ranges', async () => {
    const open = await get(endpoint.url, { Range: 'bytes=2000000-' });
    expect(open.response.status).toBe(206);
    expect(sameBytes(open.body, plain.subarray(2_000_000))).toBe(true);
    const suffix = await get(endpoint.url, { Range: 'bytes=-100' });
    expect(suffix.response.headers.get('content-range')).toBe(
      `bytes ${plain.length - 100}-${plain.length - 1}/${plain.length}`,
    );
    expect(sameBytes(suffix.body, plain.subarray(plain.length - 100))).toBe(true);
    const whole = await get(endpoint.url);
    expect(whole.response.status).toBe(200);
    expect(whole.response.headers.get('accept-ranges')).toBe('bytes');
    expect(sameBytes(whole.body, plain)).toBe(true);
    const head = await get(endpoint.url, {}, 'HEAD');
    expect(head.response.status).toBe(200);
    expect(Number(head.response.headers.get('content-length'))).toBe(plain.length);
    expect(head.body).toHaveLength(0);
    const beyond = await get(endpoint.url, { Range: `bytes=${plain.length}-` });
    expect(beyond.response.status).toBe(416);
    expect(beyond.response.headers.get('content-range')).toBe(`bytes */${plain.length}`);
    // Several ranges are not supported: the whole body, as RFC 9110 allows.
    expect((await get(endpoint.url, { Range: 'bytes=0-1,5-6' })).response.status).toBe(200);
  });

  it('reads only the chunks a range covers', async () => {
    store.gets.length = 0;
    const start = 1_000_000;
    await get(endpoint.url, { Range: `bytes=${start}-${start + 99}` });
    expect(store.gets).toHaveLength(1);
    const chunk = Math.floor(start / 16384);
    expect(store.gets[0]).toMatchObject({ offset: 56 + chunk * 16400, length: 16400 });
  });

  it('sends the first verified chunks before the store has sent the rest, and stops the store when the player drops the response', async () => {
    const slow = new MemoryStore();
    slow.put(REF, blob);
    slow.pieceDelayMs = 5;
    // What the store has delivered, and whether its current response was cancelled.
    let delivered = 0;
    let cancelled = false;
    const watched = {
      head: (ref: string) => slow.head(ref),
      async get(...args: Parameters<MemoryStore['get']>) {
        const body = await slow.get(...args);
        const reader = body.getReader();
        return new ReadableStream<Uint8Array>({
          async pull(controller) {
            const { done, value } = await reader.read();
            if (done) controller.close();
            else {
              delivered += value.length;
              controller.enqueue(value);
            }
          },
          async cancel(reason) {
            cancelled = true;
            await reader.cancel(reason);
          },
        });
      },
    };
    const streaming = await serveMedia({ ref: REF, mimeType: 'video/mp4' }, { store: watched, blobKey: key });
    const opened = slow.gets.length; // the header and final chunk, read at open
    delivered = 0;
    try {
      const response = await fetch(streaming.url, { headers: { Range: 'bytes=0-' } });
      expect(response.status).toBe(206);
      const body = (response.body as ReadableStream<Uint8Array>).getReader();
      const first = await body.read();
      expect(
        sameBytes(first.value as Uint8Array, plain.subarray(0, (first.value as Uint8Array).length)),
      ).toBe(true);
      // The first bytes left before the store had sent what the first request asked for.
      const asked = slow.gets[opened];
      expect(asked?.offset).toBe(56);
      expect(delivered).toBeLessThan(asked?.length ?? 0);
      await body.cancel();
      for (let waited = 0; !cancelled && waited < 2000; waited += 10)
        await new Promise((r) => setTimeout(r, 10));
      expect(cancelled).toBe(true);
      const gets = slow.gets.length;
      await new Promise((r) => setTimeout(r, 50));
      expect(slow.gets.length).toBe(gets);
    } finally {
      await streaming.close();
    }
  });

  it('refuses other paths, other methods and foreign Host headers', async () => {
    const url = new URL(endpoint.url);
    expect((await get(`${url.origin}/${'A'.repeat(22)}/media.mp4`)).response.status).toBe(404);
    expect((await get(`${url.origin}/`)).response.status).toBe(404);
    expect((await get(endpoint.url, {}, 'DELETE')).response.status).toBe(405);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(endpoint.url, { headers: { Host: `evil.example:${url.port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(404);
  });

  it('never sends bytes of a chunk that fails its tag', async () => {
    const tamperedStore = new MemoryStore();
    tamperedStore.put(REF, blob);
    const tampered = await serveMedia(
      { ref: REF, mimeType: 'video/mp4' },
      { store: tamperedStore, blobKey: key },
    );
    try {
      tamperedStore.flipAt.add(56 + 16400 * 100 + 7); // chunk 100 lies in the second 1 MiB piece
      // A range starting in the bad chunk: a clean 502 before any body.
      expect(
        (await get(tampered.url, { Range: `bytes=${16384 * 100}-${16384 * 100 + 10}` })).response.status,
      ).toBe(502);
      // A range that reaches the bad chunk after good ones: the body is cut, never completed.
      await expect(get(tampered.url, { Range: 'bytes=0-2000000' })).rejects.toThrow();
      // Ranges elsewhere still play.
      const fine = await get(tampered.url, { Range: 'bytes=0-99' });
      expect(sameBytes(fine.body, plain.subarray(0, 100))).toBe(true);
    } finally {
      await tampered.close();
    }
  });

  it('fails at once for a wrong key or a size that differs from the message', async () => {
    await expect(serveMedia({ ref: REF }, { store, blobKey: randomBytes(32) })).rejects.toMatchObject({
      code: 'ERR_DECRYPTION_FAILED',
    });
    await expect(serveMedia({ ref: REF, size: 5 }, { store, blobKey: key })).rejects.toMatchObject({
      code: 'ERR_DECRYPTION_FAILED',
    });
  });

  it('serves v1 whole-blob attachments', async () => {
    const small = pseudoRandomBytes(50_000, 9);
    const v1Store = new MemoryStore();
    v1Store.put(REF, encryptV1Blob(small, key));
    const v1 = await serveMedia({ ref: REF, format: 'v1' }, { store: v1Store, blobKey: key });
    try {
      const { body } = await get(v1.url, { Range: 'bytes=100-199' });
      expect(sameBytes(body, small.subarray(100, 200))).toBe(true);
      expect(v1.mimeType).toBe('application/octet-stream');
    } finally {
      await v1.close();
    }
  });

  it("v1 at Happy's cap: 10485760 stored bytes are served; 10485761 are refused before the blob is read", async () => {
    const largest = pseudoRandomBytes(V1_BLOB_MAX_PLAINTEXT_BYTES, 10);
    const v1Store = new MemoryStore();
    v1Store.put(REF, encryptV1Blob(largest, key));
    const atCap = await serveMedia({ ref: REF, format: 'v1' }, { store: v1Store, blobKey: key });
    try {
      expect(atCap.size).toBe(V1_BLOB_MAX_PLAINTEXT_BYTES);
      const { body } = await get(atCap.url, { Range: `bytes=${V1_BLOB_MAX_PLAINTEXT_BYTES - 10}-` });
      expect(sameBytes(body, largest.subarray(V1_BLOB_MAX_PLAINTEXT_BYTES - 10))).toBe(true);
    } finally {
      await atCap.close();
    }
    const over = new MemoryStore();
    over.put(REF, encryptV1Blob(pseudoRandomBytes(V1_BLOB_MAX_PLAINTEXT_BYTES + 1, 11), key));
    await expect(serveMedia({ ref: REF, format: 'v1' }, { store: over, blobKey: key })).rejects.toMatchObject(
      {
        code: 'ERR_LIMIT_EXCEEDED',
      },
    );
    expect(over.gets).toHaveLength(0);
  });

  it('stops answering after close', async () => {
    const short = await serveMedia({ ref: REF }, { store, blobKey: key });
    await short.close();
    await expect(fetch(short.url)).rejects.toThrow();
  });
});
