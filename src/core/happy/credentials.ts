/**
 * What a Happy client signs in with, and what it can do with it.
 *
 * - **The account secret** (`kind: 'secret'`): everything. It signs in (`POST /v1/auth`), opens every
 *   session's data key (the content key pair derives from it), opens legacy sessions (their records are
 *   sealed with it) and makes new sessions.
 * - **The content public key and a token** (`kind: 'content-public-key'`): what Happy CLI's
 *   `~/.happy/access.key` holds when the CLI was linked to the app by QR code (`{"encryption":
 *   {"publicKey", "machineKey"}, "token"}`). The token signs requests; the public key boxes the data key
 *   of a session this client creates, so it can **create sessions and send into them**, and the app
 *   (which holds the secret) opens them. It **cannot open any other session**: a data key is boxed for
 *   the content key pair, and only its secret half opens it; legacy sessions need the secret itself.
 *
 * Text forms read by {@link parseHappyCredentials}: an account secret in any form Happy's app shows or
 * takes (see `account-secret.ts`), or the JSON of Happy CLI's `access.key` in either of its forms
 * (`{"secret", "token"}` or `{"encryption": {"publicKey", "machineKey"}, "token"}`), or the app's stored
 * credentials (`{"token", "secret"}`, secret in base64url).
 *
 * @module
 */
import { base64nopad } from '@scure/base';
import { describeValue } from '../bytes.js';
import { PUBLIC_KEY_BYTES } from '../envelope/layout.js';
import { FormatError } from '../errors.js';
import { checkBearerToken } from '../transport/bearer-token.js';
import { parseAccountSecret } from './account-secret.js';

/** Credentials of a Happy account; see the module's description for what each kind can do. */
export type HappyCredentials =
  | {
      kind: 'secret';
      /** The 32-byte account secret. Never log it. */
      secret: Uint8Array;
    }
  | {
      kind: 'content-public-key';
      /** The account's 32-byte content public key (X25519): boxes the data key of new sessions. */
      contentPublicKey: Uint8Array;
      /** A bearer token of the account on the server it came from. Never log it. */
      token: string;
    };

/**
 * The most text a credentials file can hold (64 KiB; Happy CLI's access.key is a few hundred bytes): the
 * bound to read credentials from a pipe with.
 */
export const MAX_CREDENTIALS_TEXT_LENGTH = 64 * 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodePublicKey(text: unknown): Uint8Array {
  const trimmed = typeof text === 'string' ? text.trim().replace(/=$/, '') : undefined;
  let bytes: Uint8Array | undefined;
  try {
    if (trimmed !== undefined) bytes = base64nopad.decode(trimmed);
  } catch {
    bytes = undefined;
  }
  if (bytes?.length !== PUBLIC_KEY_BYTES) {
    throw new FormatError(
      `expected base64 of the ${PUBLIC_KEY_BYTES}-byte content public key for \`encryption.publicKey\` of Happy CLI's access.key but received ${typeof text === 'string' ? `${text.length} characters that are not one` : describeValue(text)}`,
    );
  }
  return bytes;
}

/**
 * Reads credentials from text: an account secret (backup, base64url or base64 form) or the JSON of
 * Happy CLI's `access.key` / the app's stored credentials.
 *
 * With a secret, a token stored beside it is not kept: a client signs in with the secret, which works
 * on any server (a stored token is only good on the server that issued it).
 *
 * @throws {FormatError} `ERR_FORMAT` for text that is none of these (the message names the field and
 *   lengths, never a value).
 * @example
 * ```ts
 * const credentials = parseHappyCredentials(await readFile(`${homedir()}/.happy/access.key`, 'utf8'));
 * ```
 */
export function parseHappyCredentials(text: string): HappyCredentials {
  if (typeof text !== 'string') {
    throw new FormatError(`expected credentials as text but received ${describeValue(text)}`);
  }
  if (text.length > MAX_CREDENTIALS_TEXT_LENGTH) {
    throw new FormatError(
      `expected at most ${MAX_CREDENTIALS_TEXT_LENGTH} characters of credentials but received ${text.length}`,
    );
  }
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return { kind: 'secret', secret: parseAccountSecret(trimmed) };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    // The SyntaxError quotes the text, which holds a secret: not kept as the cause.
    throw new FormatError(
      'expected Happy CLI\'s access.key JSON ({"secret", "token"} or {"encryption", "token"}) but the text is not valid JSON',
    );
  }
  if (!isRecord(value)) {
    throw new FormatError(`expected a JSON object of credentials but received ${describeValue(value)}`);
  }
  if (typeof value.secret === 'string') {
    return { kind: 'secret', secret: parseAccountSecret(value.secret) };
  }
  if (isRecord(value.encryption)) {
    if (typeof value.token !== 'string' || value.token.trim() === '') {
      throw new FormatError(
        "expected a `token` beside `encryption` in Happy CLI's access.key (without the account secret, the token is what signs requests) but there is none",
      );
    }
    return {
      kind: 'content-public-key',
      contentPublicKey: decodePublicKey(value.encryption.publicKey),
      // The one check of a bearer token, here where it is read, before any request carries it.
      token: checkBearerToken(value.token.trim(), 'token'),
    };
  }
  throw new FormatError(
    "expected a `secret` (the account secret) or an `encryption.publicKey` and `token` (Happy CLI's access.key) in the credentials JSON but found neither",
  );
}
