/**
 * A throwaway account and session on a Happy server, as Happy's CLI makes its account: an Ed25519 key
 * pair signs 32 random bytes, `POST /v1/auth {publicKey, challenge, signature}` (standard base64) returns
 * a bearer token, `POST /v1/sessions {tag, metadata}` a session. A new key pair is a new account. For the
 * demo, the tests and `scripts/happy-account.mjs`; the secret key never leaves this function.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import { StorageError } from '../../core/errors.js';

/** What {@link createHappyAccount} made. */
export interface HappyAccount {
  /** The server's base URL, without a trailing slash. */
  url: string;
  /** The account's bearer token (a secret: keep it out of logs and argv). */
  token: string;
  /** The new session's id. */
  sessionId: string;
}

/**
 * Creates an account and a session on the Happy server at `url`.
 *
 * @throws {StorageError} `ERR_STORAGE` when the server refuses or answers something unexpected.
 * @example
 * ```ts
 * const { token, sessionId } = await createHappyAccount('http://127.0.0.1:3005');
 * ```
 */
export async function createHappyAccount(url: string, options: { tag?: string } = {}): Promise<HappyAccount> {
  const base = url.replace(/\/+$/, '');
  const keys = nacl.sign.keyPair();
  const challenge = new Uint8Array(randomBytes(32));
  const signature = nacl.sign.detached(challenge, keys.secretKey);
  keys.secretKey.fill(0);
  const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  const post = async (path: string, body: object, token?: string): Promise<Record<string, unknown>> => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (!response.ok) {
      throw new StorageError(`POST ${path} on ${base} answered ${response.status}: ${text.slice(0, 200)}`);
    }
    return JSON.parse(text) as Record<string, unknown>;
  };
  const auth = await post('/v1/auth', {
    publicKey: b64(keys.publicKey),
    challenge: b64(challenge),
    signature: b64(signature),
  });
  if (typeof auth.token !== 'string') throw new StorageError(`POST /v1/auth on ${base} returned no token`);
  const tag = options.tag ?? `happy-media-${randomBytes(6).toString('hex')}`;
  const created = await post('/v1/sessions', { tag, metadata: 'happy-media session' }, auth.token);
  const sessionId = (created.session as { id?: unknown } | undefined)?.id;
  if (typeof sessionId !== 'string')
    throw new StorageError(`POST /v1/sessions on ${base} returned no session id`);
  return { url: base, token: auth.token, sessionId };
}
