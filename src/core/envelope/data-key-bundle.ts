/**
 * The data-key bundle (the session's `dataEncryptionKey` field): the session's random data key, boxed
 * for the account's content public key.
 *
 * ```
 * [ version 0x00 | ephemeral public key 32 | nonce 24 | tag 16 | data key 32 ]     105 bytes
 * ```
 *
 * @module
 */
import { assertBytes, randomBytes } from '../bytes.js';
import { FormatError } from '../errors.js';
import { DATA_KEY_BUNDLE_BYTES, DATA_KEY_FORMAT_VERSION, KEY_BYTES } from './layout.js';
import { boxForPublicKey, openBoxForPublicKey, type PublicKeyBoxOptions } from './secretbox.js';

/**
 * A fresh random 32-byte session data key.
 *
 * @example
 * ```ts
 * const key = createDataKey();
 * const bundle = boxDataKey(key, contentKeyPair(master).publicKey);
 * ```
 */
export function createDataKey(): Uint8Array {
  return randomBytes(KEY_BYTES);
}

/**
 * Boxes a data key for the content public key.
 *
 * @returns the 105-byte bundle.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when a key or the nonce has the wrong length, or
 * `contentPublicKey` is a low-order X25519 point.
 */
export function boxDataKey(
  dataKey: Uint8Array,
  contentPublicKey: Uint8Array,
  options: PublicKeyBoxOptions = {},
): Uint8Array {
  assertBytes(dataKey, 'dataKey', KEY_BYTES);
  const sealed = boxForPublicKey(dataKey, contentPublicKey, options);
  const out = new Uint8Array(1 + sealed.length);
  out[0] = DATA_KEY_FORMAT_VERSION;
  out.set(sealed, 1);
  return out;
}

/**
 * Opens a data-key bundle with the content secret key and returns the 32-byte data key.
 *
 * @throws {FormatError} `ERR_UNSUPPORTED_VERSION` when the first byte is not 0; `ERR_FORMAT` when it is
 * not exactly 105 bytes.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key, any modification, or a low-order
 * or non-canonical ephemeral public key.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `contentSecretKey` is not 32 bytes.
 * @example
 * ```ts
 * const key = dataKey(openDataKeyBundle(bundle, contentKeyPair(master).secretKey));
 * ```
 */
export function openDataKeyBundle(bundle: Uint8Array, contentSecretKey: Uint8Array): Uint8Array {
  assertBytes(bundle, 'bundle');
  assertBytes(contentSecretKey, 'contentSecretKey', KEY_BYTES);
  if (bundle.length === 0) {
    throw new FormatError('expected a data-key bundle for `bundle` but received 0 bytes');
  }
  if (bundle[0] !== DATA_KEY_FORMAT_VERSION) {
    throw new FormatError(
      `expected version byte 0 for \`bundle\` (data-key bundle) but received ${bundle[0]}; a newer happy-media may read it`,
      { code: 'ERR_UNSUPPORTED_VERSION' },
    );
  }
  if (bundle.length !== DATA_KEY_BUNDLE_BYTES) {
    throw new FormatError(
      `expected exactly ${DATA_KEY_BUNDLE_BYTES} bytes for \`bundle\` (version 1 | ephemeral public key 32 | nonce 24 | tag 16 | data key 32) but received ${bundle.length} bytes`,
    );
  }
  return openBoxForPublicKey(bundle.subarray(1), contentSecretKey);
}
