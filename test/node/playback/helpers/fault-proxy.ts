/**
 * A loopback HTTP proxy in front of a media server (or Happy's server) that counts requests and the bytes
 * sent up, tells a test when a request arrives or is answered, and injects faults: it can cut a response
 * after a number of body bytes (a dropped connection) or flip one byte of the blob in transit.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FaultProxy {
  url: string;
  /** Every proxied request: method, path, Range header, and the body bytes the client sent. */
  requests: { method: string; path: string; range: string | undefined; bytes: number }[];
  /** Each GET with a body takes the next entry: cut the response after this many body bytes. */
  dropAfter: (number | undefined)[];
  /** Absolute blob offset of a byte to flip in every response that carries it (undefined: none). */
  flipAt: number | undefined;
  /** Request body bytes the proxy passed on, per method (`PUT`, `POST`, ...). */
  sent: Record<string, number>;
  /**
   * Called as each request arrives, before it is passed on (a test may kill its client there). A number
   * returned cuts the request after that many body bytes (the rest never reaches upstream).
   */
  onRequest?: (method: string, path: string) => number | undefined;
  /** Called when a request's answer has arrived from upstream, before it is passed back. */
  onAnswer?: (method: string, path: string) => void;
  close(): Promise<void>;
}

/** True for the Range of `HttpBlobStore.head`'s size probe (a one-byte GET), as opposed to a download. */
export function isSizeProbe(range: string | undefined): boolean {
  return range === 'bytes=0-0';
}

/** The download GETs the proxy saw (size probes left out). */
export function downloadGets(proxy: FaultProxy): FaultProxy['requests'] {
  return proxy.requests.filter((r) => r.method === 'GET' && !isSizeProbe(r.range));
}

/** The Happy attachments (their uuids) the proxy saw downloaded: GETs of `…/attachments/<uuid>.enc`. */
export function downloadedAttachments(proxy: FaultProxy): Set<string> {
  return new Set(
    proxy.requests
      .filter((r) => r.method === 'GET')
      .map((r) => /attachments\/([0-9a-f-]{36})\.enc/.exec(r.path)?.[1])
      .filter((name): name is string => name !== undefined),
  );
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const proxy: FaultProxy = {
    url: '',
    requests: [],
    dropAfter: [],
    flipAt: undefined,
    sent: {},
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const method = req.method ?? '';
    const seen = { method, path: req.url ?? '', range: req.headers.range, bytes: 0 };
    proxy.requests.push(seen);
    const cutAfter = proxy.onRequest?.(method, req.url ?? '');
    let passed = 0;
    req.on('data', (chunk: Buffer) => {
      proxy.sent[method] = (proxy.sent[method] ?? 0) + chunk.length;
      seen.bytes += chunk.length;
      passed += chunk.length;
    });
    const headers = { ...req.headers, host: target.host };
    const out = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (up) => {
        proxy.onAnswer?.(method, req.url ?? '');
        res.writeHead(up.statusCode ?? 502, up.headers);
        // The one-byte size probe (HttpBlobStore.head) is not a download: it takes no fault.
        const isBody =
          req.method === 'GET' &&
          !isSizeProbe(req.headers.range) &&
          (up.statusCode === 200 || up.statusCode === 206);
        const drop = isBody ? proxy.dropAfter.shift() : undefined;
        const start = Number(/^bytes (\d+)-/.exec(String(up.headers['content-range'] ?? ''))?.[1] ?? 0);
        let at = 0;
        up.on('data', (chunk: Buffer) => {
          const piece = Buffer.from(chunk);
          if (isBody && proxy.flipAt !== undefined) {
            const rel = proxy.flipAt - start - at;
            if (rel >= 0 && rel < piece.length) piece[rel]! ^= 0x01;
          }
          if (drop !== undefined && at + piece.length >= drop) {
            res.write(piece.subarray(0, Math.max(0, drop - at)));
            up.destroy();
            res.destroy();
            return;
          }
          at += piece.length;
          res.write(piece);
        });
        up.on('end', () => res.end());
        up.on('error', () => res.destroy());
      },
    );
    out.on('error', () => res.destroy());
    if (typeof cutAfter !== 'number') {
      req.pipe(out);
      return;
    }
    // A connection cut in the middle of the body: upstream gets `cutAfter` bytes and the end of the
    // connection (a request shorter than its Content-Length), the client a reset.
    let cut = false;
    req.on('data', (chunk: Buffer) => {
      if (cut) return;
      const room = cutAfter - (passed - chunk.length);
      if (room > 0) out.write(chunk.subarray(0, room));
      if (passed >= cutAfter) {
        cut = true;
        out.end();
        req.destroy();
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}
