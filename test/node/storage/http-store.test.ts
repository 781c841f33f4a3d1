import { readdir, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptBlob, mediaBlobContext, openBlobRandomAccess } from '../../../src/core/blob/index.js';
import { createMediaRef } from '../../../src/core/protocol/refs.js';
import { openMedia } from '../../../src/node/playback/index.js';
import {
  HappyServerStore,
  HttpBlobStore,
  LocalBlobStore,
  type MediaServer,
  startMediaServer,
  storeRangeSource,
} from '../../../src/node/storage/index.js';
import { type RangeServer, startRangeServer } from '../../helpers/range-server.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { collect, describeStoreContract, streamOf } from './store-contract.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
let server: MediaServer;
let backing: LocalBlobStore;
const TOKEN = 'test-token-4f1c';
const LIMIT = 200_000;

beforeAll(async () => {
  tmp = await makeTempDir();
  backing = new LocalBlobStore(join(tmp.dir, 'served'));
  server = await startMediaServer({ store: backing, token: TOKEN, maxUploadBytes: LIMIT });
});
afterAll(async () => {
  await server?.close();
  await tmp.cleanup();
});

describeStoreContract('HttpBlobStore', () => new HttpBlobStore(server.url, { token: TOKEN }));

/** A raw HTTP exchange, so the tests control every header (fetch would fix some up). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Uint8Array,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const auth = { authorization: `Bearer ${TOKEN}` };

describe('media server under good and bad requests', () => {
  const ref = createMediaRef();
  const blob = new Uint8Array(50_000).map((_, i) => i % 251);

  it('answers PUT 201, GET 200, HEAD, Range 206 with the right headers', async () => {
    const put = await raw(
      'PUT',
      `/v1/blobs/${ref}`,
      { ...auth, 'content-length': String(blob.length) },
      blob,
    );
    expect(put.status).toBe(201);
    expect(JSON.parse(put.body.toString())).toEqual({ ref, size: blob.length });

    const get = await raw('GET', `/v1/blobs/${ref}`, auth);
    expect(get.status).toBe(200);
    expect(get.headers['content-length']).toBe(String(blob.length));
    expect(get.headers['accept-ranges']).toBe('bytes');
    expect(get.body.equals(Buffer.from(blob))).toBe(true);

    const head = await raw('HEAD', `/v1/blobs/${ref}`, auth);
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(blob.length));
    expect(head.body.length).toBe(0);

    const cases: [string, number, number][] = [
      ['bytes=0-55', 0, 55],
      ['bytes=56-16455', 56, 16455],
      ['bytes=49990-', 49990, 49999],
      ['bytes=-10', 49990, 49999],
      ['bytes=49999-99999999', 49999, 49999],
    ];
    for (const [header, start, end] of cases) {
      const part = await raw('GET', `/v1/blobs/${ref}`, { ...auth, range: header });
      expect(part.status, header).toBe(206);
      expect(part.headers['content-range'], header).toBe(`bytes ${start}-${end}/${blob.length}`);
      expect(part.headers['content-length'], header).toBe(String(end - start + 1));
      expect(part.body.equals(Buffer.from(blob.subarray(start, end + 1))), header).toBe(true);
    }
  });

  it('answers 416 with Content-Range: bytes */size for ranges it cannot serve', async () => {
    for (const header of [
      'bytes=50000-',
      'bytes=60000-70000',
      'bytes=10-5',
      'bytes=-0',
      'bytes=0-1,5-6',
      'items=0-1',
      'bytes=abc',
    ]) {
      const res = await raw('GET', `/v1/blobs/${ref}`, { ...auth, range: header });
      expect(res.status, header).toBe(416);
      expect(res.headers['content-range'], header).toBe(`bytes */${blob.length}`);
    }
  });

  it('refuses oversized uploads with 413 before reading them, and stores nothing', async () => {
    const big = createMediaRef();
    const res = await raw(
      'PUT',
      `/v1/blobs/${big}`,
      { ...auth, 'content-length': String(LIMIT + 1) },
      new Uint8Array(LIMIT + 1),
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body.toString()).error.code).toBe('ERR_LIMIT_EXCEEDED');
    await expect(backing.head(big)).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
    const client = new HttpBlobStore(server.url, { token: TOKEN });
    await expect(client.put(big, streamOf(new Uint8Array(LIMIT + 1)), LIMIT + 1)).rejects.toMatchObject({
      code: 'ERR_LIMIT_EXCEEDED',
    });
  });

  it('with Expect: 100-continue, refuses before the body is sent and invites the body only when accepted', async () => {
    /** Sends only the headers; resolves with what came back first: `100 Continue` or a final status. */
    const ask = (ref: string, size: number) =>
      new Promise<{ first: 'continue' | number; req: ReturnType<typeof request> }>((resolve, reject) => {
        const req = request(`${server.url}/v1/blobs/${ref}`, {
          method: 'PUT',
          headers: { ...auth, 'content-length': String(size), expect: '100-continue' },
        });
        req.on('continue', () => resolve({ first: 'continue', req }));
        req.on('response', (res) => {
          res.resume();
          resolve({ first: res.statusCode ?? 0, req });
        });
        req.on('error', reject);
        req.flushHeaders();
      });
    const refused = await ask(createMediaRef(), LIMIT + 1);
    expect(refused.first).toBe(413);
    refused.req.destroy();
    const accepted = createMediaRef();
    const ok = await ask(accepted, 10);
    expect(ok.first).toBe('continue');
    const status = await new Promise<number>((resolve) => {
      ok.req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      ok.req.end(new Uint8Array(10));
    });
    expect(status).toBe(201);
    expect((await backing.head(accepted)).size).toBe(10);
  });

  it('requires Content-Length on uploads (411)', async () => {
    const res = await raw(
      'PUT',
      `/v1/blobs/${createMediaRef()}`,
      { ...auth, 'transfer-encoding': 'chunked' },
      new Uint8Array(10),
    );
    expect(res.status).toBe(411);
  });

  it('rejects traversal and malformed refs with 400 and never touches the disk outside the store', async () => {
    for (const path of [
      '/v1/blobs/media/..%2f..%2fetc%2fpasswd',
      '/v1/blobs/media/%2e%2e',
      '/v1/blobs/media/a.b',
      '/v1/blobs/media/',
      '/v1/blobs/media/a/b',
      '/v1/blobs/other/abc',
      `/v1/blobs/media/${'a'.repeat(129)}`,
    ]) {
      const res = await raw('GET', path, auth);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body.toString()).error.code, path).toBe('ERR_INVALID_REF');
    }
  });

  it('answers 404 for unknown routes and missing blobs, 405 for other methods', async () => {
    expect((await raw('GET', '/', auth)).status).toBe(404);
    expect((await raw('GET', '/v2/blobs/media/abc', auth)).status).toBe(404);
    expect((await raw('GET', `/v1/blobs/${createMediaRef()}`, auth)).status).toBe(404);
    const post = await raw('POST', `/v1/blobs/${createMediaRef()}`, auth);
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, PUT, DELETE');
  });

  it('answers 401 without the right token, for every method', async () => {
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong' },
      { authorization: TOKEN },
      { authorization: `Basic ${TOKEN}` },
    ];
    for (const headers of variants) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const res = await raw(method, `/v1/blobs/${ref}`, { ...headers, 'content-length': '0' });
        expect(res.status, `${method} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
    }
    await expect(new HttpBlobStore(server.url, { token: 'wrong' }).head(ref)).rejects.toMatchObject({
      code: 'ERR_DOWNLOAD_FAILED',
    });
    expect((await raw('GET', '/v1/health')).status).toBe(200);
  });

  it('cleans up when a client disconnects mid-upload', async () => {
    const cut = createMediaRef();
    await new Promise<void>((resolve) => {
      const req = request(`${server.url}/v1/blobs/${cut}`, {
        method: 'PUT',
        headers: { ...auth, 'content-length': '100000' },
      });
      req.on('error', () => resolve());
      req.write(new Uint8Array(30_000), () => setTimeout(() => req.destroy(), 50));
      req.on('close', () => resolve());
    });
    // The server sees the reset, aborts its put and removes the partial file.
    const partialDir = join(backing.dir, '.partial');
    for (let i = 0; i < 100 && (await readdir(partialDir)).length > 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await readdir(partialDir)).toEqual([]);
    await expect(backing.head(cut)).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
  });

  it('answers garbage on the socket with 400 and stays up', async () => {
    const { connect } = await import('node:net');
    const { port } = new URL(server.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => {
        text += d.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    const after = await raw('GET', `/v1/blobs/${ref}`, auth);
    expect(after.status).toBe(200);
    expect(
      Buffer.from(await collect(await new HttpBlobStore(server.url, { token: TOKEN }).get(ref))).length,
    ).toBe(blob.length);
  });

  it('DELETE answers 204, also for a missing blob', async () => {
    expect((await raw('DELETE', `/v1/blobs/${ref}`, auth)).status).toBe(204);
    expect((await raw('DELETE', `/v1/blobs/${ref}`, auth)).status).toBe(204);
    expect((await raw('GET', `/v1/blobs/${ref}`, auth)).status).toBe(404);
  });

  it('refuses to serve a store without put and delete (one that issues its own refs), before listening', async () => {
    const issuing = new HappyServerStore({ url: 'http://127.0.0.1:9', token: 't', sessionId: 's1' });
    await expect(startMediaServer({ store: issuing })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
  });
});

describe('HttpBlobStore arguments', () => {
  it('rejects non-http URLs and URLs with credentials', () => {
    expect(() => new HttpBlobStore('ftp://x')).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
    expect(() => new HttpBlobStore('http://u:p@x')).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
    expect(() => new HttpBlobStore('not a url')).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
  });

  it('reports an unreachable server as ERR_DOWNLOAD_FAILED / ERR_UPLOAD_FAILED', async () => {
    const dead = new HttpBlobStore('http://127.0.0.1:9', { timeoutMs: 2000 });
    await expect(dead.head(createMediaRef())).rejects.toMatchObject({ code: 'ERR_DOWNLOAD_FAILED' });
    await expect(dead.put(createMediaRef(), streamOf(new Uint8Array(10)), 10)).rejects.toMatchObject({
      code: 'ERR_UPLOAD_FAILED',
    });
  });
});

describe('HttpBlobStore against servers that get Range wrong', () => {
  const key = new Uint8Array(32).fill(7);
  const plaintext = new Uint8Array(3 * 16384 + 500).map((_, i) => (i * 13) % 256);
  let ciphertext: Uint8Array;
  let ranged: RangeServer;
  const ref = createMediaRef();

  beforeAll(async () => {
    ciphertext = await encryptBlob(plaintext, key, { context: mediaBlobContext(ref) });
    ranged = await startRangeServer();
    ranged.blobs.set(`/v1/blobs/${ref}`, ciphertext);
  });
  afterAll(() => ranged?.close());

  it('a 206 with the wrong Content-Range is a retryable ERR_DOWNLOAD_FAILED, not ERR_DECRYPTION_FAILED', async () => {
    ranged.mode = 'wrong';
    const store = new HttpBlobStore(ranged.url);
    await expect(store.get(ref, { offset: 16456, length: 16400 })).rejects.toMatchObject({
      code: 'ERR_DOWNLOAD_FAILED',
    });
    // Through random-access decryption (what playback does): the transport fault is reported as such,
    // after its retries (without the delays between them, which this test is not about).
    const decrypting = async () => {
      const reader = await openBlobRandomAccess(storeRangeSource(store, ref, { retryDelayMs: 0 }), key, {
        context: mediaBlobContext(ref),
      });
      return reader.read(20_000, 100);
    };
    await expect(decrypting()).rejects.toMatchObject({ code: 'ERR_DOWNLOAD_FAILED' });
  });

  it('a server that ignores Range (200, whole body) still yields the asked bytes', async () => {
    ranged.mode = 'ignore';
    const store = new HttpBlobStore(ranged.url);
    const part = await collect(await store.get(ref, { offset: 16456, length: 16400 }));
    expect(Buffer.from(part).equals(Buffer.from(ciphertext.subarray(16456, 32856)))).toBe(true);
    const reader = await openBlobRandomAccess(storeRangeSource(store, ref), key, {
      context: mediaBlobContext(ref),
    });
    const piece = await reader.read(20_000, 100);
    expect(Buffer.from(piece).equals(Buffer.from(plaintext.subarray(20_000, 20_100)))).toBe(true);
    expect(ranged.ranges.at(-1)).toMatch(/^bytes=\d+-\d+$/);
  });

  it('playback resumes after a dropped connection from a server that ignores Range (200 on the resume)', async () => {
    ranged.mode = 'ignore';
    ranged.ranges.length = 0;
    ranged.dropNextAfter = 40_000; // inside the third sealed chunk
    const store = new HttpBlobStore(ranged.url);
    const opened = await openMedia({ ref, size: plaintext.length }, { store, blobKey: key, retryDelayMs: 1 });
    try {
      expect((await readFile(opened.path)).equals(Buffer.from(plaintext))).toBe(true);
    } finally {
      await opened.dispose();
    }
    // The second request resumed at a frame boundary with a Range the server ignored.
    expect(ranged.ranges.length).toBeGreaterThanOrEqual(2);
    expect(ranged.ranges.at(-1)).toMatch(/^bytes=(56|16456|32856)-/);
  });
});

/**
 * Issue 24, item 7: a timer cannot wait 2^31 ms or more (it fires after 1 ms instead), so a
 * `timeoutMs` that large failed every request at once. It is now clamped to the longest wait a timer
 * honours, and a bad value is refused.
 */
describe('HttpBlobStore timeoutMs', () => {
  it('2^31 ms and more wait for a slow answer instead of failing at once; bad values are refused', async () => {
    const { createServer } = await import('node:http');
    const slow = createServer((_req, res) => {
      setTimeout(() => {
        res.writeHead(206, { 'content-range': 'bytes 0-0/10', 'content-length': '1' });
        res.end('x');
      }, 150);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = slow.address() as { port: number };
      for (const timeoutMs of [2 ** 31, 2 ** 40]) {
        const store = new HttpBlobStore(`http://127.0.0.1:${port}`, { timeoutMs });
        await expect(store.head(createMediaRef())).resolves.toEqual({ size: 10 });
      }
      // A token that cannot go in a header is refused where it is given (before: ERR_INTERNAL or a retry).
      for (const token of ['a\r\nb', 'with space', 'tab\t', 'é']) {
        expect(() => new HttpBlobStore(`http://127.0.0.1:${port}`, { token })).toThrow(
          expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
        );
      }
      for (const timeoutMs of [-1, 1.5, Number.NaN]) {
        expect(() => new HttpBlobStore(`http://127.0.0.1:${port}`, { timeoutMs })).toThrow(
          expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
        );
      }
    } finally {
      await new Promise((resolve) => slow.close(resolve));
    }
  });

  it('0 is no limit, as for every other store: a slow answer to a delete is waited for', async () => {
    const { createServer } = await import('node:http');
    const slow = createServer((_req, res) => {
      setTimeout(() => {
        res.writeHead(204);
        res.end();
      }, 150);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = slow.address() as { port: number };
      const store = new HttpBlobStore(`http://127.0.0.1:${port}`, { timeoutMs: 0 });
      await expect(store.delete(createMediaRef())).resolves.toBeUndefined();
    } finally {
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});
