/**
 * The request guards of the media server (`startMediaServer`), run in this order before any blob
 * handler: the `Host` check (DNS rebinding), the cross-site write check, the route, the bearer token,
 * the ref. The order is part of the behaviour: a foreign page learns nothing past the first refusal.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isMediaRef } from '../../core/protocol/refs.js';
import { type HostPolicy, isAllowedHost, isCrossSiteRequest } from '../http/allowed-host.js';
import type { Reply } from './media-server-replies.js';

/** URL path prefix of blob routes; the ref follows it. */
export const BLOB_ROUTE_PREFIX = '/v1/blobs/';

/** True when the request holds the bearer token, or when no token is required. */
export type BearerCheck = (req: IncomingMessage) => boolean;

/** The bearer-token check for `token` (none required when `undefined`). */
export function createBearerCheck(token: string | undefined): BearerCheck {
  if (token === undefined) return () => true;
  const expected = tokenDigest(token);
  return (req) => {
    const header = req.headers.authorization ?? '';
    // The scheme is case-insensitive (RFC 9110, section 11.1): `bearer`, `BEARER` and `Bearer` alike.
    const match = /^bearer +(.+)$/i.exec(header);
    // Compare digests of equal length in constant time, so timing says nothing about the token.
    return match !== null && timingSafeEqual(tokenDigest(match[1] ?? ''), expected);
  };
}

function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Why the request is forbidden (403), or `undefined`: a `Host` that does not name this server (DNS
 * rebinding), or a browser's cross-site write (`reading` is false for methods that change blobs).
 */
export function forbiddenReason(
  req: IncomingMessage,
  reading: boolean,
  hostPolicy: HostPolicy,
): string | undefined {
  if (!isAllowedHost(req.headers.host, hostPolicy)) {
    return 'this server answers only to its own host names (loopback, --host, --allow-host)';
  }
  if (!reading && isCrossSiteRequest(req.headers, hostPolicy)) {
    return 'a browser page of another site may not change blobs here';
  }
  return undefined;
}

/** URL path prefix of the resumable upload route; the ref follows it. */
export const UPLOAD_ROUTE_PREFIX = '/v1/uploads/';

/**
 * The ref named by `rawPath` and its route (a blob, or a resumable upload of one), or the refusal:
 * unknown route (404), missing or wrong token (401), invalid ref (400), checked in that order. The ref is
 * taken literally, so no path reaches outside the store.
 */
export function blobRefOrRefusal(
  req: IncomingMessage,
  rawPath: string,
  authorized: BearerCheck,
): { ref: string; route: 'blobs' | 'uploads' } | { refusal: Reply } {
  const route = rawPath.startsWith(BLOB_ROUTE_PREFIX)
    ? 'blobs'
    : rawPath.startsWith(UPLOAD_ROUTE_PREFIX)
      ? 'uploads'
      : undefined;
  if (route === undefined) {
    return {
      refusal: {
        status: 404,
        code: 'ERR_NOT_FOUND',
        message: 'unknown route; blobs live under /v1/blobs/media/<id>, uploads under /v1/uploads/media/<id>',
      },
    };
  }
  if (!authorized(req)) {
    return {
      refusal: {
        status: 401,
        code: 'ERR_UNAUTHORIZED',
        message: 'a valid bearer token is required (Authorization: Bearer <token>)',
        headers: { 'www-authenticate': 'Bearer' },
      },
    };
  }
  const ref = rawPath.slice((route === 'blobs' ? BLOB_ROUTE_PREFIX : UPLOAD_ROUTE_PREFIX).length);
  if (!isMediaRef(ref)) {
    return {
      refusal: {
        status: 400,
        code: 'ERR_INVALID_REF',
        message: `expected /v1/${route}/media/<id> with an id of 1 to 128 characters from A-Z a-z 0-9 _ -`,
      },
    };
  }
  return { ref, route };
}
