/**
 * The session's data key: the dataKey record variant it encrypts, and the bundle that carries the key to
 * the account's other devices.
 *
 * ```
 * dataKey record   [ version 0x00 | nonce 12 | ciphertext n | tag 16 ]                 overhead 29, no AAD
 * data-key bundle  [ version 0x00 | ephemeral public key 32 | nonce 24 | tag 16 | data key 32 ]   105 bytes
 * ```
 *
 * **The dataKey variant** is AES-256-GCM under the session's own random 32-byte data key. The cipher is the
 * runtime's AES-GCM (`getRuntime().aesGcm`, the one blobs use). The synchronous functions use it when it is
 * synchronous (node:crypto, react-native-quick-crypto, noble) and the universal `nobleAesGcm` when it is
 * asynchronous (WebCrypto, expo-crypto); the `...Async` ones use it whatever its mode (a synchronous one
 * without a promise of its own). The same bytes either way: both are fronts of the one record engine
 * (record-cipher.ts).
 *
 * **The data-key bundle** (the session's `dataEncryptionKey` field) is that key boxed for the account's
 * content public key (the public-key box of `secretbox.ts` behind a version byte).
 *
 * @module
 */
import { assertBytes, randomBytes } from '../bytes.js';
import { FormatError } from '../errors.js';
import { ownedBytes } from '../runtime/byte-allocator.js';
import { getRuntime } from '../runtime/runtime.js';
import { DATA_KEY_BUNDLE_BYTES, DATA_KEY_FORMAT_VERSION, KEY_BYTES } from './layout.js';
import type { EncryptOptions } from './nonce.js';
import { dataKeyRecordCipher, syncAesGcm } from './record-cipher.js';
import { boxForPublicKey, openBoxForPublicKey, type PublicKeyBoxOptions } from './secretbox.js';

/**
 * Encrypts raw bytes in the dataKey layout.
 *
 * @param plaintext - the bytes to seal (Happy seals `UTF-8(JSON.stringify(value))`; see {@link encryptJson}).
 * @param key - the session's 32-byte data key.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `key` is not 32 bytes or `nonce` not 12.
 * @example
 * ```ts
 * const record = encryptDataKey(utf8('{"hello":"world"}'), sessionDataKey);
 * record[0]; // 0 (version)
 * ```
 */
export function encryptDataKey(
  plaintext: Uint8Array,
  key: Uint8Array,
  options: EncryptOptions = {},
): Uint8Array {
  assertBytes(plaintext, 'plaintext');
  return dataKeyRecordCipher(syncAesGcm(), key).seal(plaintext, options, ownedBytes);
}

/**
 * Decrypts a dataKey record. Returns the plaintext only if the whole record authenticates.
 *
 * @throws {FormatError} `ERR_UNSUPPORTED_VERSION` when the first byte is not 0; `ERR_FORMAT` when empty
 * or shorter than 29 bytes.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `key` is not 32 bytes.
 */
export function decryptDataKey(bytes: Uint8Array, key: Uint8Array): Uint8Array {
  assertBytes(bytes, 'bytes');
  return dataKeyRecordCipher(syncAesGcm(), key).open(bytes);
}

/**
 * {@link encryptDataKey} with the runtime's AES-GCM whatever its mode: an asynchronous one (expo-crypto in
 * an app, WebCrypto) seals natively; a synchronous one seals as {@link encryptDataKey} does. Same bytes.
 * Keep `plaintext` unchanged until the promise settled (an asynchronous cipher may read it late).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` (as a rejection) when `key` is not 32 bytes or
 *   `nonce` not 12.
 * @example
 * ```ts
 * const record = await encryptDataKeyAsync(utf8('{"hello":"world"}'), sessionDataKey);
 * ```
 */
export async function encryptDataKeyAsync(
  plaintext: Uint8Array,
  key: Uint8Array,
  options: EncryptOptions = {},
): Promise<Uint8Array> {
  assertBytes(plaintext, 'plaintext');
  return (await dataKeyRecordCipher(getRuntime().aesGcm, key)).seal(plaintext, options, ownedBytes);
}

/**
 * {@link decryptDataKey} with the runtime's AES-GCM whatever its mode (see {@link encryptDataKeyAsync}).
 * Keep `bytes` unchanged until the promise settled.
 *
 * @throws {FormatError} `ERR_UNSUPPORTED_VERSION` / `ERR_FORMAT` as {@link decryptDataKey}.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `key` is not 32 bytes.
 * @example
 * ```ts
 * const plaintext = await decryptDataKeyAsync(record, sessionDataKey);
 * ```
 */
export async function decryptDataKeyAsync(bytes: Uint8Array, key: Uint8Array): Promise<Uint8Array> {
  assertBytes(bytes, 'bytes');
  return (await dataKeyRecordCipher(getRuntime().aesGcm, key)).open(bytes);
}

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
