/**
 * `happy-media serve`: an HTTP server for encrypted blobs over any {@link BlobStore}.
 *
 * Routes (docs/storage.md has the full table):
 * - `PUT /v1/blobs/media/<id>`: streams the body into the store; `Content-Length` required (411),
 *   limited by `maxUploadBytes` (413); `201` when stored.
 * - `GET /v1/blobs/media/<id>`: the blob, `200`, or one byte range with `Range` (`206`/`416`).
 * - `HEAD /v1/blobs/media/<id>`: size and `Accept-Ranges` without a body.
 * - `DELETE /v1/blobs/media/<id>`: `204`, also when absent.
 * - `GET`/`PATCH`/`DELETE /v1/uploads/media/<id>?size=N`: a resumable upload (how much is held, append
 *   from an offset, give up); the blob is stored only once complete (media-server-upload-routes.ts).
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
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Server, Socket } from 'node:net';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { assertNonNegativeInteger } from '../../core/bytes.js';
import { type HappyMediaError, InvalidArgumentError, StorageError } from '../../core/errors.js';
import type { BlobStore } from '../../core/storage/blob-store.js';
import { checkedTimeoutMs } from '../../core/timeout.js';
import { checkBearerToken } from '../../core/transport/bearer-token.js';
import { stateDir } from '../fs/state-dir.js';
import type { HostPolicy } from '../http/allowed-host.js';
import { checkListenHost } from '../http/listen-host.js';
import { LocalBlobStore } from './local-store.js';
import {
  handleBlobDelete,
  handleBlobGet,
  handleBlobPut,
  refuseBlobMethod,
  type ServableStore,
} from './media-server-blob-routes.js';
import {
  type BearerCheck,
  blobRefOrRefusal,
  createBearerCheck,
  forbiddenReason,
} from './media-server-guards.js';
import { answerFailure, forbid, sendError, sendJson } from './media-server-replies.js';
import { handleUpload, type UploadRouteContext } from './media-server-upload-routes.js';

export { BLOB_ROUTE_PREFIX, UPLOAD_ROUTE_PREFIX } from './media-server-guards.js';

/** Path of the health route. */
export const HEALTH_ROUTE = '/v1/health';
/** Default upload limit: 4 GiB of ciphertext. */
export const DEFAULT_MAX_UPLOAD_BYTES = 4 * 1024 ** 3;
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
  /**
   * Any store with the `put` and `delete` capabilities to serve (takes precedence over `dir`): the
   * server's `PUT` names the ref, so a store that issues its own refs (Happy's server) cannot be served.
   */
  store?: BlobStore;
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to listen on (default `127.0.0.1`: loopback only). */
  host?: string;
  /** When set, every blob request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Largest accepted upload in bytes (default 4 GiB). */
  maxUploadBytes?: number;
  /** Idle time before a silent connection is closed, in ms (default 60 000). */
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
   * Private directory of the bytes held for resumable uploads in progress (`/v1/uploads/`); default
   * `<dir>/.uploads` for a directory, else `$XDG_STATE_HOME/happy-media/serve/uploads`.
   */
  uploadDir?: string;
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
  const settings = checkedSettings(options);
  // The port is filled in once listening (it may be 0 until then).
  const hostPolicy: HostPolicy = {
    port: settings.port,
    names: settings.allowedHosts,
    anyAddress: isWildcard(settings.host),
  };
  const handle = createRequestHandler(settings, createBearerCheck(settings.token), hostPolicy);
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((error: unknown) => answerFailure(req, res, error));
  };
  const server = createLimitedServer(settings.timeouts, onRequest);
  await listen(server, settings.host, settings.port);
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

/** The checked options of {@link startMediaServer}. */
interface ServerSettings extends UploadRouteContext {
  port: number;
  host: string;
  timeouts: ServerTimeouts;
  allowedHosts: string[];
  token: string | undefined;
}

function isServable(store: BlobStore): store is ServableStore {
  return typeof store.put === 'function' && typeof store.delete === 'function';
}

/** Checks the options in a fixed order (the first bad one is the one reported) and applies defaults. */
function checkedSettings(options: MediaServerOptions): ServerSettings {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('expected `{ dir }` or `{ store }` for `options` but received nothing');
  }
  const store = options.store ?? (options.dir !== undefined ? new LocalBlobStore(options.dir) : undefined);
  if (!store) throw new InvalidArgumentError('expected a `dir` or a `store` to serve but received neither');
  if (!isServable(store)) {
    throw new InvalidArgumentError(
      "expected a store that takes refs of the client's choosing (with put and delete) for `store`, but this one issues its own refs (e.g. Happy's server); serve a directory, an S3 store or another media server instead",
    );
  }
  const port = assertNonNegativeInteger(options.port ?? 0, 'port', 65535);
  const host = checkListenHost(options.host ?? '127.0.0.1');
  const timeouts = serverTimeouts(options);
  const allowedHosts = allowedHostNames(options.allowedHosts, host);
  const maxUploadBytes = assertNonNegativeInteger(
    options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
    'maxUploadBytes',
  );
  if (options.token !== undefined && typeof options.token !== 'string') {
    throw new InvalidArgumentError(
      'expected a non-empty string for `token` but received an empty or non-string value',
    );
  }
  // A token no client can send (a CR/LF, a space) would lock every client out: refuse it up front.
  if (options.token !== undefined) checkBearerToken(options.token, 'token');
  const uploadDir = resolve(
    options.uploadDir ??
      (store instanceof LocalBlobStore ? join(store.dir, '.uploads') : stateDir(join('serve', 'uploads'))),
  );
  return { store, port, host, timeouts, allowedHosts, maxUploadBytes, token: options.token, uploadDir };
}

/**
 * The request handler: health first (no token, any host, for probes), then the guards in their order
 * (Host, cross-site write, route, token, ref), then the blob handler of the method. A rejection is
 * answered by the caller ({@link answerFailure}).
 */
function createRequestHandler(
  context: UploadRouteContext,
  authorized: BearerCheck,
  hostPolicy: HostPolicy,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const rawPath = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const reading = req.method === 'GET' || req.method === 'HEAD';
    if (rawPath === HEALTH_ROUTE && reading) {
      sendJson(res, 200, { ok: true });
      return;
    }
    const forbidden = forbiddenReason(req, reading, hostPolicy);
    if (forbidden !== undefined) {
      forbid(res, reading, forbidden);
      return;
    }
    const target = blobRefOrRefusal(req, rawPath, authorized);
    if ('refusal' in target) {
      sendError(res, target.refusal);
      return;
    }
    if (target.route === 'uploads') return handleUpload(req, res, target.ref, context);
    switch (req.method) {
      case 'PUT':
        return handleBlobPut(req, res, target.ref, context);
      case 'GET':
      case 'HEAD':
        return handleBlobGet(req, res, target.ref, context);
      case 'DELETE':
        return handleBlobDelete(res, target.ref, context);
      default:
        refuseBlobMethod(res, req.method);
    }
  };
}

/** An HTTP server with the connection limits applied; slow, idle and malformed clients are cut. */
function createLimitedServer(
  timeouts: ServerTimeouts,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
): ReturnType<typeof createServer> {
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
  // `100 Continue` goes out only when the body is about to be stored (handleBlobPut).
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
  return server;
}

/** Listens on `host:port`; a failed listen rejects with {@link listenError}. */
function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise<void>((resolvePromise, reject) => {
    server.once('error', (cause: NodeJS.ErrnoException) => reject(listenError(host, port, cause)));
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      resolvePromise();
    });
  });
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

/** The connection limits of the server, checked. */
type ServerTimeouts = ReturnType<typeof serverTimeouts>;

/** The connection limits, checked, with their defaults. */
function serverTimeouts(options: MediaServerOptions) {
  type LimitName =
    | 'headersTimeoutMs'
    | 'requestTimeoutMs'
    | 'keepAliveTimeoutMs'
    | 'idleTimeoutMs'
    | 'maxConnections';
  const limit = (name: LimitName, fallback: number) =>
    name === 'maxConnections'
      ? assertNonNegativeInteger(options[name] ?? fallback, name)
      : checkedTimeoutMs(options[name] ?? fallback, name);
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
