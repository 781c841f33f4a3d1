/**
 * Which `Host` (and `Origin`) a local HTTP server answers: the one check against DNS rebinding, shared by
 * the media server (`happy-media serve`) and the playback endpoint (`serveMedia`).
 *
 * DNS rebinding: a web page on `evil.example` re-points its own name at 127.0.0.1; the browser then
 * treats requests to the local server as same-origin with the page, but they still carry
 * `Host: evil.example:<port>`. Answering only to loopback names and addresses, to the name the server
 * was bound to, and to names configured explicitly, closes that door. A request whose `Host` is an IP
 * address cannot be rebound (no name to re-point), so a server bound to every interface also accepts IPs.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { isIP } from 'node:net';
import { isLoopbackHost } from '../../core/transport/base-url.js';

/** What a server accepts in `Host`. */
export interface HostPolicy {
  /** The port the server listens on; a `Host` without a port means 80. */
  port: number;
  /** Extra names (or addresses) accepted besides loopback, lower case. */
  names?: readonly string[];
  /** Accept any IP address (a server bound to 0.0.0.0 or ::); names still need to be listed. */
  anyAddress?: boolean;
}

/** Splits `name[:port]` / `[v6]:port` into a lower-case name (brackets removed) and a port. */
export function parseHostHeader(value: string): { name: string; port: number | undefined } | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(value);
  if (!match) return undefined;
  const name = (match[1] ?? match[2] ?? '').toLowerCase().replace(/\.$/, '');
  return { name, port: match[3] === undefined ? undefined : Number(match[3]) };
}

/** True when `host` (a `Host` header value) names this server under `policy`. */
export function isAllowedHost(host: string | undefined, policy: HostPolicy, defaultPort = 80): boolean {
  if (host === undefined) return false;
  const parsed = parseHostHeader(host);
  if (!parsed || (parsed.port ?? defaultPort) !== policy.port) return false;
  const { name } = parsed;
  return (
    isLoopbackHost(name) ||
    (policy.names?.includes(name) ?? false) ||
    (policy.anyAddress === true && isIP(name) !== 0)
  );
}

/**
 * True when a browser marked the request as coming from another site: `Sec-Fetch-Site` other than
 * `same-origin`/`none`, or an `Origin` that is not this server under `policy` (`null` included).
 * Non-browser clients send neither header and are not affected.
 */
export function isCrossSiteRequest(
  headers: { origin?: string | undefined; 'sec-fetch-site'?: string | string[] | undefined },
  policy: HostPolicy,
): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = headers.origin;
  if (origin === undefined) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return true;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return true;
  return !isAllowedHost(url.host, policy, url.protocol === 'https:' ? 443 : 80);
}
