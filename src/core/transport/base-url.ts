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
