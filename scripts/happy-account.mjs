#!/usr/bin/env node
// A throwaway account and session on a Happy server, for tests and the demo:
//   node scripts/happy-account.mjs URL [--env] [--tag TAG]
// makes a fresh Ed25519 key pair (a new key pair is a new account), signs 32 random bytes,
// POST /v1/auth {publicKey, challenge, signature} → token, then POST /v1/sessions {tag, metadata} →
// session. Prints {"url","token","sessionId"} as JSON, or with --env as shell exports
// (HAPPY_MEDIA_TOKEN, HAPPY_MEDIA_SESSION, HAPPY_MEDIA_HAPPY_SERVER_URL). The secret key is never
// printed or stored; the token is printed only to stdout (redirect it into a 0600 file).
import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';

/** Creates an account and a session on the Happy server at `url`; returns `{ url, token, sessionId }`. */
export async function createHappyAccount(
  url,
  { tag = `happy-media-${randomBytes(6).toString('hex')}` } = {},
) {
  const base = String(url).replace(/\/+$/, '');
  const keys = nacl.sign.keyPair();
  const challenge = new Uint8Array(randomBytes(32));
  const signature = nacl.sign.detached(challenge, keys.secretKey);
  const b64 = (bytes) => Buffer.from(bytes).toString('base64');
  const post = async (path, body, token) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  const auth = await post('/v1/auth', {
    publicKey: b64(keys.publicKey),
    challenge: b64(challenge),
    signature: b64(signature),
  });
  if (typeof auth.token !== 'string') throw new Error('POST /v1/auth returned no token');
  const created = await post('/v1/sessions', { tag, metadata: 'happy-media test session' }, auth.token);
  const sessionId = created?.session?.id;
  if (typeof sessionId !== 'string') throw new Error('POST /v1/sessions returned no session id');
  return { url: base, token: auth.token, sessionId };
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const args = process.argv.slice(2);
  const url = args.find((a) => !a.startsWith('--'));
  const tagAt = args.indexOf('--tag');
  if (!url) {
    process.stderr.write('usage: node scripts/happy-account.mjs URL [--env] [--tag TAG]\n');
    process.exit(2);
  }
  try {
    const account = await createHappyAccount(url, tagAt >= 0 ? { tag: args[tagAt + 1] } : {});
    if (args.includes('--env')) {
      process.stdout.write(
        `export HAPPY_MEDIA_HAPPY_SERVER_URL=${account.url}\nexport HAPPY_MEDIA_TOKEN=${account.token}\nexport HAPPY_MEDIA_SESSION=${account.sessionId}\n`,
      );
    } else {
      process.stdout.write(`${JSON.stringify(account)}\n`);
    }
  } catch (error) {
    process.stderr.write(`happy-account: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
