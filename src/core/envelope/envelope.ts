/**
 * A session's encrypted values: the key that says which variant they use, the JSON record of either
 * variant, and the outer envelope the relay server stores,
 * `{ "t": "encrypted", "c": "<standard base64 of a record>" }`.
 *
 * **The session key.** Happy has two kinds of session: old ones that only have the 32-byte account master
 * secret (records are NaCl secretbox, "legacy"), and new ones with their own random 32-byte data key
 * (records are AES-256-GCM with a version byte, "dataKey"). The key value says which, so a caller cannot
 * pair a key with the wrong variant.
 *
 * **JSON records.** Values go in and out of either variant the way Happy does it: the plaintext is
 * `UTF-8(JSON.stringify(value))`.
 *
 * **One engine.** Every function here, synchronous or `Async`, is a front of the record engine
 * (record-cipher.ts): it picks the key's cipher (the synchronous API's, or the runtime's whatever its mode,
 * prepared once for a batch) and converts the value to and from JSON and the envelope.
 *
 * @module
 */
import { assertBytes, describeValue, fromBase64Scratch, fromUtf8, toBase64 } from '../bytes.js';
import { FormatError, InvalidArgumentError, LimitError } from '../errors.js';
import { ownedBytes } from '../runtime/byte-allocator.js';
import { getRuntime } from '../runtime/runtime.js';
import { KEY_BYTES } from './layout.js';
import type { EncryptOptions } from './nonce.js';
import {
  type AsyncRecordCipher,
  dataKeyRecordCipher,
  legacyRecordCipher,
  type RecordAllocator,
  type RecordCipher,
  type SyncRecordCipher,
  syncAesGcm,
} from './record-cipher.js';

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

/**
 * Serialises `value` as Happy does, refusing what JSON cannot carry. The bytes are scratch (see
 * `runtime/byte-allocator.ts`): read them and drop them, never hand them to a caller.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for `undefined`, a function, a symbol, a BigInt or
 * a cycle.
 */
function jsonBytes(value: unknown, name = 'value'): Uint8Array {
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
 * The record cipher of `key` for the synchronous API: the runtime's AES-GCM when it is synchronous, else
 * the universal one (a legacy key: secretbox).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a malformed key.
 * @internal
 */
export function syncRecordCipher(key: SessionKey): SyncRecordCipher {
  const checked = assertSessionKey(key);
  return checked.variant === 'legacy'
    ? legacyRecordCipher(checked.secret)
    : dataKeyRecordCipher(syncAesGcm(), checked.key);
}

/**
 * The record cipher of `key` over the runtime's AES-GCM whatever its mode, prepared once for one record or
 * a batch (a legacy key: secretbox, synchronous).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` (as a rejection) for a malformed key.
 * @internal
 */
export async function runtimeRecordCipher(key: SessionKey): Promise<RecordCipher> {
  const checked = assertSessionKey(key);
  return checked.variant === 'legacy'
    ? legacyRecordCipher(checked.secret)
    : dataKeyRecordCipher(getRuntime().aesGcm, checked.key);
}

/**
 * Seals the JSON of `value` into a record with `cipher`, in an array from `alloc`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a nonce of the wrong length or a value JSON
 * cannot carry.
 * @internal
 */
export function sealJson(
  cipher: SyncRecordCipher,
  value: unknown,
  options: EncryptOptions,
  alloc: RecordAllocator,
): Uint8Array;
export function sealJson(
  cipher: RecordCipher,
  value: unknown,
  options: EncryptOptions,
  alloc: RecordAllocator,
): Uint8Array | Promise<Uint8Array>;
export function sealJson(
  cipher: RecordCipher,
  value: unknown,
  options: EncryptOptions,
  alloc: RecordAllocator,
): Uint8Array | Promise<Uint8Array> {
  return cipher.seal(jsonBytes(value), options, alloc);
}

/**
 * Opens a record with `cipher` and parses its JSON; an asynchronous cipher reports every failure as a
 * rejection.
 *
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 * @throws {FormatError} `ERR_FORMAT` for a malformed record or a plaintext that is not UTF-8 JSON;
 * `ERR_UNSUPPORTED_VERSION` for a dataKey record with an unknown version byte.
 * @internal
 */
export function openJson(cipher: SyncRecordCipher, record: Uint8Array): unknown;
export function openJson(cipher: RecordCipher, record: Uint8Array): unknown | Promise<unknown>;
export function openJson(cipher: RecordCipher, record: Uint8Array): unknown | Promise<unknown> {
  return cipher.mode === 'sync' ? parseJsonPlaintext(cipher.open(record)) : openJsonAsync(cipher, record);
}

async function openJsonAsync(cipher: AsyncRecordCipher, record: Uint8Array): Promise<unknown> {
  return parseJsonPlaintext(await cipher.open(record));
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
  return sealJson(syncRecordCipher(key), value, options, ownedBytes);
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
  return openJson(syncRecordCipher(key), bytes);
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

/** What the server stores and relays for every encrypted value. */
export type EncryptedEnvelope = { t: 'encrypted'; c: string };

/**
 * Checks that `value` is an envelope and returns `{ t, c }` (other fields, which Happy never writes, are
 * dropped). The base64 of `c` is checked when it is decoded, by {@link openRaw}.
 *
 * @throws {FormatError} `ERR_FORMAT` unless `value` is an object with `t: "encrypted"` and a string `c`.
 * @example
 * ```ts
 * const envelope = parseEnvelope(JSON.parse(text));
 * ```
 */
export function parseEnvelope(value: unknown): EncryptedEnvelope {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new FormatError(
      `expected an envelope object { "t": "encrypted", "c": "<base64>" } but received ${describeValue(value)}`,
    );
  }
  const { t, c } = value as { t?: unknown; c?: unknown };
  if (t !== 'encrypted') {
    throw new FormatError(
      `expected "encrypted" for \`t\` of the envelope but received ${typeof t === 'string' ? JSON.stringify(t.slice(0, 40)) : describeValue(t)}`,
    );
  }
  if (typeof c !== 'string') {
    throw new FormatError(
      `expected a base64 string for \`c\` of the envelope but received ${describeValue(c)}`,
    );
  }
  return { t: 'encrypted', c };
}

/** The envelope of a record. @internal */
export function envelopeOf(record: Uint8Array): EncryptedEnvelope {
  return { t: 'encrypted', c: toBase64(record) };
}

/**
 * The record inside an envelope; it may share Node's Buffer pool (no copy): open it, never return it.
 *
 * @throws {FormatError} `ERR_FORMAT` when not an envelope or `c` is not standard padded base64.
 * @internal
 */
export function recordOf(envelope: unknown): Uint8Array {
  return fromBase64Scratch(parseEnvelope(envelope).c, 'c');
}

/**
 * Encrypts any JSON value into an envelope (no schema check: Happy's envelopes carry more than v2
 * messages; use {@link sealMessage} for those).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a malformed key or nonce, or a value JSON
 * cannot carry.
 * @example
 * ```ts
 * const envelope = sealRaw({ role: 'session', content: message }, legacyKey(master));
 * ```
 */
export function sealRaw(value: unknown, key: SessionKey, options: EncryptOptions = {}): EncryptedEnvelope {
  // The record only lives until it is encoded: a scratch array (see runtime/byte-allocator.ts).
  return envelopeOf(sealJson(syncRecordCipher(key), value, options, getRuntime().alloc.scratch));
}

/**
 * Opens an envelope and returns the JSON value inside, unchecked.
 *
 * @throws {FormatError} `ERR_FORMAT` when not an envelope, `c` is not standard padded base64, the record
 * is malformed or its plaintext is not JSON; `ERR_UNSUPPORTED_VERSION` for an unknown version byte.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 */
export function openRaw(envelope: unknown, key: SessionKey): unknown {
  const record = recordOf(envelope);
  return openJson(syncRecordCipher(key), record);
}

/**
 * {@link sealRaw} with the runtime's AES-GCM whatever its mode: an asynchronous one (expo-crypto in an app,
 * WebCrypto) seals natively; with a synchronous one it is {@link sealRaw}. Same envelope either way.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` (as a rejection) for a malformed key or nonce, or a
 * value JSON cannot carry.
 * @example
 * ```ts
 * installRuntime({ aesGcm: expoCryptoAesGcm(ExpoCrypto) });
 * const envelope = await sealRawAsync(wrapForApp(message), dataKey(sessionDataKey));
 * ```
 */
export async function sealRawAsync(
  value: unknown,
  key: SessionKey,
  options: EncryptOptions = {},
): Promise<EncryptedEnvelope> {
  const cipher = await runtimeRecordCipher(key);
  return envelopeOf(await sealJson(cipher, value, options, getRuntime().alloc.scratch));
}

/**
 * {@link openRaw} with the runtime's AES-GCM whatever its mode (see {@link sealRawAsync}).
 *
 * @throws {FormatError} `ERR_FORMAT` / `ERR_UNSUPPORTED_VERSION` as {@link openRaw} (as rejections).
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 * @example
 * ```ts
 * const value = unwrapSessionContent(await openRawAsync(JSON.parse(record.content), dataKey(sessionDataKey)));
 * ```
 */
export async function openRawAsync(envelope: unknown, key: SessionKey): Promise<unknown> {
  const cipher = await runtimeRecordCipher(key);
  return openJson(cipher, recordOf(envelope));
}
