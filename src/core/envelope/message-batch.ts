/**
 * Many messages at once: a relay or an app opening a whole transcript (thousands of envelopes) or sealing
 * a backlog. The key is checked once; every envelope is still opened and validated on its own (its own
 * nonce, tag and schema check), so a batch is exactly as strict as {@link openMessage} one by one.
 *
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
  openRawPrepared,
  prepareSessionKey,
  type SessionKey,
} from './envelope.js';
import { openMessage, sealMessage } from './message-envelope.js';
import type { EncryptOptions } from './nonce.js';

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
  const prepared = await prepareSessionKey(checked);
  if (prepared === undefined) return openMessages(envelopes, checked, options);
  const out: OpenedMessage[] = new Array(envelopes.length);
  for (let from = 0; from < envelopes.length; from += OPEN_WINDOW) {
    const to = Math.min(envelopes.length, from + OPEN_WINDOW);
    const opening: Promise<void>[] = [];
    for (let i = from; i < to; i++) {
      opening.push(
        openRawPrepared(envelopes[i], checked, prepared)
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
    try {
      out[i] = sealMessage(messages[i] as SessionMessage, checked, options);
    } catch (error) {
      if (error instanceof SchemaError) {
        throw new SchemaError(`message ${i} of ${messages.length}: ${error.message}`, error.issues, {
          cause: error,
        });
      }
      throw error;
    }
  }
  return out;
}
