/**
 * A throwaway account and session on a Happy server, made as Happy's app and CLI make theirs: a fresh
 * 32-byte account secret signs in (`POST /v1/auth`, a signed challenge), and the session is created as
 * Happy's CLI creates one (a random data key boxed for the account's content public key, metadata sealed
 * with it), so Happy's app, signed in with the same secret, opens it. For the demo, the tests and
 * `happy-media account create` and `sessions create` (the CLI's own commands) do the same for a user.
 *
 * @module
 */
import { hostname, platform } from 'node:os';
import { createAccountSecret } from '../../happy.js';
import { HappyClient, type HappySession } from '../../index.js';

/** What {@link createHappyAccount} made. */
export interface HappyAccount {
  /** The server's base URL, without a trailing slash. */
  url: string;
  /** The account secret (32 bytes): Happy's app signs in with it. A secret: never log it. */
  secret: Uint8Array;
  /** The new session's id. */
  sessionId: string;
  /** The signed-in client. */
  client: HappyClient;
  /** The new session, opened. */
  session: HappySession;
}

/**
 * Creates an account and a session on the Happy server at `url`.
 *
 * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` when the server refuses the sign-in.
 * @throws {StorageError} `ERR_STORAGE` when the server cannot be reached or answers something unexpected.
 * @example
 * ```ts
 * const { client, session } = await createHappyAccount('http://127.0.0.1:3005');
 * ```
 */
export async function createHappyAccount(
  url: string,
  options: { tag?: string; name?: string } = {},
): Promise<HappyAccount> {
  const secret = createAccountSecret();
  const client = await HappyClient.connect({ url, credentials: { kind: 'secret', secret } });
  const session = await client.createSession({
    metadata: { path: process.cwd(), host: hostname(), os: platform(), name: options.name ?? 'happy-media' },
    ...(options.tag === undefined ? {} : { tag: options.tag }),
  });
  return { url: client.url, secret, sessionId: session.id, client, session };
}
