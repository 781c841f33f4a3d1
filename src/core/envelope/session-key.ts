/**
 * Which key a session encrypts with, and therefore which variant its records use.
 *
 * Happy has two kinds of session: old ones that only have the 32-byte account master secret (records are
 * NaCl secretbox, "legacy"), and new ones with their own random 32-byte data key (records are
 * AES-256-GCM with a version byte, "dataKey"). The key value says which, so a caller cannot pair a key
 * with the wrong variant.
 *
 * @module
 */
import { assertBytes, describeValue } from '../bytes.js';
import { InvalidArgumentError } from '../errors.js';
import { KEY_BYTES } from './layout.js';

/** The key of a session, tagged with the variant its records use. */
export type SessionKey = { variant: 'legacy'; secret: Uint8Array } | { variant: 'datakey'; key: Uint8Array };

/** The two record variants, by name. */
export type EnvelopeVariant = SessionKey['variant'];

/**
 * A legacy session key: the 32-byte account master secret (records are NaCl secretbox).
 *
 * The bytes are referenced, not copied.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless `secret` is 32 bytes.
 * @example
 * ```ts
 * const key = legacyKey(masterSecret);
 * ```
 */
export function legacyKey(secret: Uint8Array): SessionKey {
  return { variant: 'legacy', secret: assertBytes(secret, 'secret', KEY_BYTES) };
}

/**
 * A dataKey session key: the session's 32-byte data key (records are AES-256-GCM).
 *
 * The bytes are referenced, not copied.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless `key` is 32 bytes.
 * @example
 * ```ts
 * const key = dataKey(openDataKeyBundle(bundle, contentKeyPair(master).secretKey));
 * ```
 */
export function dataKey(key: Uint8Array): SessionKey {
  return { variant: 'datakey', key: assertBytes(key, 'key', KEY_BYTES) };
}

/**
 * Builds the session key for a variant given by name (as the CLI's `--variant` does).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for an unknown variant or a key that is not 32 bytes.
 */
export function sessionKey(variant: EnvelopeVariant, key: Uint8Array): SessionKey {
  if (variant === 'legacy') return legacyKey(key);
  if (variant === 'datakey') return dataKey(key);
  throw new InvalidArgumentError(
    `expected 'legacy' or 'datakey' for \`variant\` but received ${typeof variant === 'string' ? JSON.stringify(variant) : describeValue(variant)}`,
  );
}

/**
 * Checks a {@link SessionKey} received from a caller (it may come from untyped code) and returns it.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when it is not a well-formed session key.
 */
export function assertSessionKey(value: unknown, name = 'key'): SessionKey {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const candidate = value as { variant?: unknown; secret?: unknown; key?: unknown };
    if (candidate.variant === 'legacy') {
      assertBytes(candidate.secret, `${name}.secret`, KEY_BYTES);
      return value as SessionKey;
    }
    if (candidate.variant === 'datakey') {
      assertBytes(candidate.key, `${name}.key`, KEY_BYTES);
      return value as SessionKey;
    }
  }
  throw new InvalidArgumentError(
    `expected a SessionKey (from legacyKey() or dataKey()) for \`${name}\` but received ${describeValue(value)}`,
  );
}
