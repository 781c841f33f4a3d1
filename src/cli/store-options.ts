/**
 * The store a CLI command reads or writes, from `--store` and the options that go with it: the bearer
 * token (`--token-file`, `HAPPY_MEDIA_TOKEN`, or `--token`) and, for Happy's own server
 * (`--store happy+https://host`), the session (`--session`, `HAPPY_MEDIA_SESSION`). The token is only
 * ever read from a file or the environment into memory: never logged, never put in a child's argv.
 *
 * @module
 */

import { defaultBlobDir, HappyMediaError, openStore } from '../node/index.js';
import type { BlobStore } from '../storage.js';
import { resolveToken, storeOf } from './commands/serve.js';
import { warnInsecureHttp } from './happy-options.js';
import { checkHappyStoreKeys, type HappyStoreKeys } from './happy-store-keys.js';
import { withHint } from './run-action.js';
import { UsageError } from './usage-error.js';

/** The store-related flags of `send` and `play`. */
export interface StoreFlags {
  store?: string;
  token?: string;
  tokenFile?: string;
  session?: string;
  insecureHttp?: boolean;
}

/** True when `spec` names Happy's own server (`happy+http://…`, `happy+https://…`). */
export function isHappyServerSpec(spec: string): boolean {
  return /^happy\+https?:\/\//i.test(spec);
}

/**
 * The flags that act on a store's failure: a token Happy's server refused comes from `HAPPY_MEDIA_TOKEN`
 * or `--token-file`; a blob over a server's upload limit goes to an S3 store or a media server without it
 * (a store whose cap it knows, Happy's server, takes v2 media in parts).
 */
export function storeErrorHint(spec: string, error: unknown): string | undefined {
  if (!(error instanceof HappyMediaError)) return undefined;
  if (error.code === 'ERR_UNAUTHORIZED' && isHappyServerSpec(spec)) {
    return 'check the token in HAPPY_MEDIA_TOKEN or --token-file, and that it is of this server';
  }
  if (error.code === 'ERR_LIMIT_EXCEEDED') {
    return 'send larger media to an S3 store (--store s3://bucket/prefix) or a media server (happy-media serve, then --store http://host:port)';
  }
  return undefined;
}

/**
 * Opens the store the flags name (default: `HAPPY_MEDIA_STORE`, else the local blob directory). For
 * Happy's server with `keys` (an upload), the keys are checked against the session first
 * (happy-store-keys.ts), and where the account secret opened the session, the store is that session's
 * attachments through the signed-in client, the store `send --happy` uploads to.
 *
 * @throws {UsageError} `ERR_USAGE` (exit 2) for a Happy server store without a token or a session, or
 *   with `--token` (never read from argv for Happy's server), an unreadable or malformed token, a
 *   `--store` the library refuses (`s3://` without a bucket, a directory that is a file), or keys the
 *   session shows are not its own.
 */
export async function openCliStore(
  flags: StoreFlags,
  keys?: HappyStoreKeys,
): Promise<{ store: BlobStore; spec: string }> {
  const spec = flags.store ?? (process.env.HAPPY_MEDIA_STORE || defaultBlobDir());
  if (isHappyServerSpec(spec) && flags.token !== undefined) {
    // The account's token opens every session of the account: argv (visible in ps) never carries it.
    throw new UsageError(
      "--token is not accepted for Happy's server (argv is visible to other users): set HAPPY_MEDIA_TOKEN or pass --token-file PATH",
    );
  }
  const token = await resolveToken(flags);
  if (isHappyServerSpec(spec)) {
    if (!token) {
      throw new UsageError(
        "Happy's server needs the account's token: set HAPPY_MEDIA_TOKEN or pass --token-file PATH",
      );
    }
    const sessionId = flags.session ?? (process.env.HAPPY_MEDIA_SESSION || undefined);
    if (!sessionId) {
      throw new UsageError(
        "Happy's server needs the session: pass --session ID (or set HAPPY_MEDIA_SESSION)",
      );
    }
    warnInsecureHttp(spec, flags.insecureHttp);
    const insecureHttp = flags.insecureHttp === true;
    let store: BlobStore;
    try {
      store = storeOf(
        () => openStore(spec, { token, sessionId, ...(insecureHttp ? { insecureHttp } : {}) }),
        '--store',
      );
    } catch (error) {
      throw withHint(
        error,
        /^happy\+http:/i.test(spec) ? 'pass --insecure-http to use plain http anyway' : undefined,
      );
    }
    // Where the account secret opened the session, its attachments are reached as `send --happy` reaches
    // them: one road into a session, whichever flags named it.
    const opened = keys ? await checkHappyStoreKeys(spec, sessionId, keys, insecureHttp) : undefined;
    return { store: opened ? opened.client.attachmentStore(opened.session) : store, spec };
  }
  if (flags.session !== undefined) {
    throw new UsageError(
      '--session goes with Happy: alone (with --happy URL or HAPPY_MEDIA_HAPPY_SERVER_URL and the secret file), or with a Happy server store (--store happy+https://host)',
    );
  }
  return { store: storeOf(() => openStore(spec, token === undefined ? {} : { token }), '--store'), spec };
}
