/**
 * Signing in to Happy's server as Happy's app and CLI do (`authChallenge` in both): the account secret is
 * the seed of an Ed25519 key pair; 32 random bytes signed by it go to `POST /v1/auth {publicKey,
 * challenge, signature}` (standard base64), which answers a bearer token. The server upserts the account
 * by the public key, so a new secret is a new account and the same secret is always the same account.
 *
 * @module
 */
import * as z from 'zod';
import { assertBytes, randomBytes, toBase64 } from '../bytes.js';
import { signDetached, signKeyPairFromSeed } from '../envelope/_nacl.js';
import { KEY_BYTES } from '../envelope/layout.js';
import { type HappyApi, parseAnswer } from './happy-api.js';

/** What `POST /v1/auth` takes. */
export interface SignInChallenge {
  /** The Ed25519 public key of the account (its identity on the server). */
  publicKey: Uint8Array;
  /** 32 random bytes. */
  challenge: Uint8Array;
  /** The Ed25519 signature of `challenge`. */
  signature: Uint8Array;
}

/**
 * A fresh signed challenge for the account secret (the signing key is wiped before returning).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless `secret` is 32 bytes.
 * @example
 * ```ts
 * const { publicKey, challenge, signature } = signInChallenge(secret);
 * ```
 */
export function signInChallenge(secret: Uint8Array): SignInChallenge {
  const pair = signKeyPairFromSeed(assertBytes(secret, 'secret', KEY_BYTES));
  const challenge = randomBytes(32);
  try {
    return { publicKey: pair.publicKey, challenge, signature: signDetached(challenge, pair.secretKey) };
  } finally {
    pair.secretKey.fill(0);
  }
}

/** A token the server hands out goes in a header: visible ASCII only (transport/bearer-token.ts). */
const TokenAnswer = z.object({ token: z.string().regex(/^[\x21-\x7e]+$/) });

/**
 * Signs in with the account secret and returns the bearer token.
 *
 * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` when the server does not verify the signature.
 * @throws {StorageError} `ERR_STORAGE` when the server cannot be reached or answers without a token (or
 *   with one that cannot be sent in a header).
 */
export async function requestToken(api: HappyApi, secret: Uint8Array, signal?: AbortSignal): Promise<string> {
  const { publicKey, challenge, signature } = signInChallenge(secret);
  const answer = await api.request({
    leg: 'sign-in',
    method: 'POST',
    path: '/v1/auth',
    body: { publicKey: toBase64(publicKey), challenge: toBase64(challenge), signature: toBase64(signature) },
    ...(signal ? { signal } : {}),
  });
  return parseAnswer('sign-in', TokenAnswer, answer, 'a token').token;
}
