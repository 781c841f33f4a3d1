/**
 * The outer envelope the relay server stores: `{ "t": "encrypted", "c": "<standard base64 of a record>" }`.
 *
 * @module
 */
import { describeValue, fromBase64Scratch, toBase64 } from '../bytes.js';
import { FormatError } from '../errors.js';
import { getRuntime } from '../runtime/runtime.js';
import type { PreparedDataKey } from './data-key.js';
import {
  decryptJson,
  decryptJsonAsync,
  prepareSessionKey,
  sealJsonRecord,
  sealJsonRecordAsync,
} from './json-codec.js';
import type { EncryptOptions } from './nonce.js';
import { assertSessionKey, type SessionKey } from './session-key.js';

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
