/**
 * The media server against hostile clients (issue 14.2): DNS rebinding (a page that points its own name
 * at 127.0.0.1 sends `Host: <its name>`), browser cross-site writes (`Origin`, `Sec-Fetch-Site`), and
 * sockets that hold a connection open without ever finishing a request.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaRef } from '../../../src/core/protocol/refs.js';
import { type MediaServer, startMediaServer } from '../../../src/node/storage/media-server.js';
import { makeTempDir } from '../../helpers/tmp.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
let server: MediaServer;
let port: number;

beforeAll(async () => {
  tmp = await makeTempDir();
  server = await startMediaServer({ dir: tmp.dir, allowedHosts: ['media.example.test'] });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server.close();
  await tmp.cleanup();
});

/** One raw request with exactly the headers given (`host` included). */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Uint8Array,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function putBlob(ref: string): Promise<void> {
  const body = new Uint8Array(100);
  const r = await send(
    'PUT',
    `/v1/blobs/${ref}`,
    {
      host: `127.0.0.1:${port}`,
      'content-length': String(body.length),
    },
    body,
  );
  expect(r.status).toBe(201);
}

describe('Host check (DNS rebinding)', () => {
  it('refuses a foreign Host with 403 for every method, and the blob stays', async () => {
    const ref = createMediaRef();
    await putBlob(ref);
    for (const method of ['DELETE', 'GET', 'HEAD', 'PUT']) {
      const r = await send(method, `/v1/blobs/${ref}`, {
        host: `rebind.evil.example:${port}`,
        'content-length': '0',
      });
      expect(r.status, method).toBe(403);
    }
    expect((await send('HEAD', `/v1/blobs/${ref}`, { host: `127.0.0.1:${port}` })).status).toBe(200);
  });

  it('accepts loopback names and addresses and configured names, on the server port only', async () => {
    const ref = createMediaRef();
    await putBlob(ref);
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `media.example.test:${port}`,
    ]) {
      expect((await send('HEAD', `/v1/blobs/${ref}`, { host })).status, host).toBe(200);
    }
    for (const host of [`localhost:${port + 1}`, 'localhost', `127.0.0.1.evil.example:${port}`]) {
      expect((await send('HEAD', `/v1/blobs/${ref}`, { host })).status, host).toBe(403);
    }
  });
});

describe('browser cross-site writes', () => {
  it('refuses PUT and DELETE whose Origin is another site, or marked cross-site by Sec-Fetch-Site', async () => {
    const ref = createMediaRef();
    await putBlob(ref);
    const host = `127.0.0.1:${port}`;
    const refused: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const extra of refused) {
      expect((await send('DELETE', `/v1/blobs/${ref}`, { host, ...extra })).status).toBe(403);
      const put = await send('PUT', `/v1/blobs/${ref}`, { host, 'content-length': '0', ...extra });
      expect(put.status).toBe(403);
    }
    expect((await send('HEAD', `/v1/blobs/${ref}`, { host })).status).toBe(200);
    // The same origin (a page served by this server's own host) and non-browser clients may write.
    const same = { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' };
    expect((await send('DELETE', `/v1/blobs/${ref}`, same)).status).toBe(204);
  });
});

describe('slow and idle sockets', () => {
  function opened(at: number): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect(at, '127.0.0.1', () => resolve(socket));
      socket.on('error', reject);
    });
  }
  const closedSoon = (socket: Socket) =>
    new Promise<void>((resolve) => {
      if (socket.destroyed) resolve();
      socket.on('close', () => resolve());
      socket.on('error', () => undefined);
    });

  it('cuts a socket that trickles its headers past headersTimeoutMs', async () => {
    const slow = await startMediaServer({ dir: tmp.dir, headersTimeoutMs: 300 });
    try {
      const socket = await opened(Number(new URL(slow.url).port));
      const closed = closedSoon(socket);
      const header = `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(400)}`;
      let sent = 0;
      // One byte every 25 ms: never idle, never done (the whole header would take 10 s).
      const drip = setInterval(() => {
        if (!socket.destroyed && sent < header.length) socket.write(header[sent++] as string);
      }, 25);
      await closed;
      clearInterval(drip);
      expect(sent).toBeLessThan(header.length);
    } finally {
      await slow.close();
    }
  });

  it('caps open connections at maxConnections', async () => {
    const capped = await startMediaServer({ dir: tmp.dir, maxConnections: 2 });
    const at = Number(new URL(capped.url).port);
    try {
      const first = await opened(at);
      const second = await opened(at);
      // Each held socket is accepted (the server answers a request on it); the third is dropped.
      first.write('GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await new Promise((resolve) => first.once('data', resolve));
      const third = await opened(at);
      await closedSoon(third);
      expect(third.destroyed).toBe(true);
      expect(first.destroyed || second.destroyed).toBe(false);
      first.destroy();
      second.destroy();
    } finally {
      await capped.close();
    }
  });
});
