/**
 * `happy-media serve`: an HTTP server for encrypted blobs over any {@link BlobStore}.
 *
 * Routes (docs/storage.md has the full table):
 * - `PUT /v1/blobs/media/<id>`: streams the body into the store; `Content-Length` required (411),
 *   limited by `maxUploadBytes` (413); `201` when stored.
 * - `GET /v1/blobs/media/<id>`: the blob, `200`, or one byte range with `Range` (`206`/`416`).
 * - `HEAD /v1/blobs/media/<id>`: size and `Accept-Ranges` without a body.
 * - `DELETE /v1/blobs/media/<id>`: `204`, also when absent.
 * - `GET /v1/health`: `200 {"ok":true}` (no token needed).
 *
 * Only requests whose `Host` names this server are answered (loopback, the bound host, `allowedHosts`;
 * 403 otherwise: DNS rebinding), and a browser's cross-site write (`Origin`/`Sec-Fetch-Site`) is refused
 * (403). Connections are capped and slow or idle sockets are cut (see {@link DEFAULT_HEADERS_TIMEOUT_MS}
 * and the other defaults below).
 *
 * The ref in the path is taken literally (no percent-decoding, no normalisation) and must be a valid
 * `media/<id>`, so no path can reach outside the store. The server sees ciphertext only. Bodies are
 * streamed both ways with backpressure; a bad request gets its status and the server stays up.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertNonNegativeInteger } from '../../core/bytes.js';
import { HappyMediaError, InvalidArgumentError, StorageError } from '../../core/errors.js';
import { isMediaRef } from '../../core/protocol/refs.js';
import { type HostPolicy, isAllowedHost, isCrossSiteRequest } from '../http/allowed-host.js';
import { checkListenHost } from '../http/listen-host.js';
import { parseRangeHeader } from '../http/range-header.js';
import type { BlobStore } from './blob-store.js';
import { LocalBlobStore } from './local-store.js';
import { nodeReadableToWeb } from './node-readable.js';

/** URL path prefix of blob routes; the ref follows it. */
export const BLOB_ROUTE_PREFIX = '/v1/blobs/';
/** Path of the health route. */
export const HEALTH_ROUTE = '/v1/health';
/** Default upload limit: 4 GiB of ciphertext. */
export const DEFAULT_MAX_UPLOAD_BYTES = 4 * 1024 ** 3;
/** How much of a refused upload body is read and dropped before the connection is cut. */
const REFUSED_BODY_DRAIN_BYTES = 1024 * 1024;
/** How long a refused upload may keep its connection. */
const REFUSED_BODY_DRAIN_MS = 2000;
/** Default idle time of a connection before it is closed (ms). */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Default time a client has to send a request's headers (ms): they are small, a slow sender is an attack. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Default time a whole request may take, body included (ms): 1 hour, a 4 GiB upload at ~1.2 MB/s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60 * 60 * 1000;
/** Default time an idle keep-alive connection stays open between requests (ms). */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Default cap on open connections; more are closed at once (bounds sockets and memory). */
export const DEFAULT_MAX_CONNECTIONS = 256;

/** Options of {@link startMediaServer}; give `dir` or `store`. */
export interface MediaServerOptions {
  /** Directory of a {@link LocalBlobStore} to serve. */
  dir?: string;
  /** Any store to serve (takes precedence over `dir`). */
  store?: BlobStore;
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to listen on (default `127.0.0.1`: loopback only). */
  host?: string;
  /** When set, every blob request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Largest accepted upload in bytes (default {@link DEFAULT_MAX_UPLOAD_BYTES}). */
  maxUploadBytes?: number;
  /** Idle time before a silent connection is closed, in ms (default {@link DEFAULT_IDLE_TIMEOUT_MS}). */
  idleTimeoutMs?: number;
  /** Time to receive a request's headers, in ms (default {@link DEFAULT_HEADERS_TIMEOUT_MS}). */
  headersTimeoutMs?: number;
  /** Time for a whole request, in ms; 0 for none (default {@link DEFAULT_REQUEST_TIMEOUT_MS}). */
  requestTimeoutMs?: number;
  /** Idle keep-alive time between requests, in ms (default {@link DEFAULT_KEEP_ALIVE_TIMEOUT_MS}). */
  keepAliveTimeoutMs?: number;
  /** Most connections open at once (default {@link DEFAULT_MAX_CONNECTIONS}). */
  maxConnections?: number;
  /**
   * Host names accepted in `Host` besides loopback names/addresses and `host` (DNS-rebinding guard),
   * e.g. `['media.lan']` when clients reach the server by that name.
   */
  allowedHosts?: readonly string[];
}

/** A running media server. */
export interface MediaServer {
  /** Base URL, e.g. `http://127.0.0.1:43121` (no trailing slash). */
  url: string;
  /** Stops accepting, ends open connections and resolves when the server is closed. */
  close(): Promise<void>;
}

interface Reply {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, reply: Reply): void {
  sendJson(res, reply.status, { error: { code: reply.code, message: reply.message } }, reply.headers);
}

/** Maps a store error to an HTTP answer; internal details are not sent to the client. */
function replyForError(error: unknown): Reply {
  if (error instanceof HappyMediaError) {
    switch (error.code) {
      case 'ERR_NOT_FOUND':
        return { status: 404, code: error.code, message: 'no blob is stored under this ref' };
      case 'ERR_INVALID_REF':
        return { status: 400, code: error.code, message: error.message };
      case 'ERR_INVALID_ARGUMENT':
      case 'ERR_UPLOAD_FAILED':
        return { status: 400, code: error.code, message: error.message };
      case 'ERR_LIMIT_EXCEEDED':
        return { status: 413, code: error.code, message: error.message };
      default:
        break;
    }
  }
  return { status: 500, code: 'ERR_STORAGE', message: 'the store failed; see the server log' };
}

function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Starts an HTTP media server and resolves once it listens.
 *
 * @throws {InvalidArgumentError} for bad options (no `dir`/`store`, bad port, empty token).
 * @example
 * ```ts
 * const server = await startMediaServer({ dir: './blobs', token: process.env.HAPPY_MEDIA_TOKEN });
 * const store = new HttpBlobStore(server.url, { token: process.env.HAPPY_MEDIA_TOKEN });
 * // ...
 * await server.close();
 * ```
 */
export async function startMediaServer(options: MediaServerOptions): Promise<MediaServer> {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('expected `{ dir }` or `{ store }` for `options` but received nothing');
  }
  const store = options.store ?? (options.dir !== undefined ? new LocalBlobStore(options.dir) : undefined);
  if (!store) throw new InvalidArgumentError('expected a `dir` or a `store` to serve but received neither');
  const port = assertNonNegativeInteger(options.port ?? 0, 'port', 65535);
  const host = checkListenHost(options.host ?? '127.0.0.1');
  const timeouts = serverTimeouts(options);
  const allowedHosts = allowedHostNames(options.allowedHosts, host);
  const maxUploadBytes = assertNonNegativeInteger(
    options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
    'maxUploadBytes',
  );
  if (options.token !== undefined && (typeof options.token !== 'string' || options.token.length === 0)) {
    throw new InvalidArgumentError(
      'expected a non-empty string for `token` but received an empty or non-string value',
    );
  }
  const expected = options.token === undefined ? undefined : tokenDigest(options.token);

  const authorized = (req: IncomingMessage): boolean => {
    if (!expected) return true;
    const header = req.headers.authorization ?? '';
    const match = /^Bearer (.+)$/.exec(header);
    // Compare digests of equal length in constant time, so timing says nothing about the token.
    return match !== null && timingSafeEqual(tokenDigest(match[1] ?? ''), expected);
  };

  // Filled in once listening (the port may be 0 until then).
  const hostPolicy: HostPolicy = { port, names: allowedHosts, anyAddress: isWildcard(host) };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const rawPath = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (rawPath === HEALTH_ROUTE && (req.method === 'GET' || req.method === 'HEAD')) {
      sendJson(res, 200, { ok: true });
      return;
    }
    const reading = req.method === 'GET' || req.method === 'HEAD';
    if (!isAllowedHost(req.headers.host, hostPolicy)) {
      forbid(res, reading, 'this server answers only to its own host names (loopback, --host, --allow-host)');
      return;
    }
    if (!reading && isCrossSiteRequest(req.headers, hostPolicy)) {
      forbid(res, reading, 'a browser page of another site may not change blobs here');
      return;
    }
    if (!rawPath.startsWith(BLOB_ROUTE_PREFIX)) {
      sendError(res, {
        status: 404,
        code: 'ERR_NOT_FOUND',
        message: 'unknown route; blobs live under /v1/blobs/media/<id>',
      });
      return;
    }
    if (!authorized(req)) {
      sendError(res, {
        status: 401,
        code: 'ERR_UNAUTHORIZED',
        message: 'a valid bearer token is required (Authorization: Bearer <token>)',
        headers: { 'www-authenticate': 'Bearer' },
      });
      return;
    }
    const ref = rawPath.slice(BLOB_ROUTE_PREFIX.length);
    if (!isMediaRef(ref)) {
      sendError(res, {
        status: 400,
        code: 'ERR_INVALID_REF',
        message: 'expected /v1/blobs/media/<id> with an id of 1 to 128 characters from A-Z a-z 0-9 _ -',
      });
      return;
    }
    switch (req.method) {
      case 'PUT':
        return handlePut(req, res, ref);
      case 'GET':
      case 'HEAD':
        return handleGet(req, res, ref);
      case 'DELETE':
        await store.delete(ref);
        res.writeHead(204, { 'cache-control': 'no-store' });
        res.end();
        return;
      default:
        sendError(res, {
          status: 405,
          code: 'ERR_METHOD_NOT_ALLOWED',
          message: `${req.method} is not allowed here; use GET, HEAD, PUT or DELETE`,
          headers: { allow: 'GET, HEAD, PUT, DELETE' },
        });
    }
  };

  const handlePut = async (req: IncomingMessage, res: ServerResponse, ref: string): Promise<void> => {
    const lengthHeader = req.headers['content-length'];
    if (
      req.headers['transfer-encoding'] !== undefined ||
      lengthHeader === undefined ||
      !/^\d{1,16}$/.test(lengthHeader)
    ) {
      refuseBody(res, {
        status: 411,
        code: 'ERR_LENGTH_REQUIRED',
        message: 'an upload needs an exact Content-Length (no chunked encoding)',
      });
      return;
    }
    const size = Number(lengthHeader);
    if (size > maxUploadBytes) {
      refuseBody(res, {
        status: 413,
        code: 'ERR_LIMIT_EXCEEDED',
        message: `the upload is ${size} bytes but this server accepts at most ${maxUploadBytes}`,
      });
      return;
    }
    // A client that goes away mid-upload aborts the put, which then leaves nothing behind.
    const aborter = new AbortController();
    const onClose = () => {
      if (!req.complete) aborter.abort(new Error('the client closed the connection'));
    };
    req.on('close', onClose);
    if (/100-continue/i.test(req.headers.expect ?? '')) res.writeContinue();
    try {
      await store.put(ref, nodeReadableToWeb(req), size, {
        signal: aborter.signal,
      });
    } finally {
      req.off('close', onClose);
    }
    sendJson(res, 201, { ref, size });
  };

  const handleGet = async (req: IncomingMessage, res: ServerResponse, ref: string): Promise<void> => {
    const { size } = await store.head(ref);
    const headers: Record<string, string | number> = {
      'accept-ranges': 'bytes',
      'content-type': 'application/octet-stream',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    };
    let start = 0;
    let length = size;
    let status = 200;
    const rangeHeader = req.headers.range;
    if (rangeHeader !== undefined) {
      // Policy: our clients send one valid byte range; anything else is refused (416), never served whole.
      const range = parseRangeHeader(rangeHeader, size);
      if (range.kind !== 'partial') {
        sendError(res, {
          status: 416,
          code: 'ERR_RANGE_NOT_SATISFIABLE',
          message: `expected one byte range inside the blob's ${size} bytes (bytes=a-b, bytes=a- or bytes=-n)`,
          headers: { 'content-range': `bytes */${size}`, 'accept-ranges': 'bytes' },
        });
        return;
      }
      start = range.start;
      length = range.end - range.start + 1;
      status = 206;
      headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
    }
    headers['content-length'] = length;
    if (req.method === 'HEAD' || length === 0) {
      res.writeHead(status, headers);
      res.end();
      return;
    }
    const aborter = new AbortController();
    const body = await store.get(ref, { offset: start, length }, { signal: aborter.signal });
    res.writeHead(status, headers);
    try {
      await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>), res);
    } catch {
      // The client went away or the store failed mid-body: the response cannot be repaired, only ended.
      aborter.abort();
      res.destroy();
    }
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((error: unknown) => {
      const reply = replyForError(error);
      if (reply.status === 500 && process.env.HAPPY_MEDIA_DEBUG === '1') {
        process.stderr.write(`happy-media serve: ${req.method} failed: ${String(error)}\n`);
      }
      if (req.complete || req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') {
        sendError(res, reply);
      } else {
        refuseBody(res, reply);
      }
    });
  };
  const server = createServer(
    {
      requestTimeout: timeouts.requestTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs,
      // How often Node checks the two limits above (default 30 s would let them overrun by that much).
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(timeouts.headersTimeoutMs / 2))),
    },
    onRequest,
  );
  // An upload sent with `Expect: 100-continue` (HttpBlobStore sends it) gets its refusal (401, 403, 411,
  // 413…) before any body byte leaves the client, so no unread body can turn the answer into a TCP reset;
  // `100 Continue` goes out only when the body is about to be stored (handlePut).
  server.on('checkContinue', onRequest);
  server.maxConnections = timeouts.maxConnections;
  server.setTimeout(timeouts.idleTimeoutMs);
  server.on('timeout', (socket: Socket) => socket.destroy());
  server.on('clientError', (_error, socket: Socket) => {
    if (socket.writable && !socket.destroyed) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    }
    socket.destroy();
  });

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', (cause: NodeJS.ErrnoException) => reject(listenError(host, port, cause)));
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      resolvePromise();
    });
  });
  const address = server.address() as AddressInfo;
  hostPolicy.port = address.port;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostForUrl}:${address.port}`,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.close(() => resolvePromise());
        server.closeAllConnections();
      }),
  };
}

/** Answers 403; an upload's body is not read. */
function forbid(res: ServerResponse, reading: boolean, message: string): void {
  const reply = { status: 403, code: 'ERR_FORBIDDEN', message };
  if (reading) sendError(res, reply);
  else refuseBody(res, reply);
}

/** True for the all-interfaces addresses, where clients may use any of the machine's IPs. */
function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '0:0:0:0:0:0:0:0';
}

/** `allowedHosts` checked and lower-cased, plus the bound host when it is a specific name or address. */
function allowedHostNames(extra: readonly string[] | undefined, host: string): string[] {
  if (extra !== undefined && !Array.isArray(extra)) {
    throw new InvalidArgumentError('expected an array of host names for `allowedHosts`');
  }
  const names = (extra ?? []).map((name) => checkListenHost(String(name)).toLowerCase());
  if (!isWildcard(host)) names.push(host.toLowerCase());
  return names;
}

/** The connection limits, checked, with their defaults. */
function serverTimeouts(options: MediaServerOptions) {
  type LimitName =
    | 'headersTimeoutMs'
    | 'requestTimeoutMs'
    | 'keepAliveTimeoutMs'
    | 'idleTimeoutMs'
    | 'maxConnections';
  const limit = (name: LimitName, fallback: number) =>
    assertNonNegativeInteger(options[name] ?? fallback, name);
  const headersTimeoutMs = limit('headersTimeoutMs', DEFAULT_HEADERS_TIMEOUT_MS);
  const requestTimeoutMs = limit('requestTimeoutMs', DEFAULT_REQUEST_TIMEOUT_MS);
  if (headersTimeoutMs === 0 || (requestTimeoutMs !== 0 && requestTimeoutMs < headersTimeoutMs)) {
    throw new InvalidArgumentError(
      `expected 0 < headersTimeoutMs <= requestTimeoutMs (or requestTimeoutMs 0) but received ${headersTimeoutMs} and ${requestTimeoutMs}`,
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: limit('keepAliveTimeoutMs', DEFAULT_KEEP_ALIVE_TIMEOUT_MS),
    idleTimeoutMs: limit('idleTimeoutMs', DEFAULT_IDLE_TIMEOUT_MS),
    maxConnections: limit('maxConnections', DEFAULT_MAX_CONNECTIONS),
  };
}

/** A failed `listen`: a host that is not this machine's or cannot be resolved is a bad argument. */
function listenError(host: string, port: number, cause: NodeJS.ErrnoException): HappyMediaError {
  const where = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  if (cause.code === 'ENOTFOUND' || cause.code === 'EAI_AGAIN' || cause.code === 'EADDRNOTAVAIL') {
    return new InvalidArgumentError(
      `expected a local interface for \`host\` but ${where} cannot be listened on (${cause.code})`,
      { cause },
    );
  }
  return new StorageError(`could not listen on ${where} (${cause.code ?? 'error'})`, { cause });
}

/**
 * Answers before reading an upload body, then closes the connection: reading gigabytes only to throw
 * them away is what the limit exists to avoid, and the unread body must not be parsed as a next request.
 */
function refuseBody(res: ServerResponse, reply: Reply): void {
  const req = res.req;
  const socket = req.socket;
  if (res.headersSent) {
    socket.destroy();
    return;
  }
  res.shouldKeepAlive = false;
  sendError(res, { ...reply, headers: { ...reply.headers, connection: 'close' } });
  // Drain a little so the client can read the answer (closing on unread data sends a TCP reset that
  // may destroy the response in flight), then cut the connection.
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > REFUSED_BODY_DRAIN_BYTES) socket.destroy();
  });
  setTimeout(() => socket.destroy(), REFUSED_BODY_DRAIN_MS).unref();
  req.resume();
}
