/**
 * A loopback HTTP proxy in front of a server that counts the request body bytes passed on, per method: what
 * a client really sent up (a process killed in the middle of an upload counts what left it), where the
 * client's own counters die with it.
 *
 * @module
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running {@link startCountingProxy}. */
export interface CountingProxy {
  /** The proxy's base URL (`http://127.0.0.1:PORT`). */
  url: string;
  /** Request body bytes passed on upstream, per method (`PUT`, `POST`, ...); a caller may reset it. */
  sent: Record<string, number>;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts a proxy on a free loopback port in front of `upstream` (`http:` only), passing every request
 * and answer on unchanged except the `Host` header, which names the upstream.
 */
export async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const target = new URL(upstream);
  const sent: Record<string, number> = {};
  const proxy: CountingProxy = { url: '', sent, close: async () => undefined };
  const server = createServer((req, res) => {
    const method = req.method ?? '';
    req.on('data', (chunk: Buffer) => {
      proxy.sent[method] = (proxy.sent[method] ?? 0) + chunk.length;
    });
    const out = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.on('error', () => out.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
