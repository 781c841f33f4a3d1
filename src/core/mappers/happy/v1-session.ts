/**
 * Happy's v1 session protocol (happy-wire `sessionProtocol.ts`: `{ id, time, role, turn?, subagent?,
 * ev: { t, … } }`) into v2, through the writer. v1 ran in dev builds and wrote attachments as `file`
 * events; both wrappers it travels in are unwrapped by the caller.
 *
 * v1 hid the Task call that spawned a subagent and marked the subagent's messages with `subagent` (a
 * cuid2) between `start` (with a title) and `stop`. v2 needs the spawning call as `parentId`, so a
 * subagent without a visible call gets one: a `Task` call titled with the subagent's title, started at
 * `start` (or its first message) and ended at `stop`. The subagent's id becomes its `agentId`.
 *
 * @module
 */
import { StorageError } from '../../errors.js';
import type { MediaDescription } from '../media.js';
import { placeWith } from '../place-with.js';
import type { Placement, SessionWriter } from '../session-writer.js';

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

const SERVER_REF = /^sessions\/([^/]+)\/attachments\/([A-Za-z0-9_-]{1,128})\.enc$/;
const MEDIA_REF = /^media\/[A-Za-z0-9_-]{1,128}$/;

/** A v1 attachment the v2 stream refers to: its v2 ref names a blob in Happy's v1 format (whole-file secretbox). */
export interface V1Blob {
  /** The v2 message's ref, `media/<uuid>`. */
  ref: string;
  /** The ref Happy's server knows it by (`sessions/<sid>/attachments/<uuid>.enc`), when the event gave that form. */
  serverRef?: string;
  /** Plaintext size. */
  size: number;
  mimeType?: string;
}

/** True when `value` looks like a v1 session envelope (`{ id, role, ev: { t } }`). */
export function isV1Envelope(value: unknown): value is Json {
  const v = record(value);
  return v !== undefined && typeof v.role === 'string' && typeof record(v.ev)?.t === 'string';
}

/** What a reader of one session's v1 events is told, and of which session they are. */
export interface V1SessionOptions {
  /** Told about every attachment whose blob is in Happy's v1 format. */
  onV1Blob?: (blob: V1Blob) => void;
  /**
   * The session the records are of: a `file` event naming another session's attachment
   * (`sessions/OTHER/attachments/…`) is then not read as this session's (`malformed-event`).
   */
  sessionId?: string;
  /** Told of each such event, with its `ERR_INVALID_REF`. */
  onInvalidRef?: (error: StorageError) => void;
}

/** Converts v1 envelopes into writer calls; one per stream (it remembers subagents). */
export class V1SessionReader {
  readonly #writer: SessionWriter;
  readonly #options: V1SessionOptions;
  /** v1 subagent id → key of its spawning call (visible, or one we started). */
  readonly #parents = new Map<string, string>();
  /** Spawning calls we started ourselves, by subagent id (ended at `stop`). */
  readonly #synthetic = new Map<string, string>();

  constructor(writer: SessionWriter, options: V1SessionOptions = {}) {
    this.#writer = writer;
    this.#options = options;
  }

  /** Writes one v1 envelope. `time` is the record's time, for envelopes without one. */
  read(envelope: Json, time?: number): void {
    const writer = this.#writer;
    const ev = record(envelope.ev)!;
    const role = envelope.role === 'user' ? 'user' : envelope.role === 'agent' ? 'agent' : undefined;
    if (role === undefined) {
      writer.skips.skip('malformed-event', 'a v1 event without role "user" or "agent"');
      return;
    }
    const base: Placement = {
      ...(nonEmpty(envelope.id) === undefined ? {} : { id: envelope.id as string }),
      ...(typeof envelope.time === 'number' ? { time: envelope.time } : time === undefined ? {} : { time }),
      ...(nonEmpty(envelope.turn) === undefined ? {} : { turn: envelope.turn as string }),
    };
    const subagent = nonEmpty(envelope.subagent);
    switch (ev.t) {
      case 'turn-start':
        writer.startTurn(base);
        return;
      case 'turn-end': {
        const status = ev.status === 'failed' || ev.status === 'cancelled' ? ev.status : 'completed';
        if (!writer.endTurn(status, base))
          writer.skips.skip('out-of-order', 'a v1 turn-end without an open turn');
        return;
      }
      case 'start':
        if (subagent !== undefined) this.#parentOf(subagent, nonEmpty(ev.title), base, true);
        else writer.skips.skip('malformed-event', 'a v1 subagent start without subagent');
        return;
      case 'stop': {
        const key = subagent === undefined ? undefined : this.#synthetic.get(subagent);
        if (key !== undefined) {
          this.#synthetic.delete(subagent!);
          writer.endCall(key, base);
        } else {
          writer.skips.skip('not-displayed', 'a v1 subagent stop');
        }
        return;
      }
      default:
        break;
    }
    const place: Placement =
      subagent === undefined
        ? base
        : placeWith(base, { parent: this.#parentOf(subagent, undefined, base), agentId: subagent });
    switch (ev.t) {
      case 'text':
        if (typeof ev.text !== 'string') writer.skips.skip('malformed-event', 'a v1 text without text');
        else if (role === 'user') writer.userText(ev.text, place);
        else writer.agentText(ev.text, ev.thinking === true ? placeWith(place, { thinking: true }) : place);
        return;
      case 'service':
        if (typeof ev.text === 'string') writer.service(ev.text, place);
        else writer.skips.skip('malformed-event', 'a v1 service event without text');
        return;
      case 'tool-call-start': {
        const call = nonEmpty(ev.call);
        if (call === undefined) {
          writer.skips.skip('malformed-event', 'a v1 tool-call-start without call');
          return;
        }
        const { sessionSubagent, ...args } = record(ev.args) ?? {};
        if (typeof sessionSubagent === 'string') this.#parents.set(sessionSubagent, call);
        writer.startCall(
          call,
          {
            toolName: typeof ev.name === 'string' ? ev.name : 'unknown',
            ...(typeof ev.title === 'string' ? { title: ev.title } : {}),
            ...(typeof ev.description === 'string' ? { description: ev.description } : {}),
            args,
          },
          place,
        );
        return;
      }
      case 'tool-call-end': {
        const call = nonEmpty(ev.call);
        if (call === undefined) writer.skips.skip('malformed-event', 'a v1 tool-call-end without call');
        else writer.endCall(call, place);
        return;
      }
      case 'file':
        this.#file(role, ev, place);
        return;
      default:
        writer.skips.skip('unknown-event', `v1 event "${String(ev.t).slice(0, 40)}"`);
    }
  }

  /**
   * The key of the call that spawned `subagent`, starting a Task call for it when none is visible (with
   * the `start` event's id when that is what asks).
   */
  #parentOf(subagent: string, title: string | undefined, place: Placement, ownId = false): string {
    const known = this.#parents.get(subagent);
    if (known !== undefined) return known;
    const key = `subagent-${subagent}`;
    const label = title ?? 'Subagent';
    this.#writer.startCall(
      key,
      { toolName: 'Task', title: label, description: '', args: {}, agentTitle: label },
      {
        ...(place.time === undefined ? {} : { time: place.time }),
        ...(place.turn === undefined ? {} : { turn: place.turn }),
        ...(ownId && place.id !== undefined ? { id: place.id } : {}),
      },
    );
    this.#parents.set(subagent, key);
    this.#synthetic.set(subagent, key);
    return key;
  }

  #file(role: 'user' | 'agent', ev: Json, place: Placement): void {
    const raw = nonEmpty(ev.ref);
    const serverMatch = raw === undefined ? null : SERVER_REF.exec(raw);
    const { sessionId, onInvalidRef } = this.#options;
    if (serverMatch && sessionId !== undefined && serverMatch[1] !== sessionId) {
      // The store maps `media/<uuid>` to this session's attachments: another session's is not one.
      this.#writer.skips.skip('malformed-event', "a v1 file event naming another session's attachment");
      onInvalidRef?.(
        new StorageError(
          `a v1 file event names an attachment of another session than ${sessionId}; it is not read as one of this session's`,
          { code: 'ERR_INVALID_REF' },
        ),
      );
      return;
    }
    const ref = serverMatch
      ? `media/${serverMatch[2]}`
      : raw !== undefined && MEDIA_REF.test(raw)
        ? raw
        : undefined;
    const size = ev.size;
    if (ref === undefined || typeof size !== 'number') {
      this.#writer.skips.skip('malformed-event', 'a v1 file event without a readable ref or size');
      return;
    }
    const mimeType = nonEmpty(ev.mimeType);
    const image = record(ev.image);
    const name = nonEmpty(ev.name) ?? 'attachment';
    const photo: MediaDescription | undefined =
      image !== undefined && typeof image.thumbhash === 'string'
        ? {
            type: 'photo',
            ref,
            thumbhash: image.thumbhash,
            width: image.width as number,
            height: image.height as number,
          }
        : undefined;
    const file: MediaDescription = {
      type: 'file',
      ref,
      name,
      size,
      mimeType: mimeType ?? 'application/octet-stream',
    };
    const written =
      (photo && this.#writer.mediaMessage(role, photo, place)) ??
      this.#writer.mediaMessage(role, file, place);
    if (written === undefined) {
      this.#writer.skips.skip('malformed-event', 'a v1 file event whose fields do not validate');
      return;
    }
    this.#options.onV1Blob?.({
      ref,
      ...(serverMatch ? { serverRef: raw! } : {}),
      size,
      ...(mimeType === undefined ? {} : { mimeType }),
    });
  }
}
