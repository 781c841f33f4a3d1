/**
 * The keys given with `--store happy+https://host --session ID`, checked against that session before
 * anything is uploaded. A blob key that is not the session's stores blobs nobody reading the session can
 * open, and the upload still succeeds: the server cannot tell. Where the session can tell, the CLI asks
 * it first:
 *
 * - with a session key (`--seal-key-file`) beside the blob key, the blob key must be the one that session
 *   key gives its attachments (`sessionBlobKey(dataKey)`, or `masterBlobKey(secret)` for a legacy session);
 * - with the account secret at hand (`HAPPY_MEDIA_SECRET_FILE` or the default secret file), the session is
 *   opened (its data-key bundle opened with the secret) and both keys must be its own;
 * - with neither, nothing can tell: a warning says so, and how to have it checked.
 *
 * @module
 */

import { timingSafeEqual } from 'node:crypto';
import { masterBlobKey, type SessionKey, sessionBlobKey } from '../envelope.js';
import { InvalidArgumentError } from '../errors.js';
import {
  type HappyClient,
  HappyMediaError,
  type HappySession,
  readHappyCredentialsFile,
} from '../node/index.js';
import { connectWith, credentialsOrUsage, secretFileSetting } from './happy-options.js';
import { UsageError } from './usage-error.js';

/** Whether two keys are the same bytes (compared in constant time). */
function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The keys an upload into a Happy session's attachments uses. */
export interface HappyStoreKeys {
  /** The blob key the media is encrypted with. */
  blobKey: Uint8Array;
  /** The session key messages are sealed with, when one is given. */
  sealKey?: SessionKey;
}

const SESSION_GIVES_KEYS =
  'or send with --happy (or --session) and the secret file, where the session gives its keys';

function sealKeyBytes(key: SessionKey): Uint8Array {
  return key.variant === 'datakey' ? key.key : key.secret;
}

/**
 * Checks `keys` against session `sessionId` on the server of `spec` (`happy+https://host`). Returns the
 * session when the account secret opened it (its keys are then the ones given), so the upload takes the
 * road `send --happy` takes: the session's attachments through the signed-in client.
 *
 * @throws {UsageError} `ERR_USAGE` when the session shows that a key is not its own.
 */
export async function checkHappyStoreKeys(
  spec: string,
  sessionId: string,
  keys: HappyStoreKeys,
  insecureHttp = false,
): Promise<{ client: HappyClient; session: HappySession } | undefined> {
  const { blobKey, sealKey } = keys;
  if (sealKey) {
    const given = sealKeyBytes(sealKey);
    const expected = sealKey.variant === 'datakey' ? sessionBlobKey(given) : masterBlobKey(given);
    if (!equalBytes(expected, blobKey)) {
      throw new UsageError(
        `the blob key is not the one the session key (--seal-key-file, ${sealKey.variant}) gives its attachments: blobs sent with it would open for no one reading the session; pass the blob key of that session, ${SESSION_GIVES_KEYS}`,
      );
    }
  }
  const secretFile = secretFileSetting({});
  if (!secretFile) {
    if (!sealKey) {
      process.stderr.write(
        `happy-media: warning: the blob key cannot be checked against session ${sessionId} without the account secret (set HAPPY_MEDIA_SECRET_FILE to have it checked before upload, ${SESSION_GIVES_KEYS})\n`,
      );
    }
    return undefined;
  }
  const credentials = await credentialsOrUsage(() =>
    readHappyCredentialsFile(secretFile.value, secretFile.source),
  );
  const client = await connectWith(spec.replace(/^happy\+/i, ''), credentials, insecureHttp);
  let session: HappySession;
  try {
    session = await client.openSession(sessionId);
  } catch (error) {
    if (!(error instanceof HappyMediaError)) throw error;
    // Not this account's session, or credentials that open none: the secret cannot tell.
    const why =
      error instanceof InvalidArgumentError
        ? `the credentials in ${secretFile.value} open no session`
        : `the account of ${secretFile.value} has no session ${sessionId}`;
    process.stderr.write(`happy-media: warning: the blob key could not be checked: ${why}\n`);
    return undefined;
  }
  if (!equalBytes(session.blobKey, blobKey)) {
    throw new UsageError(
      `the blob key is not session ${sessionId}'s (its data-key bundle, opened with the secret in ${secretFile.value}, gives another): blobs sent with it would open for no one reading the session; leave the key out and ${SESSION_GIVES_KEYS.replace(/^or /, '')}`,
    );
  }
  if (sealKey) {
    const own = session.key;
    const same = own.variant === sealKey.variant && equalBytes(sealKeyBytes(own), sealKeyBytes(sealKey));
    if (!same) {
      throw new UsageError(
        `the session key (--seal-key-file) is not session ${sessionId}'s: messages sealed with it would open for no one reading the session; ${SESSION_GIVES_KEYS.replace(/^or /, '')}`,
      );
    }
  }
  return { client, session };
}
