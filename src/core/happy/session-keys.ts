/**
 * The keys of one Happy session, opened from what the server stores about it, as Happy's app opens them
 * (`Encryption.initializeSessions` in `happy-app/sources/sync/encryption/encryption.ts`):
 *
 * | session | records sealed with | attachments (blob key) |
 * |---|---|---|
 * | with a data-key bundle (`dataEncryptionKey`) | the data key (AES-256-GCM, "dataKey" variant), opened from the bundle with the content secret key | `deriveKey(dataKey, "Happy Blobs", ["session"])` |
 * | without one (legacy) | the account secret itself (secretbox, "legacy" variant) | `deriveKey(secret, "Happy Blobs", ["master"])` |
 *
 * @module
 */
import { describeValue, fromBase64 } from '../bytes.js';
import { openDataKeyBundle } from '../envelope/data-key.js';
import { dataKey, legacyKey, type SessionKey } from '../envelope/envelope.js';
import { type BoxKeyPair, contentKeyPair, masterBlobKey, sessionBlobKey } from '../envelope/key-tree.js';
import { FormatError, InvalidArgumentError } from '../errors.js';
import type { HappyCredentials } from './credentials.js';

/** The keys of one session: what seals and opens its records, and what encrypts its attachments. */
export interface HappySessionKeys {
  /** `datakey` for sessions with a data-key bundle, `legacy` for those without. */
  readonly variant: SessionKey['variant'];
  /** Seals and opens the session's records and metadata. */
  readonly key: SessionKey;
  /** The 32-byte key of the session's attachments (v1 and v2 blobs). */
  readonly blobKey: Uint8Array;
}

/** The keys an account's credentials give: the secret (if held) and the content key pair or its public half. */
export interface HappyAccountKeys {
  /** The account secret, when the credentials hold it. */
  readonly secret?: Uint8Array;
  /** The content key pair, when the credentials hold the secret. */
  readonly content?: BoxKeyPair;
  /** The content public key (always known): new sessions' data keys are boxed for it. */
  readonly contentPublicKey: Uint8Array;
}

/**
 * The account keys the credentials give (the content key pair is derived once here).
 *
 * @example
 * ```ts
 * const keys = accountKeys({ kind: 'secret', secret });
 * ```
 */
export function accountKeys(credentials: HappyCredentials): HappyAccountKeys {
  if (credentials.kind === 'secret') {
    const content = contentKeyPair(credentials.secret);
    return { secret: credentials.secret, content, contentPublicKey: content.publicKey };
  }
  return { contentPublicKey: credentials.contentPublicKey };
}

const PUBLIC_KEY_ONLY =
  "these credentials hold only the account's content public key (Happy CLI's access.key after linking by QR code), which creates sessions and sends into them but opens no other session; use the account secret (the backup key Happy's app shows under Settings → Account)";

/**
 * Opens a session's keys from its `dataEncryptionKey` (the base64 data-key bundle, or `null` for a
 * legacy session).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when the account keys lack the secret this
 *   session needs (see {@link HappyCredentials}).
 * @throws {FormatError} `ERR_FORMAT`/`ERR_UNSUPPORTED_VERSION` for a bundle that is not base64 of a
 *   105-byte version-0 bundle.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when the bundle is not boxed for this account.
 * @example
 * ```ts
 * const { key, blobKey } = openSessionKeys(session.dataEncryptionKey, accountKeys({ kind: 'secret', secret }));
 * ```
 */
export function openSessionKeys(
  dataEncryptionKey: string | null | undefined,
  account: HappyAccountKeys,
): HappySessionKeys {
  if (dataEncryptionKey === null || dataEncryptionKey === undefined) {
    if (!account.secret)
      throw new InvalidArgumentError(
        `a legacy session (no data key) opens only with the account secret: ${PUBLIC_KEY_ONLY}`,
      );
    return { variant: 'legacy', key: legacyKey(account.secret), blobKey: masterBlobKey(account.secret) };
  }
  if (typeof dataEncryptionKey !== 'string') {
    throw new FormatError(
      `expected the base64 data-key bundle or null for \`dataEncryptionKey\` but received ${describeValue(dataEncryptionKey)}`,
    );
  }
  if (!account.content)
    throw new InvalidArgumentError(
      `the session's data key is boxed for the content key pair: ${PUBLIC_KEY_ONLY}`,
    );
  const key = openDataKeyBundle(
    fromBase64(dataEncryptionKey, 'dataEncryptionKey'),
    account.content.secretKey,
  );
  return { variant: 'datakey', key: dataKey(key), blobKey: sessionBlobKey(key) };
}
