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
 * @module
 */
import { assertBytes, describeValue, fromBase64Scratch, fromUtf8, toBase64 } from '../bytes.js';
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
import { KEY_BYTES } from './layout.js';
import type { EncryptOptions } from './nonce.js';
import { decryptLegacy, encryptLegacy } from './secretbox.js';

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
 */
function sealJsonRecord(
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
  const record = sealJsonRecord(value, key, options, getRuntime().alloc.scratch);
  return { t: 'encrypted', c: toBase64(record) };
}

/**
 * Opens an envelope and returns the JSON value inside, unchecked.
 *
 * @throws {FormatError} `ERR_FORMAT` when not an envelope, `c` is not standard padded base64, the record
 * is malformed or its plaintext is not JSON; `ERR_UNSUPPORTED_VERSION` for an unknown version byte.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 */
export function openRaw(envelope: unknown, key: SessionKey): unknown {
  const { c } = parseEnvelope(envelope);
  // The record is only opened, never returned: it may share Node's Buffer pool (no copy).
  return decryptJson(fromBase64Scratch(c, 'c'), key);
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
  const checked = assertSessionKey(key);
  const prepared = await prepareSessionKey(checked);
  if (prepared === undefined) return sealRaw(value, checked, options);
  const record = await sealJsonRecordAsync(value, checked, options, getRuntime().alloc.scratch, prepared);
  return { t: 'encrypted', c: toBase64(record) };
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
  const checked = assertSessionKey(key);
  return openRawPrepared(envelope, checked, await prepareSessionKey(checked));
}

/**
 * {@link openRawAsync} with the key already prepared (`undefined`: the synchronous path), for a batch.
 *
 * @internal
 */
export async function openRawPrepared(
  envelope: unknown,
  key: SessionKey,
  prepared: PreparedDataKey | undefined,
): Promise<unknown> {
  if (prepared === undefined) return openRaw(envelope, key);
  const { c } = parseEnvelope(envelope);
  return decryptJsonAsync(fromBase64Scratch(c, 'c'), key, prepared);
}
