/**
 * A loopback HTTP proxy in front of a server that counts the request body bytes passed on, per method: what
 * a client really sent up (a process killed in the middle of an upload counts what left it), where the
 * client's own counters die with it; and the bytes of the requests the server accepted (answered 2xx).
 * It can cut every request under way, as a machine losing power or network drops what it was sending.
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
  /** Body bytes of the requests the upstream answered with a 2xx, per method; a caller may reset it. */
  accepted: Record<string, number>;
  /** Called as body bytes pass, with the method and its count so far. */
  onSent?: (method: string, sent: number) => void;
  /** Cuts every request under way (both connections); resolves once none is open. */
  cut(): Promise<void>;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts a proxy on a free loopback port in front of `upstream` (`http:` only), passing every request
 * and answer on unchanged except the `Host` header, which names the upstream.
 */
export async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const target = new URL(upstream);
  const open = new Set<() => Promise<void>>();
  const proxy: CountingProxy = {
    url: '',
    sent: {},
    accepted: {},
    cut: async () => {
      await Promise.all([...open].map((cut) => cut()));
    },
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    const method = req.method ?? '';
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      proxy.sent[method] = (proxy.sent[method] ?? 0) + chunk.length;
      proxy.onSent?.(method, proxy.sent[method]);
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
        const status = answer.statusCode ?? 502;
        if (status >= 200 && status < 300) proxy.accepted[method] = (proxy.accepted[method] ?? 0) + bytes;
        res.writeHead(status, answer.headers);
        answer.pipe(res);
      },
    );
    const closed = new Promise<void>((resolve) => res.on('close', resolve));
    const cut = async () => {
      out.destroy();
      req.destroy();
      res.destroy();
      await closed;
    };
    open.add(cut);
    res.on('close', () => open.delete(cut));
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
