/**
 * A session's records on Happy's server, both ways.
 *
 * **Writing.** A v2 message is sealed as it is (Session Protocol v2 drops the `role: "session"`
 * wrapper); Happy's v1 `file` event (what an app without v2 opens) is wrapped as Happy's CLI writes session
 * events, `{ role: "session", content: <event>, meta: { sentFrom: "cli" } }`: the one wrapper both of
 * Happy's readers accept (the app's `typesRaw.ts` takes either wrapper, happy-wire's
 * `MessageContentSchema`, which the CLI reads with, takes only this one). Either is sealed with the
 * session's key in its variant (dataKey AES-256-GCM or legacy secretbox) and posted as the base64 of the
 * record, under a `localId` that is the message's own id, so posting the same message again (a retry
 * after a lost answer, or a rerun) finds the first copy instead of adding a second.
 *
 * **Reading.** Every record is opened with the session key and sorted into a v2 message, a legacy
 * record (anything in Happy's older shapes: `{ role, content }`), or an unreadable record (not
 * encrypted, does not authenticate, not JSON, a v2-shaped value that fails the schema) with its error;
 * `transcript.ts` then turns them into one v2 stream.
 *
 * @module
 */
import * as z from 'zod';
import { fromBase64Scratch, toBase64 } from '../bytes.js';
import {
  openJson,
  runtimeRecordCipher,
  type SessionKey,
  sealJson,
  syncRecordCipher,
} from '../envelope/envelope.js';
import { atMessageIndex } from '../envelope/messages.js';
import type { RecordCipher, SyncRecordCipher } from '../envelope/record-cipher.js';
import { FormatError, HappyMediaError } from '../errors.js';
import { assertSessionMessage, parseSessionMessage, type SessionMessage } from '../protocol/index.js';
import { assertWith } from '../protocol/schema-check.js';
import { getRuntime } from '../runtime/runtime.js';
import { type HappyFileEvent, HappyFileEventSchema } from './file-event.js';
import { wrapForCli } from './session-wrapper.js';

/** What can be appended to a session: a v2 message, or Happy's v1 `file` event (what an app without v2 opens). */
export type AppendableMessage = SessionMessage | HappyFileEvent;

/** One message sealed for `POST /v3/sessions/:sid/messages`. */
export interface SealedRecord {
  /** The idempotency key: the message's id. */
  localId: string;
  /** Standard base64 of the sealed record (what the server stores as `{ t: "encrypted", c }`). */
  content: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for Happy's v1 session events (`{ id, time, role, ev: { t, ... } }`), as opposed to v2 messages. */
export function isV1Event(message: unknown): message is HappyFileEvent {
  return isRecord(message) && isRecord(message.ev);
}

/**
 * Validates and seals one message for a session (see the module's description for the wrapper).
 *
 * @throws {SchemaError} `ERR_SCHEMA` when it is neither a valid v2 message nor a valid v1 `file` event.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a malformed key.
 * @example
 * ```ts
 * const { localId, content } = sealSessionRecord(message, session.key);
 * ```
 */
export function sealSessionRecord(message: AppendableMessage, key: SessionKey): SealedRecord {
  const cipher = syncRecordCipher(key);
  const { localId, value } = recordValue(message);
  return { localId, content: sealedContent(cipher, value) };
}

/**
 * {@link sealSessionRecord} for many messages with the runtime's AES-GCM whatever its mode: every message is
 * validated first (nothing is sealed for a batch with an invalid one; the error names its index), then
 * sealed with the key prepared once; over an asynchronous AES-GCM (expo-crypto in an app, WebCrypto) every
 * record is sealed at once, in flight together. The same records either way.
 *
 * @throws {SchemaError} `ERR_SCHEMA` (as a rejection) naming the first invalid message's index.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a malformed key.
 * @example
 * ```ts
 * const records = await sealSessionRecords(messages, session.key);
 * ```
 */
export async function sealSessionRecords(
  messages: readonly AppendableMessage[],
  key: SessionKey,
): Promise<SealedRecord[]> {
  const cipher = await runtimeRecordCipher(key);
  const values = messages.map((message, i) => atMessageIndex(i, messages.length, () => recordValue(message)));
  return Promise.all(
    values.map(async ({ localId, value }) => ({ localId, content: await sealedContent(cipher, value) })),
  );
}

/** The base64 record Happy's server keeps as a message's content (the `c` of its envelope). */
function sealedContent(cipher: SyncRecordCipher, value: unknown): string;
function sealedContent(cipher: RecordCipher, value: unknown): string | Promise<string>;
function sealedContent(cipher: RecordCipher, value: unknown): string | Promise<string> {
  // The record only lives until it is encoded: a scratch array (see runtime/byte-allocator.ts).
  const record = sealJson(cipher, value, {}, getRuntime().alloc.scratch);
  return record instanceof Promise ? record.then(toBase64) : toBase64(record);
}

/**
 * What a message is sealed as, validated (a v2 message strictly, as `sealMessage` does; a v1 event in the
 * wrapper Happy's CLI writes), with its `localId`: the one definition for both sealing paths.
 */
function recordValue(message: AppendableMessage): { localId: string; value: unknown } {
  if (isV1Event(message)) {
    const event = assertWith(HappyFileEventSchema, message, 'Happy file event');
    return { localId: event.id, value: wrapForCli(event) };
  }
  return { localId: message.id, value: assertSessionMessage(message, { mode: 'strict' }) };
}

/** A message record as `GET /v3/sessions/:sid/messages` returns it. */
export const ServerMessageSchema = z.object({
  id: z.string(),
  seq: z.number().int().nonnegative(),
  content: z.unknown(),
  localId: z.string().nullish(),
  createdAt: z.number(),
});

/** A message record as the server returns it. */
export type ServerMessage = z.infer<typeof ServerMessageSchema>;

/** Where a record sits in the session: the server's sequence number, record id, `localId`, time. */
export interface SessionRecordPosition {
  /** The server's sequence number in the session (1, 2, ...): pass the last one as `after` to resume. */
  readonly seq: number;
  /** The server's id of the record. */
  readonly recordId: string;
  /** The writer's idempotency key (`null` for records written without one). */
  readonly localId: string | null;
  /** When the server stored it (ms since the epoch). */
  readonly createdAt: number;
}

/** One record of a session, opened and sorted (before the legacy reader: see {@link HappySessionRecord}). */
export type OpenedSessionRecord = SessionRecordPosition &
  (
    | {
        /** A Session Protocol v2 message. */
        readonly kind: 'message';
        readonly message: SessionMessage;
      }
    | {
        /**
         * A record in one of Happy's older shapes (`{ role: "user" | "agent" | "session", content }`,
         * including v1 `file` events), opened.
         */
        readonly kind: 'legacy';
        readonly record: Readonly<Record<string, unknown>>;
      }
    | {
        /** A record that could not be opened or read; skipped, with the reason. */
        readonly kind: 'unreadable';
        readonly error: HappyMediaError;
      }
  );

/**
 * Opens one record of the session and sorts it. Never throws for a bad record: it becomes
 * `{ kind: 'unreadable', error }` with the error {@link openMessage} would have thrown.
 *
 * @example
 * ```ts
 * const record = openSessionRecord(serverMessage, session.key);
 * if (record.kind === 'message') show(record.message);
 * ```
 */
export function openSessionRecord(raw: ServerMessage, key: SessionKey): OpenedSessionRecord {
  const cipher = syncRecordCipher(key);
  let value: unknown;
  try {
    value = openJson(cipher, fromBase64Scratch(encryptedContent(raw), 'c'));
  } catch (error) {
    return unreadable(raw, error);
  }
  return sortRecord(raw, value);
}

/**
 * {@link openSessionRecord} for a page of records with the runtime's AES-GCM whatever its mode, the key
 * prepared once: over an asynchronous one (expo-crypto in an app, WebCrypto) every record is opened at
 * once, in flight together. The same outcomes, in order; never rejects for a bad record.
 *
 * @example
 * ```ts
 * for (const record of await openSessionRecords(page, session.key)) show(record);
 * ```
 */
export async function openSessionRecords(
  raws: readonly ServerMessage[],
  key: SessionKey,
): Promise<OpenedSessionRecord[]> {
  const cipher = await runtimeRecordCipher(key);
  return Promise.all(
    raws.map(async (raw) => {
      let value: unknown;
      try {
        value = await openJson(cipher, fromBase64Scratch(encryptedContent(raw), 'c'));
      } catch (error) {
        return unreadable(raw, error);
      }
      return sortRecord(raw, value);
    }),
  );
}

/** Where `raw` sits in the session. */
function positionOf(raw: ServerMessage): SessionRecordPosition {
  return { seq: raw.seq, recordId: raw.id, localId: raw.localId ?? null, createdAt: raw.createdAt };
}

/** The base64 record of an encrypted server record. @throws {FormatError} for any other shape. */
function encryptedContent(raw: ServerMessage): string {
  const content = raw.content;
  if (!isRecord(content) || content.t !== 'encrypted' || typeof content.c !== 'string') {
    throw new FormatError(
      'expected an encrypted record { "t": "encrypted", "c": "<base64>" } but the server holds another shape',
    );
  }
  return content.c;
}

/** A record that did not open: our own error is the outcome, anything else is a bug and propagates. */
function unreadable(raw: ServerMessage, error: unknown): OpenedSessionRecord {
  if (!(error instanceof HappyMediaError)) throw error;
  return { ...positionOf(raw), kind: 'unreadable', error };
}

/** An opened record's value sorted into a v2 message, a legacy record, or an unreadable one. */
function sortRecord(raw: ServerMessage, value: unknown): OpenedSessionRecord {
  const position = positionOf(raw);
  if (isRecord(value) && 'content' in value && typeof value.role === 'string') {
    return { ...position, kind: 'legacy', record: value };
  }
  const parsed = parseSessionMessage(value);
  if (parsed.success) return { ...position, kind: 'message', message: parsed.data };
  return { ...position, kind: 'unreadable', error: parsed.error };
}
