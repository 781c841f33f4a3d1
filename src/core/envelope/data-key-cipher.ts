/**
 * The dataKey variant: AES-256-GCM under the session's own 32-byte data key.
 *
 * ```
 * [ version 0x00 | nonce 12 | ciphertext n | tag 16 ]     overhead 29, no AAD
 * ```
 *
 * The cipher is the runtime's AES-GCM (`getRuntime().aesGcm`, the one blobs use). These functions are
 * synchronous, so they use it when it is synchronous (node:crypto, react-native-quick-crypto, noble) and
 * the universal `nobleAesGcm` when it is asynchronous (WebCrypto, expo-crypto); the same bytes either way.
 *
 * @module
 */
import type { SyncAesGcm } from '../aes-gcm/aes-gcm.js';
import { nobleAesGcm } from '../aes-gcm/noble.js';
import { assertBytes } from '../bytes.js';
import { FormatError } from '../errors.js';
import { ownedBytes } from '../runtime/byte-allocator.js';
import { getRuntime } from '../runtime/runtime.js';
import {
  DATA_KEY_FORMAT_VERSION,
  DATA_KEY_NONCE_BYTES,
  DATA_KEY_OVERHEAD_BYTES,
  DATA_KEY_TAG_BYTES,
  KEY_BYTES,
} from './layout.js';
import type { EncryptOptions } from './legacy.js';
import { randomNonce } from './nonce-source.js';

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
  // built-in ones do); a wrapper checking it again here measured 1 % of a 1 KiB open in Node.
  return aes.open(
    aes.importKey(key),
    bytes.subarray(1, 1 + DATA_KEY_NONCE_BYTES),
    bytes.subarray(1 + DATA_KEY_NONCE_BYTES),
  );
}

/**
 * Copies a `seal` result into the record, refusing one of the wrong length: the record may be an
 * uninitialised scratch array, and a byte left unwritten would leak other bytes of the process.
 */
function writeSealed(sealed: Uint8Array, plaintext: Uint8Array, record: Uint8Array): void {
  if (sealed.length !== plaintext.length + DATA_KEY_TAG_BYTES) {
    throw new Error('the AES-GCM implementation returned an unexpected ciphertext length');
  }
  record.set(sealed, 1 + DATA_KEY_NONCE_BYTES);
}

/** Checks the version byte and minimum length of a dataKey record (same order as Happy: version first). */
function assertDataKeyLayout(bytes: Uint8Array, name: string): void {
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
