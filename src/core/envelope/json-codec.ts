/**
 * JSON values in and out of either variant, the way Happy does it: the plaintext is
 * `UTF-8(JSON.stringify(value))`.
 *
 * @module
 */
import { fromUtf8 } from '../bytes.js';
import { FormatError, InvalidArgumentError, LimitError } from '../errors.js';
import { ownedBytes } from '../runtime/byte-allocator.js';
import { getRuntime } from '../runtime/runtime.js';
import {
  assertDataKeyLayout,
  decryptDataKey,
  openDataKeyRecordAsync,
  type PreparedDataKey,
  prepareDataKey,
  sealDataKeyRecord,
  sealDataKeyRecordAsync,
} from './data-key.js';
import type { EncryptOptions } from './nonce.js';
import { decryptLegacy, encryptLegacy } from './secretbox.js';
import { assertSessionKey, type SessionKey } from './session-key.js';

/**
 * Serialises `value` as Happy does, refusing what JSON cannot carry. The bytes are scratch (see
 * `runtime/byte-allocator.ts`): read them and drop them, never hand them to a caller.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for `undefined`, a function, a symbol, a BigInt or
 * a cycle.
 */
export function jsonBytes(value: unknown, name = 'value'): Uint8Array {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    if (cause instanceof RangeError) {
      // Nested deeper than the serialiser's stack (JSON.parse reads such values; JSON.stringify cannot).
      throw new LimitError(
        `expected a value nested less deeply for \`${name}\`: it has more levels than JSON.stringify can follow`,
      );
    }
    // TypeError for BigInt and cycles; its message names no value, so keeping it is safe.
    throw new InvalidArgumentError(
      `expected a JSON-serialisable value for \`${name}\` but it could not be serialised`,
      {
        cause,
      },
    );
  }
  if (text === undefined) {
    throw new InvalidArgumentError(
      `expected a JSON-serialisable value for \`${name}\` but received ${typeof value}`,
    );
  }
  return getRuntime().alloc.utf8(text);
}

/**
 * Encrypts a JSON value with a session key, in the key's variant.
 *
 * @param options.nonce - fixed nonce for test vectors only (24 bytes for legacy, 12 for datakey).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a malformed key or nonce, or a value JSON
 * cannot carry.
 * @example
 * ```ts
 * const record = encryptJson({ hello: 'world' }, dataKey(sessionDataKey));
 * ```
 */
export function encryptJson(value: unknown, key: SessionKey, options: EncryptOptions = {}): Uint8Array {
  return sealJsonRecord(value, key, options, ownedBytes);
}

/**
 * {@link encryptJson} with the dataKey record in an array from `alloc` (contents may be anything; every
 * byte is written). {@link sealRaw} passes scratch arrays, as its record only lives until it is
 * base64-encoded. Legacy records come from tweetnacl, which allocates its own.
 *
 * @internal
 */
export function sealJsonRecord(
  value: unknown,
  key: SessionKey,
  options: EncryptOptions,
  alloc: (length: number) => Uint8Array,
): Uint8Array {
  const checked = assertSessionKey(key);
  const plaintext = jsonBytes(value);
  return checked.variant === 'legacy'
    ? encryptLegacy(plaintext, checked.secret, options)
    : sealDataKeyRecord(plaintext, checked.key, options, alloc);
}

/**
 * Decrypts a record made by {@link encryptJson} (or by Happy) and parses its JSON.
 *
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 * @throws {FormatError} `ERR_FORMAT` for a malformed record or a plaintext that is not UTF-8 JSON;
 * `ERR_UNSUPPORTED_VERSION` for a dataKey record with an unknown version byte.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a malformed key.
 */
export function decryptJson(bytes: Uint8Array, key: SessionKey): unknown {
  const checked = assertSessionKey(key);
  const plaintext =
    checked.variant === 'legacy' ? decryptLegacy(bytes, checked.secret) : decryptDataKey(bytes, checked.key);
  // Parsed here rather than through parseJsonPlaintext: that call cost 3-5 % of a 1 KiB open in Node
  // (callgrind instruction counts), this being the hot path of every synchronous open.
  const text = fromUtf8(plaintext, 'plaintext');
  try {
    return JSON.parse(text);
  } catch {
    throw notJson();
  }
}

/**
 * {@link sealJsonRecord} for an asynchronous AES-GCM, with the data key prepared for it (`prepared`,
 * for a dataKey key; a legacy key seals with tweetnacl, synchronously).
 *
 * @internal
 */
export async function sealJsonRecordAsync(
  value: unknown,
  key: SessionKey,
  options: EncryptOptions,
  alloc: (length: number) => Uint8Array,
  prepared: PreparedDataKey | undefined,
): Promise<Uint8Array> {
  const checked = assertSessionKey(key);
  if (checked.variant === 'legacy' || prepared === undefined)
    return sealJsonRecord(value, checked, options, alloc);
  return sealDataKeyRecordAsync(jsonBytes(value), checked.key, options, alloc, prepared);
}

/**
 * {@link decryptJson} for an asynchronous AES-GCM (see {@link sealJsonRecordAsync}).
 *
 * @internal
 */
export async function decryptJsonAsync(
  bytes: Uint8Array,
  key: SessionKey,
  prepared: PreparedDataKey | undefined,
): Promise<unknown> {
  const checked = assertSessionKey(key);
  if (checked.variant === 'legacy' || prepared === undefined) return decryptJson(bytes, checked);
  assertDataKeyLayout(bytes, 'bytes');
  return parseJsonPlaintext(await openDataKeyRecordAsync(bytes, prepared));
}

/**
 * The data key of `key` prepared for the runtime's AES-GCM when that is asynchronous (once, for one record
 * or a batch); `undefined` where the synchronous path applies: a synchronous AES-GCM, or a legacy key.
 *
 * @internal
 */
export async function prepareSessionKey(key: SessionKey): Promise<PreparedDataKey | undefined> {
  const aes = getRuntime().aesGcm;
  if (aes.mode === 'sync' || key.variant === 'legacy') return undefined;
  return prepareDataKey(aes, key.key);
}

/** The JSON value of an authenticated plaintext. @throws {FormatError} when it is not UTF-8 JSON. */
function parseJsonPlaintext(plaintext: Uint8Array): unknown {
  const text = fromUtf8(plaintext, 'plaintext');
  try {
    return JSON.parse(text);
  } catch {
    throw notJson();
  }
}

/** An authentic plaintext that is not JSON. The SyntaxError quotes the plaintext, so it is not the cause. */
function notJson(): FormatError {
  return new FormatError(
    'expected JSON inside the record but the authenticated plaintext is not valid JSON; it was not written by Happy or happy-media',
  );
}
