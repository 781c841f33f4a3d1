/**
 * Checking the interface a server is asked to listen on before anything is resolved: a value shaped like
 * an IP address must be one (`256.1.1.1` is refused at once, with no DNS lookup), and anything else must
 * be a syntactically valid host name. `startMediaServer` checks its `host` so; a front end checks its own
 * setting with it before starting anything.
 *
 * @module
 */
import { isIP } from 'node:net';
import { InvalidArgumentError } from '../../core/errors.js';

const HOST_NAME =
  /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * Returns the host to pass to `listen` (IPv6 brackets removed).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for an invalid IP address or host name.
 * @example
 * ```ts
 * checkListenHost('127.0.0.1'); // '127.0.0.1'
 * checkListenHost('[::1]');     // '::1'
 * checkListenHost('256.1.1.1'); // throws
 * ```
 */
export function checkListenHost(host: string): string {
  const bare = /^\[.*\]$/.test(host) ? host.slice(1, -1) : host;
  const ipShaped = bare.includes(':') || /^[\d.]+$/.test(bare);
  if (ipShaped ? isIP(bare) !== 0 : HOST_NAME.test(bare)) return bare;
  throw new InvalidArgumentError(
    `expected an IP address or host name for \`host\` but received ${JSON.stringify(host)}`,
  );
}
