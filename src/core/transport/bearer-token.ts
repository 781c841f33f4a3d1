/**
 * What a bearer token may be. It travels in an `Authorization: Bearer <token>` header, so a character
 * outside visible ASCII breaks the header: a CR or LF (a token file saved with Windows line endings,
 * pasted with a newline) made Node's HTTP client throw an untyped `ERR_INVALID_CHAR` (`send`:
 * `ERR_INTERNAL`) or `fetch` refuse the request, which `play` then retried as a network failure. So a
 * token is checked once, where it is given: visible ASCII (`!` to `~`), no spaces or control
 * characters.
 *
 * @module
 */
import { InvalidArgumentError } from '../errors.js';

/**
 * Checks that `token` can be sent as a bearer token and returns it.
 *
 * @param name - the option's name, for the message (`'token'`, `'--token-file'`). The token itself is
 *   never quoted.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for an empty token or one with a character
 *   outside visible ASCII (a space, a CR/LF, a control or non-ASCII character).
 * @example
 * ```ts
 * this.token = checkBearerToken(options.token, 'token');
 * ```
 */
export function checkBearerToken(token: string, name: string): string {
  if (token.length === 0) {
    throw new InvalidArgumentError(
      `expected a non-empty bearer token for \`${name}\` but received an empty one`,
    );
  }
  const bad = /[^\x21-\x7e]/.exec(token);
  if (bad) {
    const code = bad[0].charCodeAt(0);
    const what =
      code === 0x0d || code === 0x0a
        ? 'a line break (CR/LF)'
        : code === 0x20 || code === 0x09
          ? 'a space or tab'
          : `the character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
    throw new InvalidArgumentError(
      `expected a bearer token of visible ASCII characters for \`${name}\` but it contains ${what} at position ${bad.index}; save the token without it`,
    );
  }
  return token;
}
