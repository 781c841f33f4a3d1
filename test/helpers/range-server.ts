/**
 * A loopback HTTP server that serves blobs the way real servers get Range wrong: `honest` (206 with the
 * right Content-Range), `ignore` (200 and the whole body, as Happy's local mode and many proxies do) or
 * `wrong` (206 claiming the asked range but sending the bytes from the start of the blob, as a broken
 * cache might on a resume). Any path serves the blob registered under it; HEAD gives the size.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RangeMode = 'honest' | 'ignore' | 'wrong';

export interface RangeServer {
  url: string;
  mode: RangeMode;
  /** Blobs by request path (e.g. `/v1/blobs/media/abc`). */
  blobs: Map<string, Uint8Array>;
  /** Range headers of every GET, in order. */
  ranges: (string | undefined)[];
  /** When set, the next GET's body is cut after this many bytes (a dropped connection), then it is cleared. */
  dropNextAfter: number | undefined;
  close(): Promise<void>;
}

export async function startRangeServer(mode: RangeMode = 'honest'): Promise<RangeServer> {
  const state: RangeServer = {
    url: '',
    mode,
    blobs: new Map(),
    ranges: [],
    dropNextAfter: undefined,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const blob = state.blobs.get((req.url ?? '').split('?')[0] ?? '');
    if (!blob) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
      return;
    }
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'content-length': String(blob.length) }).end();
      return;
    }
    state.ranges.push(req.headers.range);
    const drop = state.dropNextAfter;
    state.dropNextAfter = undefined;
    if (drop !== undefined) {
      // Announce the whole body, send part of it, then cut the connection.
      res.writeHead(200, { 'content-length': String(blob.length) });
      res.write(Buffer.from(blob.subarray(0, drop)), () => res.destroy());
      return;
    }
    const match = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (!match || state.mode === 'ignore') {
      res.writeHead(200, { 'content-length': String(blob.length) }).end(Buffer.from(blob));
      return;
    }
    const start = Number(match[1]);
    if (start >= blob.length) {
      res.writeHead(416, { 'content-range': `bytes */${blob.length}` }).end();
      return;
    }
    const end = Math.min(match[2] ? Number(match[2]) : blob.length - 1, blob.length - 1);
    const from = state.mode === 'wrong' ? 0 : start;
    res
      .writeHead(206, {
        'content-range': `bytes ${state.mode === 'wrong' ? 0 : start}-${from + end - start}/${blob.length}`,
        'content-length': String(end - start + 1),
      })
      .end(Buffer.from(blob.subarray(from, from + end - start + 1)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return state;
}
