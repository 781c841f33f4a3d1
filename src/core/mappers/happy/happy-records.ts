/**
 * What Happy's server holds, into v2: the records of a session after decryption, in any of the
 * shapes Happy has written, so the app folds old and new transcripts with one `foldTranscript`.
 *
 * | record | becomes |
 * |---|---|
 * | a v2 message (bare, or in a `role: "session"` wrapper) | itself, through the writer (ids kept) |
 * | `{ role: 'user', content: { type: 'text', text } }` | the end of the open turn, then user `text` |
 * | `{ role: 'agent', content: { type: 'output', data } }` | `data` is a Claude Code line: the Claude mapper |
 * | `{ role: 'agent', content: { type: 'codex' \| 'acp', data } }` | the provider registered for that `legacyContentType` |
 * | `{ role: 'agent', content: { type: 'event', data } }` | `message`/`limit-reached`/`switch`: `service`; `ready`: the turn ends |
 * | `{ role: 'session', content: <v1 envelope> }` (CLI) or `{ …, content: { type: 'session', data } }` (app) | v1 conversion (`v1-session.ts`) |
 *
 * Each input may be the record itself, a decrypted server message `{ id, seq, content: <record>,
 * createdAt }` (the app's traces), or what `HappyClient.readMessages` yields (`{ kind, recordId,
 * createdAt, message | record | error }`). The server's `createdAt` is the time of events that carry
 * none; its id seeds the ids of what the record becomes (see `mapHappyRecords`).
 *
 * @module
 */

import { MESSAGE_TYPES } from '../../protocol/index.js';
import { claudeMapperProvider } from '../claude/claude-provider.js';
import type { EventContext, MapperProvider, ProviderMapper } from '../mapper-provider.js';
import type { SessionWriter } from '../session-writer.js';
import { isV1Envelope, type V1SessionOptions, V1SessionReader } from './v1-session.js';

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function isV2Message(value: Json): boolean {
  return (
    typeof value.type === 'string' &&
    (MESSAGE_TYPES as readonly string[]).includes(value.type) &&
    !('content' in value)
  );
}

/** Options of the Happy records handler. */
export interface HappyRecordsOptions extends V1SessionOptions {
  /** Finds the provider that reads legacy `content.type` records (`codex`, `acp`). */
  legacyProvider: (contentType: string) => MapperProvider | undefined;
  /** Told the id of each record before it is mapped (seeds stable ids). */
  onRecord?: (recordId: string | undefined) => void;
}

/** Where an input's record and its server metadata are. */
interface Unwrapped {
  kind: 'record' | 'message' | 'unreadable';
  value: Json | undefined;
  context: EventContext;
}

/** A stored record's time (its `createdAt`, else the caller's) and id, when they are of the right type. */
function recordContext(createdAt: unknown, id: unknown, context: EventContext): EventContext {
  const time = typeof createdAt === 'number' ? createdAt : context.time;
  return {
    ...(time === undefined ? {} : { time }),
    ...(typeof id === 'string' ? { recordId: id } : {}),
  };
}

function unwrap(input: Json, context: EventContext): Unwrapped {
  // HappyClient.readMessages: { kind, seq, recordId, localId, createdAt, message | record | error }.
  if (input.kind === 'message' || input.kind === 'legacy' || input.kind === 'unreadable') {
    const at = recordContext(input.createdAt, input.recordId, context);
    if (input.kind === 'unreadable') return { kind: 'unreadable', value: undefined, context: at };
    return {
      kind: input.kind === 'message' ? 'message' : 'record',
      value: record(input.kind === 'message' ? input.message : input.record),
      context: at,
    };
  }
  // A decrypted server message: { id, seq, localId, content: <record>, createdAt }.
  if (
    typeof input.role !== 'string' &&
    record(input.content) !== undefined &&
    ('createdAt' in input || 'seq' in input)
  ) {
    const at = recordContext(input.createdAt, input.id, context);
    const inner = record(input.content)!;
    return { kind: isV2Message(inner) ? 'message' : 'record', value: inner, context: at };
  }
  return { kind: isV2Message(input) ? 'message' : 'record', value: input, context };
}

class HappyRecords implements ProviderMapper {
  readonly #writer: SessionWriter;
  readonly #options: HappyRecordsOptions;
  readonly #v1: V1SessionReader;
  readonly #claude: ProviderMapper;
  readonly #legacy = new Map<string, ProviderMapper | undefined>();

  constructor(writer: SessionWriter, options: HappyRecordsOptions) {
    this.#writer = writer;
    // Records adopt v2 messages among the ones written here: a copy has to be told from a new one.
    writer.keepRecentIds();
    this.#options = options;
    this.#v1 = new V1SessionReader(writer, options);
    this.#claude = claudeMapperProvider.create(writer);
  }

  async push(event: unknown, context: EventContext): Promise<void> {
    const input = record(event);
    if (input === undefined) {
      this.#writer.skips.skip(
        'unknown-event',
        `a ${event === null ? 'null' : typeof event} instead of a record`,
      );
      return;
    }
    const { kind, value, context: at } = unwrap(input, context);
    this.#options.onRecord?.(at.recordId);
    if (kind === 'unreadable') {
      this.#writer.skips.skip('unreadable', 'a record that could not be opened');
      return;
    }
    if (value === undefined) {
      this.#writer.skips.skip('malformed-event', 'a record without content');
      return;
    }
    if (kind === 'message') {
      this.#writer.adopt(value);
      return;
    }
    await this.#record(value, at);
  }

  async end(): Promise<void> {
    await this.#claude.end?.();
    for (const handler of this.#legacy.values()) await handler?.end?.();
  }

  async #record(value: Json, context: EventContext): Promise<void> {
    const writer = this.#writer;
    const content = record(value.content);
    const time = context.time === undefined ? {} : { time: context.time };
    switch (value.role) {
      case 'user':
        if (content?.type === 'text' && typeof content.text === 'string') {
          writer.endTurn('completed', time);
          writer.userText(content.text, time);
        } else {
          writer.skips.skip('unknown-event', `a user record of type "${String(content?.type).slice(0, 40)}"`);
        }
        return;
      case 'session': {
        const inner = content?.type === 'session' && 'data' in content ? record(content.data) : content;
        if (inner !== undefined && isV1Envelope(inner)) this.#v1.read(inner, context.time);
        else if (inner !== undefined && isV2Message(inner)) writer.adopt(inner);
        else writer.skips.skip('unknown-event', 'a session record of an unknown shape');
        return;
      }
      case 'agent':
        break;
      default:
        writer.skips.skip('unknown-event', `a record with role "${String(value.role).slice(0, 40)}"`);
        return;
    }
    const type = typeof content?.type === 'string' ? content.type : undefined;
    if (type === 'output') {
      await this.#claude.push(content!.data, context);
      return;
    }
    if (type === 'event') {
      this.#event(record(content!.data), context);
      return;
    }
    if (type === 'session') {
      const inner = record(content!.data);
      if (inner !== undefined && isV1Envelope(inner)) this.#v1.read(inner, context.time);
      else writer.skips.skip('malformed-event', 'an agent session record without a v1 envelope');
      return;
    }
    const handler = type === undefined ? undefined : this.#legacyHandler(type);
    if (handler?.pushLegacy !== undefined) {
      await handler.pushLegacy(content!.data, context);
      return;
    }
    writer.skips.skip(
      'unknown-event',
      type === 'codex' || type === 'acp'
        ? `a legacy ${type} record (no ${type} mapper is registered)`
        : `an agent record of type "${String(type).slice(0, 40)}"`,
    );
  }

  #legacyHandler(type: string): ProviderMapper | undefined {
    if (!this.#legacy.has(type))
      this.#legacy.set(type, this.#options.legacyProvider(type)?.create(this.#writer));
    return this.#legacy.get(type);
  }

  /** Happy's agent events: notes for people, and `ready` (the agent finished its turn). */
  #event(data: Json | undefined, context: EventContext): void {
    const writer = this.#writer;
    const time = context.time === undefined ? {} : { time: context.time };
    switch (data?.type) {
      case 'message':
        if (typeof data.message === 'string') writer.service(data.message, time);
        else writer.skips.skip('malformed-event', 'a message event without message');
        return;
      case 'limit-reached':
        writer.service(
          typeof data.endsAt === 'number' && Number.isFinite(data.endsAt)
            ? `Usage limit reached until ${new Date(data.endsAt * (data.endsAt < 1e12 ? 1000 : 1)).toISOString()}`
            : 'Usage limit reached',
          time,
        );
        return;
      case 'switch':
        writer.service(`Switched to ${data.mode === 'local' ? 'local' : 'remote'} mode`, time);
        return;
      case 'ready':
        if (!writer.endTurn('completed', time))
          writer.skips.skip('not-displayed', 'a ready event between turns');
        return;
      default:
        writer.skips.skip('unknown-event', `an agent event of type "${String(data?.type).slice(0, 40)}"`);
    }
  }
}

/**
 * The provider of Happy's stored records (`happy-media map --from happy`), finding legacy `codex`/`acp`
 * readers with `legacyProvider`.
 */
export function createHappyRecordsProvider(options: HappyRecordsOptions): MapperProvider {
  return {
    name: 'happy',
    summary:
      "Happy's stored session records (legacy Claude/Codex/ACP records, v1 session events, v2 messages), decrypted",
    create: (writer) => new HappyRecords(writer, options),
  };
}
