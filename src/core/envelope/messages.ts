/**
 * Session Protocol v2 messages in and out of envelopes: {@link sealRaw}/{@link openRaw} plus the
 * protocol's schema, so that nothing invalid is sealed and nothing unchecked is returned; one message or
 * many. The wrappers Happy puts around them are Happy's (src/core/happy/session-wrapper.ts).
 *
 * **Many messages at once**: a relay or an app opening a whole transcript (thousands of envelopes) or
 * sealing a backlog. The key is checked once; every envelope is still opened and validated on its own (its
 * own nonce, tag and schema check), so a batch is exactly as strict as {@link openMessage} one by one.
 * Opening does not stop at a bad envelope: a transcript with one damaged or foreign message still shows
 * the other 9,999, and the caller sees which one failed and why.
 *
 * @module
 */

import { HappyMediaError, InvalidArgumentError, SchemaError } from '../errors.js';
import { assertSessionMessage, type ParseOptions, type SessionMessage } from '../protocol/index.js';
import {
  assertSessionKey,
  type EncryptedEnvelope,
  openJson,
  openRaw,
  openRawAsync,
  recordOf,
  runtimeRecordCipher,
  type SessionKey,
  sealRaw,
  sealRawAsync,
} from './envelope.js';
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

/** The outcome of opening one envelope of a batch. */
export type OpenedMessage =
  | { readonly ok: true; readonly message: SessionMessage }
  | { readonly ok: false; readonly error: HappyMediaError };

/**
 * Opens every envelope of `envelopes` with one key; returns one outcome per envelope, in order. An envelope
 * that is malformed, does not authenticate or is not a v2 message yields `{ ok: false, error }` (the same
 * error {@link openMessage} would throw); the others still open.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `key` is not a session key or `envelopes` is
 * not an array (before anything is opened).
 * @example
 * ```ts
 * const opened = openMessages(records.map((r) => JSON.parse(r.content)), dataKey(sessionDataKey));
 * const shown = opened.flatMap((o) => (o.ok ? [o.message] : []));
 * ```
 */
export function openMessages(
  envelopes: readonly unknown[],
  key: SessionKey,
  options: ParseOptions = {},
): OpenedMessage[] {
  const checked = assertSessionKey(key);
  if (!Array.isArray(envelopes)) {
    throw new InvalidArgumentError('expected an array of envelopes for `envelopes`');
  }
  const out: OpenedMessage[] = new Array(envelopes.length);
  for (let i = 0; i < envelopes.length; i++) {
    try {
      out[i] = { ok: true, message: openMessage(envelopes[i], checked, options) };
    } catch (error) {
      // Only our own errors are outcomes; anything else is a bug and propagates.
      if (!(error instanceof HappyMediaError)) throw error;
      out[i] = { ok: false, error };
    }
  }
  return out;
}

/**
 * Envelopes opened at once by {@link openMessagesAsync} over an asynchronous AES-GCM: each is one native
 * call, so a window of them is in flight before any is awaited (as a blob batch is), and memory stays
 * bounded for a transcript of any length.
 */
const OPEN_WINDOW = 64;

/**
 * {@link openMessages} with the runtime's AES-GCM whatever its mode: over an asynchronous one (expo-crypto in
 * an app, WebCrypto) the key is prepared once and up to 64 envelopes are opened at a time, in flight
 * together; over a synchronous one it is {@link openMessages}. The same outcomes, in order.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` (as a rejection) when `key` is not a session key or
 * `envelopes` is not an array (before anything is opened).
 * @example
 * ```ts
 * const opened = await openMessagesAsync(records.map((r) => JSON.parse(r.content)), dataKey(sessionDataKey));
 * ```
 */
export async function openMessagesAsync(
  envelopes: readonly unknown[],
  key: SessionKey,
  options: ParseOptions = {},
): Promise<OpenedMessage[]> {
  const checked = assertSessionKey(key);
  if (!Array.isArray(envelopes)) {
    throw new InvalidArgumentError('expected an array of envelopes for `envelopes`');
  }
  const cipher = await runtimeRecordCipher(checked);
  if (cipher.mode === 'sync') return openMessages(envelopes, checked, options);
  // Starts the native call at once; a malformed envelope is a rejection like a failed one.
  const openOne = async (envelope: unknown) => openJson(cipher, recordOf(envelope));
  const out: OpenedMessage[] = new Array(envelopes.length);
  for (let from = 0; from < envelopes.length; from += OPEN_WINDOW) {
    const to = Math.min(envelopes.length, from + OPEN_WINDOW);
    const opening: Promise<void>[] = [];
    for (let i = from; i < to; i++) {
      opening.push(
        openOne(envelopes[i])
          .then((value) => assertSessionMessage(value, options))
          .then(
            (message) => {
              out[i] = { ok: true, message };
            },
            (error: unknown) => {
              // Only our own errors are outcomes; anything else is a bug and propagates.
              if (!(error instanceof HappyMediaError)) throw error;
              out[i] = { ok: false, error };
            },
          ),
      );
    }
    await Promise.all(opening);
  }
  return out;
}

/**
 * Seals every message of `messages` with one key (each with its own random nonce), in order. All or
 * nothing: an invalid message is the writer's bug, so the first one throws and nothing is returned.
 *
 * @throws {SchemaError} `ERR_SCHEMA` when a message is not a valid v2 message (its index is in the message).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a malformed key or `messages` not an array.
 * @example
 * ```ts
 * const envelopes = sealMessages(backlog, dataKey(sessionDataKey));
 * ```
 */
export function sealMessages(
  messages: readonly SessionMessage[],
  key: SessionKey,
  options: EncryptOptions = {},
): EncryptedEnvelope[] {
  const checked = assertSessionKey(key);
  if (!Array.isArray(messages)) {
    throw new InvalidArgumentError('expected an array of messages for `messages`');
  }
  if (options.nonce !== undefined && messages.length > 1) {
    // A fixed nonce (test vectors) on several messages would reuse it: never.
    throw new InvalidArgumentError('expected no fixed `nonce` when sealing several messages');
  }
  const out: EncryptedEnvelope[] = new Array(messages.length);
  for (let i = 0; i < messages.length; i++) {
    out[i] = atMessageIndex(i, messages.length, () =>
      sealMessage(messages[i] as SessionMessage, checked, options),
    );
  }
  return out;
}

/**
 * Runs `work` for message `i` of `count` of a batch: a schema error names the message's index (the batch is
 * all or nothing, so the caller needs to know which message to fix).
 *
 * @internal
 */
export function atMessageIndex<T>(i: number, count: number, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof SchemaError) {
      throw new SchemaError(`message ${i} of ${count}: ${error.message}`, error.issues, { cause: error });
    }
    throw error;
  }
}
