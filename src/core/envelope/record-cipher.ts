/**
 * The one engine behind every seal and open of a session's records: a {@link RecordCipher} for one key,
 * whose driver follows the calling convention of the cipher under it, as the blob's chunk cipher does
 * (src/core/blob/chunk-cipher.ts). Every front (`encryptDataKey`, `encryptJson`, `sealRaw`, `sealMessage`,
 * the batches, each with or without `Async`) only picks the cipher and converts values; the record's
 * rules live here once.
 *
 * ```
 * dataKey record   [ version 0x00 | nonce 12 | ciphertext n | tag 16 ]       AES-256-GCM, overhead 29, no AAD
 * legacy record    [ nonce 24 | tag 16 | ciphertext n ]                      NaCl secretbox, overhead 40
 * ```
 *
 * - synchronous (a legacy key, always: tweetnacl; a data key over node:crypto, react-native-quick-crypto or
 *   noble): results are returned, and a dataKey record is sealed straight into its array where the
 *   implementation can (`sealInto`);
 * - asynchronous (a data key over WebCrypto or expo-crypto): one promise per record, the key imported once
 *   for a whole batch (from a private copy: it is used across awaits while the caller's array may change),
 *   whatever the implementation throws on a bad tag is the one `DecryptionError`, and an output of the
 *   wrong length is refused (wiped): an app's native module is not trusted to keep the contract.
 *
 * @module
 */
import type { AesGcm, AsyncAesGcm, SyncAesGcm } from '../aes-gcm/aes-gcm.js';
import { nobleAesGcm } from '../aes-gcm/noble.js';
import { assertBytes } from '../bytes.js';
import { DecryptionError, FormatError, InternalError } from '../errors.js';
import { getRuntime } from '../runtime/runtime.js';
import {
  DATA_KEY_FORMAT_VERSION,
  DATA_KEY_NONCE_BYTES,
  DATA_KEY_OVERHEAD_BYTES,
  DATA_KEY_TAG_BYTES,
  KEY_BYTES,
} from './layout.js';
import { type EncryptOptions, randomNonce } from './nonce.js';
import { decryptLegacy, encryptLegacy } from './secretbox.js';

/** Where a sealed record's array comes from: every byte of it is written (`runtime/byte-allocator.ts`). */
export type RecordAllocator = (length: number) => Uint8Array;

/** Seals and opens the records of one key, returning its results. */
export interface SyncRecordCipher {
  /** Synchronous: results are returned, not promised. */
  readonly mode: 'sync';
  /**
   * Seals `plaintext` into a record in an array from `alloc` (a legacy record comes from tweetnacl,
   * which allocates its own).
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a nonce of the wrong length.
   */
  seal(plaintext: Uint8Array, options: EncryptOptions, alloc: RecordAllocator): Uint8Array;
  /**
   * Opens a record; returns the plaintext only when the whole record authenticates.
   *
   * @throws {FormatError} `ERR_FORMAT` / `ERR_UNSUPPORTED_VERSION` for a malformed record.
   * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
   */
  open(record: Uint8Array): Uint8Array;
}

/**
 * Seals and opens the records of one key, promising its results. Keep every input unchanged until its
 * promise settled (the implementation may read it late).
 */
export interface AsyncRecordCipher {
  /** Asynchronous: results are promised. */
  readonly mode: 'async';
  /** {@link SyncRecordCipher.seal}, promised. */
  seal(plaintext: Uint8Array, options: EncryptOptions, alloc: RecordAllocator): Promise<Uint8Array>;
  /** {@link SyncRecordCipher.open}, promised. */
  open(record: Uint8Array): Promise<Uint8Array>;
}

/** A record cipher of either calling convention (branch on `mode`). */
export type RecordCipher = SyncRecordCipher | AsyncRecordCipher;

/** The AES-GCM of the synchronous API: the runtime's when it is synchronous, else the universal one. */
export function syncAesGcm(): SyncAesGcm {
  const aes = getRuntime().aesGcm;
  return aes.mode === 'sync' ? aes : nobleAesGcm;
}

/**
 * The cipher of a legacy key (the 32-byte account master secret): NaCl secretbox, synchronous everywhere.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless `secret` is 32 bytes.
 */
export function legacyRecordCipher(secret: Uint8Array): SyncRecordCipher {
  assertBytes(secret, 'secret', KEY_BYTES);
  return {
    mode: 'sync',
    seal: (plaintext, options) => encryptLegacy(plaintext, secret, options),
    open: (record) => decryptLegacy(record, secret),
  };
}

/**
 * The cipher of a session's 32-byte data key over `aes`; the driver follows `aes.mode`, and an asynchronous
 * one has the key imported once here.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless `key` is 32 bytes (as a rejection for an
 *   asynchronous `aes`).
 */
export function dataKeyRecordCipher(aes: SyncAesGcm, key: Uint8Array): SyncRecordCipher;
export function dataKeyRecordCipher(
  aes: AesGcm,
  key: Uint8Array,
): SyncRecordCipher | Promise<AsyncRecordCipher>;
export function dataKeyRecordCipher(
  aes: AesGcm,
  key: Uint8Array,
): SyncRecordCipher | Promise<AsyncRecordCipher> {
  if (aes.mode === 'sync') return new SyncDataKeyCipher(aes, assertBytes(key, 'key', KEY_BYTES));
  return importAsync(aes, key);
}

async function importAsync(aes: AsyncAesGcm, key: Uint8Array): Promise<AsyncRecordCipher> {
  assertBytes(key, 'key', KEY_BYTES);
  return new AsyncDataKeyCipher(aes, await aes.importKey(key.slice()));
}

// ---------------------------------------------------------------------------------------------------------
// The dataKey record's rules, which both drivers follow.

/** The nonce of a new record: the caller's (test vectors only), checked, or a fresh random one. */
function recordNonce(options: EncryptOptions): Uint8Array {
  return options.nonce === undefined
    ? randomNonce(DATA_KEY_NONCE_BYTES)
    : assertBytes(options.nonce, 'nonce', DATA_KEY_NONCE_BYTES);
}

/** A record's array with its version byte and nonce written; the sealed bytes go after them. */
function recordHead(plaintext: Uint8Array, nonce: Uint8Array, alloc: RecordAllocator): Uint8Array {
  const out = alloc(DATA_KEY_OVERHEAD_BYTES + plaintext.length);
  out[0] = DATA_KEY_FORMAT_VERSION;
  out.set(nonce, 1);
  return out;
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

/** A dataKey record's nonce and sealed bytes (`ciphertext | tag`), its layout checked. */
function recordParts(record: Uint8Array): { nonce: Uint8Array; sealed: Uint8Array } {
  assertBytes(record, 'bytes');
  assertDataKeyLayout(record, 'bytes');
  return {
    nonce: record.subarray(1, 1 + DATA_KEY_NONCE_BYTES),
    sealed: record.subarray(1 + DATA_KEY_NONCE_BYTES),
  };
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

// ---------------------------------------------------------------------------------------------------------
// The drivers.

/** dataKey records over a {@link SyncAesGcm}. */
class SyncDataKeyCipher implements SyncRecordCipher {
  readonly mode = 'sync';
  readonly #aes: SyncAesGcm;
  readonly #key: unknown;

  constructor(aes: SyncAesGcm, key: Uint8Array) {
    this.#aes = aes;
    this.#key = aes.importKey(key);
  }

  seal(plaintext: Uint8Array, options: EncryptOptions, alloc: RecordAllocator): Uint8Array {
    assertBytes(plaintext, 'plaintext');
    const nonce = recordNonce(options);
    const out = recordHead(plaintext, nonce, alloc);
    const aes = this.#aes;
    if (aes.sealInto) aes.sealInto(this.#key, nonce, plaintext, out, 1 + DATA_KEY_NONCE_BYTES);
    else writeSealed(aes.seal(this.#key, nonce, plaintext), plaintext, out);
    return out;
  }

  open(record: Uint8Array): Uint8Array {
    const { nonce, sealed } = recordParts(record);
    // The implementation's open returns exactly the verified plaintext or throws DecryptionError (the
    // built-in ones do), so nothing checks it again here: that would cost every open and catch nothing.
    return this.#aes.open(this.#key, nonce, sealed);
  }
}

/** dataKey records over an {@link AsyncAesGcm}, with the key imported once. */
class AsyncDataKeyCipher implements AsyncRecordCipher {
  readonly mode = 'async';
  readonly #aes: AsyncAesGcm;
  readonly #key: unknown;

  constructor(aes: AsyncAesGcm, key: unknown) {
    this.#aes = aes;
    this.#key = key;
  }

  async seal(plaintext: Uint8Array, options: EncryptOptions, alloc: RecordAllocator): Promise<Uint8Array> {
    assertBytes(plaintext, 'plaintext');
    // A copy of a caller's nonce: the implementation may read it after the caller changed it.
    const nonce = options.nonce === undefined ? recordNonce(options) : recordNonce(options).slice();
    const sealed = await this.#aes.seal(this.#key, nonce, plaintext);
    const out = recordHead(plaintext, nonce, alloc);
    writeSealed(sealed, plaintext, out);
    return out;
  }

  async open(record: Uint8Array): Promise<Uint8Array> {
    const { nonce, sealed } = recordParts(record);
    let plain: Uint8Array;
    try {
      plain = await this.#aes.open(this.#key, nonce, sealed);
    } catch {
      throw new DecryptionError();
    }
    if (!(plain instanceof Uint8Array) || plain.length !== sealed.length - DATA_KEY_TAG_BYTES) {
      if (plain instanceof Uint8Array) plain.fill(0);
      throw new DecryptionError();
    }
    return plain;
  }
}
