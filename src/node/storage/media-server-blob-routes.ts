/**
 * The blob routes of the media server (`startMediaServer`), one handler per method. Each runs only
 * after the request guards (host, cross-site, route, token, ref) passed, with a valid `media/<id>` ref.
 * A handler that throws leaves the answer to the server's error path (`answerFailure`).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AbortedError } from '../../core/errors.js';
import type { BlobStore } from '../../core/storage/blob-store.js';
import { parseRangeHeader } from '../../core/transport/range-header.js';
import { refuseBody, sendError, sendJson, uploadTooLarge } from './media-server-replies.js';
import { nodeReadableToWeb } from './node-readable.js';

/** What the blob handlers need from the server: the store and the upload limit. */
/** A store the media server can serve: its `PUT` and `DELETE` name the ref, so it needs both capabilities. */
export type ServableStore = BlobStore & Required<Pick<BlobStore, 'put' | 'delete'>>;

export interface BlobRouteContext {
  store: ServableStore;
  maxUploadBytes: number;
}

/**
 * `PUT`: streams the body into the store and answers `201 {ref,size}`. Needs an exact
 * `Content-Length` (411) within `maxUploadBytes` (413); both refusals leave the body unread.
 */
export async function handleBlobPut(
  req: IncomingMessage,
  res: ServerResponse,
  ref: string,
  context: BlobRouteContext,
): Promise<void> {
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
  if (size > context.maxUploadBytes) {
    refuseBody(res, uploadTooLarge(size, context.maxUploadBytes));
    return;
  }
  // A client that goes away mid-upload aborts the put, which then leaves nothing behind.
  const aborter = new AbortController();
  const onClose = () => {
    if (!req.complete) aborter.abort(new AbortedError('the client closed the connection'));
  };
  req.on('close', onClose);
  // Only now, with every check passed, may an `Expect: 100-continue` client start sending the body.
  if (/100-continue/i.test(req.headers.expect ?? '')) res.writeContinue();
  try {
    await context.store.put(ref, nodeReadableToWeb(req), size, {
      signal: aborter.signal,
    });
  } finally {
    req.off('close', onClose);
  }
  sendJson(res, 201, { ref, size });
}

/**
 * `GET` and `HEAD`: the blob (`200`) or the one byte range asked for with `Range` (`206`; `416` for
 * anything else); `HEAD` and empty answers carry the headers only.
 */
export async function handleBlobGet(
  req: IncomingMessage,
  res: ServerResponse,
  ref: string,
  context: BlobRouteContext,
): Promise<void> {
  const { size } = await context.store.head(ref);
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
  const body = await context.store.get(ref, { offset: start, length }, { signal: aborter.signal });
  res.writeHead(status, headers);
  try {
    await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>), res);
  } catch {
    // The client went away or the store failed mid-body: the response cannot be repaired, only ended.
    aborter.abort();
    res.destroy();
  }
}

/** `DELETE`: removes the blob and answers `204`, also when it was absent (deleting is idempotent). */
export async function handleBlobDelete(
  res: ServerResponse,
  ref: string,
  context: BlobRouteContext,
): Promise<void> {
  await context.store.delete(ref);
  res.writeHead(204, { 'cache-control': 'no-store' });
  res.end();
}

/** Any other method: `405` with the `Allow` list. */
export function refuseBlobMethod(res: ServerResponse, method: string | undefined): void {
  sendError(res, {
    status: 405,
    code: 'ERR_METHOD_NOT_ALLOWED',
    message: `${method} is not allowed here; use GET, HEAD, PUT or DELETE`,
    headers: { allow: 'GET, HEAD, PUT, DELETE' },
  });
}
