/**
 * How the media server (`startMediaServer`) answers: JSON bodies, error replies, refusals that
 * do not read an upload's body, and the mapping from a store error to a status.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HappyMediaError } from '../../core/errors.js';

/** How much of a refused upload body is read and dropped before the connection is cut. */
const REFUSED_BODY_DRAIN_BYTES = 1024 * 1024;
/** How long a refused upload may keep its connection. */
const REFUSED_BODY_DRAIN_MS = 2000;

/** An error answer: status, stable `ERR_*` code, message for the client, extra headers. */
export interface Reply {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

/**
 * Sends `body` as JSON with `no-store`; once headers are out nothing sound can be sent, so the
 * response is destroyed instead.
 */
export function sendJson(
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

/** The refusal of an upload of `size` bytes over the server's `maxUploadBytes` (413). */
export function uploadTooLarge(size: number, maxUploadBytes: number): Reply {
  return {
    status: 413,
    code: 'ERR_LIMIT_EXCEEDED',
    message: `the upload is ${size} bytes but this server accepts at most ${maxUploadBytes}`,
  };
}

/** Sends `reply` as `{"error":{"code","message"}}`. */
export function sendError(res: ServerResponse, reply: Reply): void {
  sendJson(res, reply.status, { error: { code: reply.code, message: reply.message } }, reply.headers);
}

/** Maps a store error to an HTTP answer; internal details are not sent to the client. */
export function replyForError(error: unknown): Reply {
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

/**
 * Answers a handler's failure: the mapped error, and for an upload whose body was not fully read, a
 * refusal that closes the connection (the rest of the body must not be parsed as a next request).
 */
export function answerFailure(req: IncomingMessage, res: ServerResponse, error: unknown): void {
  const reply = replyForError(error);
  // Only with the debug switch: a 500's cause may name paths or store internals.
  if (reply.status === 500 && process.env.HAPPY_MEDIA_DEBUG === '1') {
    process.stderr.write(`happy-media serve: ${req.method} failed: ${String(error)}\n`);
  }
  if (req.complete || req.method === 'GET' || req.method === 'HEAD' || req.method === 'DELETE') {
    sendError(res, reply);
  } else {
    refuseBody(res, reply);
  }
}

/** Answers 403; an upload's body is not read. */
export function forbid(res: ServerResponse, reading: boolean, message: string): void {
  const reply = { status: 403, code: 'ERR_FORBIDDEN', message };
  if (reading) sendError(res, reply);
  else refuseBody(res, reply);
}

/**
 * Answers before reading an upload body, then closes the connection: reading gigabytes only to throw
 * them away is what the limit exists to avoid, and the unread body must not be parsed as a next request.
 */
export function refuseBody(res: ServerResponse, reply: Reply): void {
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
