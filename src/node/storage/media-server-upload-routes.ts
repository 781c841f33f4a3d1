/**
 * The media server's resumable upload route, `/v1/uploads/media/<id>?size=N` (the blob routes' guards
 * run first): a client that lost its connection (or its process) asks how much the server holds and
 * sends only the rest; the blob appears in the store only once all `N` bytes arrived, all or nothing.
 *
 * ```
 * GET    /v1/uploads/media/<id>?size=N           → 200 {"offset": K, "sha256": "<hex of the K bytes held>"}
 *                                                  (K = N, "complete": true, once the blob is stored)
 * PATCH  /v1/uploads/media/<id>?size=N&offset=K  body: the bytes from K, exact Content-Length
 *                                                → 200 {"offset": K + length}, or 201 {"ref", "size"} when
 *                                                  they complete the blob (then stored, and the held bytes gone);
 *                                                  409 {"offset": held} when K is not what the server holds
 * DELETE /v1/uploads/media/<id>?size=N           → 204: the held bytes dropped (an upload given up)
 * ```
 *
 * Held bytes live in a private directory of the server (0700; files 0600, `<id>.<N>.part`, so an upload
 * of another size never mixes with it). What arrives of a cut request is kept: the client checks it by
 * its SHA-256 against the bytes it makes again, and sends the rest. One request at a time per upload: a
 * new one takes over from a request still appending (its client has moved on: the old connection is cut).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { mediaRefId } from '../../core/storage/blob-store.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../fs/private-dir.js';
import { LocalBlobStore } from './local-store.js';
import type { BlobRouteContext } from './media-server-blob-routes.js';
import { refuseBody, sendError, sendJson, uploadTooLarge } from './media-server-replies.js';

/** What the upload route needs besides the blob routes' context: where held bytes live. */
export interface UploadRouteContext extends BlobRouteContext {
  /** Private directory of the bytes held for uploads in progress. */
  uploadDir: string;
}

/** Uploads with a request in progress, by file: the request, and when its handler is done. */
const busy = new Map<string, { req: IncomingMessage; done: Promise<void> }>();

/** How long a new request waits for the one it replaces to let go of the upload. */
const TAKE_OVER_MS = 5_000;

function queryNumber(req: IncomingMessage, name: string): number | undefined {
  const value = new URL(req.url ?? '/', 'http://server').searchParams.get(name);
  return value !== null && /^\d{1,16}$/.test(value) ? Number(value) : undefined;
}

/** Bytes held for `path`, 0 when none. */
async function heldBytes(path: string): Promise<number> {
  return (await stat(path).catch(() => undefined))?.size ?? 0;
}

/** The SHA-256 (hex) of the first `length` bytes of `path`. */
async function sha256Of(path: string, length: number): Promise<string> {
  const hash = createHash('sha256');
  if (length > 0) {
    for await (const piece of createReadStream(path, { start: 0, end: length - 1 }))
      hash.update(piece as Buffer);
  }
  return hash.digest('hex');
}

/**
 * Answers a request on the upload route for `ref` (already checked by the guards).
 */
export async function handleUpload(
  req: IncomingMessage,
  res: ServerResponse,
  ref: string,
  context: UploadRouteContext,
): Promise<void> {
  const size = queryNumber(req, 'size');
  const reading = req.method === 'GET' || req.method === 'DELETE';
  const refuse = reading ? sendError : refuseBody;
  if (size === undefined) {
    refuse(res, {
      status: 400,
      code: 'ERR_INVALID_ARGUMENT',
      message: 'expected ?size=N, the whole blob in bytes',
    });
    return;
  }
  if (size > context.maxUploadBytes) {
    refuse(res, uploadTooLarge(size, context.maxUploadBytes));
    return;
  }
  await mkdir(context.uploadDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const path = join(context.uploadDir, `${mediaRefId(ref)}.${size}.part`);
  if (req.method === 'DELETE') {
    await rm(path, { force: true });
    res.writeHead(204, { 'cache-control': 'no-store' });
    res.end();
    return;
  }
  if (req.method === 'GET') {
    const stored = await context.store.head(ref).catch(() => undefined);
    if (stored?.size === size) {
      sendJson(res, 200, { offset: size, complete: true });
      return;
    }
    const held = await heldBytes(path);
    sendJson(res, 200, { offset: held, sha256: await sha256Of(path, held) });
    return;
  }
  if (req.method !== 'PATCH') {
    sendError(res, {
      status: 405,
      code: 'ERR_METHOD_NOT_ALLOWED',
      message: `${req.method} is not allowed here; use GET, PATCH or DELETE`,
      headers: { allow: 'GET, PATCH, DELETE' },
    });
    return;
  }
  await append(req, res, ref, size, path, context);
}

/** `PATCH`: appends the body at `offset` (the bytes held), and stores the blob once complete. */
async function append(
  req: IncomingMessage,
  res: ServerResponse,
  ref: string,
  size: number,
  path: string,
  context: UploadRouteContext,
): Promise<void> {
  const offset = queryNumber(req, 'offset');
  const lengthHeader = req.headers['content-length'];
  if (
    offset === undefined ||
    req.headers['transfer-encoding'] !== undefined ||
    lengthHeader === undefined ||
    !/^\d{1,16}$/.test(lengthHeader)
  ) {
    refuseBody(res, {
      status: offset === undefined ? 400 : 411,
      code: offset === undefined ? 'ERR_INVALID_ARGUMENT' : 'ERR_LENGTH_REQUIRED',
      message: 'expected ?offset=K and an exact Content-Length (no chunked encoding)',
    });
    return;
  }
  const length = Number(lengthHeader);
  if (offset + length > size) {
    refuseBody(res, {
      status: 400,
      code: 'ERR_INVALID_ARGUMENT',
      message: `the bytes ${offset} to ${offset + length} go past the ${size}-byte blob`,
    });
    return;
  }
  // A request still appending is one its client gave up on (a mobile connection that died without a
  // word reaches the server as a socket that stays open): the newer request takes the upload over.
  const previous = busy.get(path);
  if (previous) {
    previous.req.destroy();
    await Promise.race([previous.done, new Promise((resolve) => setTimeout(resolve, TAKE_OVER_MS).unref())]);
    if (busy.has(path)) {
      refuseBody(res, {
        status: 409,
        code: 'ERR_CONFLICT',
        message: 'another request is appending to this upload',
      });
      return;
    }
  }
  let release = () => {};
  busy.set(path, {
    req,
    done: new Promise<void>((resolve) => {
      release = resolve;
    }),
  });
  try {
    const held = await heldBytes(path);
    if (held !== offset) {
      res.shouldKeepAlive = false;
      sendJson(res, 409, {
        offset: held,
        error: { code: 'ERR_CONFLICT', message: `the server holds ${held} bytes` },
      });
      req.resume();
      return;
    }
    if (/100-continue/i.test(req.headers.expect ?? '')) res.writeContinue();
    // Whatever arrives is kept, a cut request's too: the client checks it (its SHA-256) and goes on.
    const file = await open(path, 'a', PRIVATE_FILE_MODE);
    let written = 0;
    try {
      for await (const piece of req as AsyncIterable<Buffer>) {
        const room = length - written;
        if (room <= 0) break;
        const part = piece.length > room ? piece.subarray(0, room) : piece;
        await file.write(part);
        written += part.length;
      }
      await file.sync();
    } finally {
      await file.close();
    }
    if (written !== length) return; // the client went away: nothing to answer
    if (offset + length < size) {
      sendJson(res, 200, { offset: offset + length });
      return;
    }
    // Complete: into the store, all or nothing, then the held bytes go.
    // A local store takes the held file itself (a rename: every byte written once; a copy of a 100 MB
    // upload took about half a second more than a plain PUT); any other store, or one on another file
    // system, gets a copy.
    const { store } = context;
    if (!(store instanceof LocalBlobStore && (await store.adopt(ref, path)))) {
      await store.put(
        ref,
        Readable.toWeb(createReadStream(path)) as unknown as ReadableStream<Uint8Array>,
        size,
      );
      await rm(path, { force: true });
    }
    sendJson(res, 201, { ref, size });
  } finally {
    busy.delete(path);
    release();
  }
}
