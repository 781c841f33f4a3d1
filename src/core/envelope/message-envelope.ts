/**
 * Session Protocol v2 messages in and out of envelopes: {@link sealRaw}/{@link openRaw} plus the
 * protocol's schema, so that nothing invalid is sealed and nothing unchecked is returned.
 *
 * @module
 */
import { assertSessionMessage, type ParseOptions, type SessionMessage } from '../protocol/index.js';
import type { SessionKey } from './envelope.js';
import { type EncryptedEnvelope, openRaw, openRawAsync, sealRaw, sealRawAsync } from './envelope.js';
import type { EncryptOptions } from './nonce.js';

/**
 * Validates a v2 message strictly (exactly the protocol's fields: we are the writer) and seals it.
 *
 * @throws {SchemaError} `ERR_SCHEMA` with `issues` (paths) when `message` is not a valid v2 message.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a malformed key or nonce.
 * @example
 * ```ts
 * const envelope = sealMessage(
 *   { id: 'msg_1', time: Date.now(), role: 'agent', type: 'text', turn: 'turn_1', text: 'hi' },
 *   dataKey(sessionDataKey),
 * );
 * ```
 */
export function sealMessage(
  message: SessionMessage,
  key: SessionKey,
  options: EncryptOptions = {},
): EncryptedEnvelope {
  return sealRaw(assertSessionMessage(message, { mode: 'strict' }), key, options);
}

/**
 * Opens an envelope and validates the JSON inside as a v2 message (tolerant by default: fields a newer
 * writer added are dropped; pass `{ mode: 'strict' }` to reject them).
 *
 * @throws {FormatError} `ERR_FORMAT` when not an envelope, `c` is not base64, the record is malformed
 * or its plaintext is not JSON; `ERR_UNSUPPORTED_VERSION` for an unknown version byte.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 * @throws {SchemaError} `ERR_SCHEMA` with `issues` (paths) when the JSON is not a v2 message.
 * @example
 * ```ts
 * const message = openMessage(JSON.parse(record.content), dataKey(sessionDataKey));
 * if (message.type === 'text') show(message.text);
 * ```
 */
export function openMessage(envelope: unknown, key: SessionKey, options: ParseOptions = {}): SessionMessage {
  return assertSessionMessage(openRaw(envelope, key), options);
}

/**
 * {@link sealMessage} with the runtime's AES-GCM whatever its mode: an asynchronous one (expo-crypto in an
 * app, WebCrypto) seals natively; with a synchronous one it is {@link sealMessage}. Same envelope.
 *
 * @throws {SchemaError} `ERR_SCHEMA` (as a rejection) when `message` is not a valid v2 message.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a malformed key or nonce.
 * @example
 * ```ts
 * const envelope = await sealMessageAsync(textMessage({ role: 'user', text: 'hi' }), dataKey(sessionDataKey));
 * ```
 */
export async function sealMessageAsync(
  message: SessionMessage,
  key: SessionKey,
  options: EncryptOptions = {},
): Promise<EncryptedEnvelope> {
  return sealRawAsync(assertSessionMessage(message, { mode: 'strict' }), key, options);
}

/**
 * {@link openMessage} with the runtime's AES-GCM whatever its mode (see {@link sealMessageAsync}).
 *
 * @throws {FormatError} `ERR_FORMAT` / `ERR_UNSUPPORTED_VERSION` as {@link openMessage} (as rejections).
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 * @throws {SchemaError} `ERR_SCHEMA` when the JSON is not a v2 message.
 * @example
 * ```ts
 * const message = await openMessageAsync(JSON.parse(record.content), dataKey(sessionDataKey));
 * ```
 */
export async function openMessageAsync(
  envelope: unknown,
  key: SessionKey,
  options: ParseOptions = {},
): Promise<SessionMessage> {
  return assertSessionMessage(await openRawAsync(envelope, key), options);
}
