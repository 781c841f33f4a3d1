/**
 * The base URL of a server a client talks to, checked once in one way for every client.
 *
 * @module
 */
import { InvalidArgumentError } from '../errors.js';

/**
 * Parses `value` as an `http:`/`https:` URL without credentials (a token travels in a header, never in
 * the URL, where logs would keep it).
 *
 * @param name - the option's name, for the message (e.g. `baseUrl`).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for an unparsable, non-http(s) or credentialed URL.
 * @example
 * ```ts
 * parseHttpBaseUrl('http://127.0.0.1:8787/', 'baseUrl').href; // 'http://127.0.0.1:8787/'
 * ```
 */
export function parseHttpBaseUrl(value: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch (cause) {
    throw new InvalidArgumentError(`expected an http(s) URL for \`${name}\` but it could not be parsed`, {
      cause,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError(
      `expected an http(s) URL for \`${name}\` but received a ${url.protocol} URL`,
    );
  }
  if (url.username || url.password) {
    throw new InvalidArgumentError(
      `expected a URL without credentials for \`${name}\`; pass \`token\` instead`,
    );
  }
  return url;
}

/**
 * The scheme (lower case, without `:`) and the origin of an absolute URL, read from its text. React
 * Native's own `URL` parses absolute URLs but implements few getters (no `protocol` or `origin` without
 * Expo's or another polyfill), and a download must work without one.
 *
 * @returns `undefined` when `text` does not start with a scheme.
 * @example
 * ```ts
 * urlScheme('https://user@cdn.example:8443/a?b').origin; // 'https://cdn.example:8443'
 * urlScheme('file:///etc/passwd').scheme;                // 'file'
 * ```
 */
export function urlScheme(text: string): { scheme: string; origin: string } | undefined {
  const match = /^([a-z][a-z0-9+.-]*):(?:\/\/([^/?#]*))?/i.exec(text);
  if (match === null) return undefined;
  const scheme = match[1]!.toLowerCase();
  const authority = match[2];
  // The origin never carries credentials: messages show it.
  return {
    scheme,
    origin:
      authority === undefined ? `${scheme}:` : `${scheme}://${authority.replace(/^.*@/, '').toLowerCase()}`,
  };
}

/**
 * True for a name of this machine: `localhost`, an IPv4 address in 127.0.0.0/8, `::1`, or an IPv4-mapped
 * loopback address (`::ffff:127.x.y.z`, which `URL` writes `::ffff:7fxx:xxxx`); with or without the
 * brackets a URL puts around an IPv6 address.
 *
 * @example
 * ```ts
 * isLoopbackHost(new URL('http://[::1]:3005').hostname); // true
 * isLoopbackHost('192.168.1.5');                         // false
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (name === 'localhost') return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  if (v4) return v4.slice(1).every((part) => Number(part) <= 255) && v4[1] === '127';
  return name === '::1' || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(name);
}
