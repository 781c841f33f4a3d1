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
 * without a promise of its own). The same bytes either way.
 *
 * **The data-key bundle** (the session's `dataEncryptionKey` field) is that key boxed for the account's
 * content public key (the public-key box of `secretbox.ts` behind a version byte).
 *
 * @module
 */
import type { AsyncAesGcm, SyncAesGcm } from '../aes-gcm/aes-gcm.js';
import { nobleAesGcm } from '../aes-gcm/noble.js';
import { assertBytes, randomBytes } from '../bytes.js';
import { DecryptionError, FormatError, InternalError } from '../errors.js';
import { ownedBytes } from '../runtime/byte-allocator.js';
import { getRuntime } from '../runtime/runtime.js';
import {
  DATA_KEY_BUNDLE_BYTES,
  DATA_KEY_FORMAT_VERSION,
  DATA_KEY_NONCE_BYTES,
  DATA_KEY_OVERHEAD_BYTES,
  DATA_KEY_TAG_BYTES,
  KEY_BYTES,
} from './layout.js';
import { type EncryptOptions, randomNonce } from './nonce.js';
import { boxForPublicKey, openBoxForPublicKey, type PublicKeyBoxOptions } from './secretbox.js';

/** The AES-GCM of the synchronous API: the runtime's when it is synchronous, else the universal one. */
function syncAesGcm(): SyncAesGcm {
  const aes = getRuntime().aesGcm;
  return aes.mode === 'sync' ? aes : nobleAesGcm;
}

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
  return sealDataKeyRecord(plaintext, key, options, ownedBytes);
}

/**
 * {@link encryptDataKey} into an array from `alloc`, whose contents may be anything: every byte of the
 * record is written (version, nonce, ciphertext and tag, lengths checked). {@link sealRaw} passes scratch
 * arrays (the record only lives until it is base64-encoded).
 *
 * @internal
 */
export function sealDataKeyRecord(
  plaintext: Uint8Array,
  key: Uint8Array,
  options: EncryptOptions,
  alloc: (length: number) => Uint8Array,
): Uint8Array {
  assertBytes(plaintext, 'plaintext');
  assertBytes(key, 'key', KEY_BYTES);
  const nonce =
    options.nonce === undefined
      ? randomNonce(DATA_KEY_NONCE_BYTES)
      : assertBytes(options.nonce, 'nonce', DATA_KEY_NONCE_BYTES);
  const aes = syncAesGcm();
  const out = alloc(DATA_KEY_OVERHEAD_BYTES + plaintext.length);
  out[0] = DATA_KEY_FORMAT_VERSION;
  out.set(nonce, 1);
  const prepared = aes.importKey(key);
  if (aes.sealInto) aes.sealInto(prepared, nonce, plaintext, out, 1 + DATA_KEY_NONCE_BYTES);
  else writeSealed(aes.seal(prepared, nonce, plaintext), plaintext, out);
  return out;
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
  assertBytes(key, 'key', KEY_BYTES);
  assertDataKeyLayout(bytes, 'bytes');
  const aes = syncAesGcm();
  // The implementation's open returns exactly the verified plaintext or throws DecryptionError (the
  // built-in ones do), so nothing checks it again here: that would cost every open and catch nothing.
  return aes.open(
    aes.importKey(key),
    bytes.subarray(1, 1 + DATA_KEY_NONCE_BYTES),
    bytes.subarray(1 + DATA_KEY_NONCE_BYTES),
  );
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
  const aes = getRuntime().aesGcm;
  if (aes.mode === 'sync') return encryptDataKey(plaintext, key, options);
  return sealDataKeyRecordAsync(plaintext, key, options, ownedBytes, await prepareDataKey(aes, key));
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
  const aes = getRuntime().aesGcm;
  if (aes.mode === 'sync') return decryptDataKey(bytes, key);
  assertBytes(bytes, 'bytes');
  assertBytes(key, 'key', KEY_BYTES);
  assertDataKeyLayout(bytes, 'bytes');
  return openDataKeyRecordAsync(bytes, await prepareDataKey(aes, key));
}

/** A data key prepared for an asynchronous AES-GCM, once for one record or a whole batch of them. */
export interface PreparedDataKey {
  readonly aes: AsyncAesGcm;
  readonly key: unknown;
}

/**
 * Prepares `key` (checked: 32 bytes) for `aes`. From a private copy: the prepared key is used across awaits,
 * while the caller's array may change.
 *
 * @internal
 */
export async function prepareDataKey(aes: AsyncAesGcm, key: Uint8Array): Promise<PreparedDataKey> {
  assertBytes(key, 'key', KEY_BYTES);
  return { aes, key: await aes.importKey(key.slice()) };
}

/**
 * {@link sealDataKeyRecord} with a prepared key of an asynchronous AES-GCM.
 *
 * @internal
 */
export async function sealDataKeyRecordAsync(
  plaintext: Uint8Array,
  key: Uint8Array,
  options: EncryptOptions,
  alloc: (length: number) => Uint8Array,
  prepared: PreparedDataKey,
): Promise<Uint8Array> {
  assertBytes(plaintext, 'plaintext');
  assertBytes(key, 'key', KEY_BYTES);
  const nonce =
    options.nonce === undefined
      ? randomNonce(DATA_KEY_NONCE_BYTES)
      : assertBytes(options.nonce, 'nonce', DATA_KEY_NONCE_BYTES).slice();
  const sealed = await prepared.aes.seal(prepared.key, nonce, plaintext);
  const out = alloc(DATA_KEY_OVERHEAD_BYTES + plaintext.length);
  out[0] = DATA_KEY_FORMAT_VERSION;
  out.set(nonce, 1);
  writeSealed(sealed, plaintext, out);
  return out;
}

/**
 * Opens a dataKey record (its layout already checked) with a prepared key of an asynchronous AES-GCM.
 * Whatever the implementation throws on a bad tag is the one `DecryptionError`, and an output of the wrong
 * length is refused (wiped): an app's native module is not trusted to keep the contract.
 *
 * @internal
 */
export async function openDataKeyRecordAsync(
  bytes: Uint8Array,
  prepared: PreparedDataKey,
): Promise<Uint8Array> {
  const sealed = bytes.subarray(1 + DATA_KEY_NONCE_BYTES);
  let plain: Uint8Array;
  try {
    plain = await prepared.aes.open(prepared.key, bytes.subarray(1, 1 + DATA_KEY_NONCE_BYTES), sealed);
  } catch {
    throw new DecryptionError();
  }
  if (!(plain instanceof Uint8Array) || plain.length !== sealed.length - DATA_KEY_TAG_BYTES) {
    if (plain instanceof Uint8Array) plain.fill(0);
    throw new DecryptionError();
  }
  return plain;
}

/**
 * Copies a `seal` result into the record, refusing one of the wrong length: the record may be an
 * uninitialised scratch array, and a byte left unwritten would leak other bytes of the process.
 */
function writeSealed(sealed: Uint8Array, plaintext: Uint8Array, record: Uint8Array): void {
  if (sealed.length !== plaintext.length + DATA_KEY_TAG_BYTES) {
    throw new InternalError('the AES-GCM implementation returned an unexpected ciphertext length');
  }
  record.set(sealed, 1 + DATA_KEY_NONCE_BYTES);
}

/** Checks the version byte and minimum length of a dataKey record (same order as Happy: version first). */
export function assertDataKeyLayout(bytes: Uint8Array, name: string): void {
  if (bytes.length === 0) {
    throw new FormatError(`expected a dataKey record for \`${name}\` but received 0 bytes`);
  }
  if (bytes[0] !== DATA_KEY_FORMAT_VERSION) {
    throw new FormatError(
      `expected version byte 0 for \`${name}\` (dataKey layout) but received ${bytes[0]}; a newer happy-media may read it`,
      { code: 'ERR_UNSUPPORTED_VERSION' },
    );
  }
  if (bytes.length < DATA_KEY_OVERHEAD_BYTES) {
    throw new FormatError(
      `expected at least ${DATA_KEY_OVERHEAD_BYTES} bytes for \`${name}\` (dataKey layout: version 1 | nonce 12 | ciphertext | tag 16) but received ${bytes.length} bytes`,
    );
  }
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
