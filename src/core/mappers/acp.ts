/**
 * The ACP mapper: an Agent Client Protocol session (Zed's JSON-RPC protocol between an editor and a
 * coding agent: Gemini CLI, Claude Code's and Codex's ACP adapters, OpenCode, …) into Session
 * Protocol v2. It reads the JSON-RPC messages of both directions, in the order they crossed the wire:
 *
 * - `session/prompt` (the user's content blocks) opens a turn; its response's `stopReason` ends it;
 * - `session/update`: message and thought chunks are joined into whole `text` messages (a new
 *   `messageId`, another kind of update or the end of the turn ends a message); `tool_call` /
 *   `tool_call_update` become one `tool-call-start` and one `tool-call-end`; a `plan` is a checklist;
 * - `session/request_permission` and its response become `permission-request` / `permission-response`;
 * - `session/cancel` makes an unfinished turn end `cancelled`;
 * - `session/load` replays history as chunks with no prompt around them: turns are inferred.
 *
 * Images (and other binary content: audio, embedded files) go to the media handler and become
 * `photo` / `file` messages, with `parentId` = the tool call whose content they are. Happy's legacy
 * `{ type: 'acp', provider, data }` records go through {@link ProviderMapper.pushLegacy}.
 *
 * Every decision where the design leaves room is in docs/mappers.md ("ACP").
 *
 * @module
 */
import type { PermissionOption, PermissionOptionKind, TurnStatus } from '../protocol/index.js';
import { IdSchema } from '../protocol/index.js';
import {
  AcpPermissionOptionSchema,
  type ContentBlock,
  ContentChunkSchema,
  IGNORED_SESSION_UPDATES,
  JsonRpcMessageSchema,
  PlanUpdateSchema,
  PromptRequestSchema,
  PromptResultSchema,
  RequestPermissionResultSchema,
  RequestPermissionSchema,
  SessionNotificationSchema,
  type ToolCallFields,
  ToolCallFieldsSchema,
} from './acp-events.js';
import type { EventContext, MapperProvider, ProviderMapper } from './agent-mapper.js';
import { planText } from './codex.js';
import type { CallFields, Placement, SessionWriter } from './session-writer.js';
import { codeSpan, MAX_DESCRIPTION_LENGTH, shortPath, shortText } from './titles.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  return typeof value === 'string' ? `"${value.slice(0, 48)}"` : typeof value;
}

/** JSON-RPC methods of ACP that carry no transcript (set-up, file system, terminals, listings). */
const NOT_DISPLAYED_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'authenticate',
  'logout',
  'session/new',
  'session/set_mode',
  'session/set_config_option',
  'session/list',
  'session/delete',
  'session/close',
  'fs/read_text_file',
  'fs/write_text_file',
  'terminal/create',
  'terminal/output',
  'terminal/release',
  'terminal/wait_for_exit',
  'terminal/kill',
  'elicitation/create',
  'elicitation/complete',
  '$/cancel_request',
]);

const PERMISSION_KINDS: Record<string, PermissionOptionKind> = {
  allow_once: 'allow-once',
  allow_always: 'allow-always',
  reject_once: 'reject-once',
  reject_always: 'reject-always',
};

/** ACP's option kinds (`allow_once`, …) as v2's; a kind from a newer ACP keeps its allow/reject sense. */
function permissionKind(kind: string): PermissionOptionKind | undefined {
  const known = PERMISSION_KINDS[kind] ?? PERMISSION_KINDS[kind.replace(/-/g, '_')];
  if (known) return known;
  if (kind.startsWith('allow')) return 'allow-once';
  if (kind.startsWith('reject') || kind.startsWith('deny')) return 'reject-once';
  return undefined;
}

/** ACP permission options as v2's: option ids kept; options v2 cannot carry are left out. */
function permissionOptions(options: readonly unknown[]): PermissionOption[] {
  const mapped: PermissionOption[] = [];
  const seen = new Set<string>();
  for (const raw of options) {
    const option = AcpPermissionOptionSchema.safeParse(raw);
    if (!option.success) continue;
    const kind = permissionKind(option.data.kind);
    const id = option.data.optionId;
    if (kind === undefined || seen.has(id) || !IdSchema.safeParse(id).success) continue;
    seen.add(id);
    mapped.push({ id, label: option.data.name, kind });
  }
  return mapped;
}

/** ACP's `stopReason` as a turn status, with a note for the turns that did not end normally. */
function stopStatus(stopReason: string): { status: TurnStatus; note?: string } {
  switch (stopReason) {
    case 'end_turn':
      return { status: 'completed' };
    case 'cancelled':
      return { status: 'cancelled' };
    case 'max_tokens':
      return { status: 'failed', note: 'The agent stopped: it reached its maximum number of tokens' };
    case 'max_turn_requests':
      return {
        status: 'failed',
        note: 'The agent stopped: it reached its maximum number of requests in one turn',
      };
    case 'refusal':
      return { status: 'failed', note: 'The agent refused to continue' };
    default:
      return { status: 'completed', note: `The agent stopped (${shortText(stopReason, 40)})` };
  }
}

/** The last segment of a URI's path, decoded, as a display file name (or `undefined`). */
function fileNameOf(uri: string): string | undefined {
  let segment = uri
    .split(/[?#]/)[0]!
    .split('/')
    .filter((part) => part.length > 0)
    .at(-1);
  if (segment === undefined) return undefined;
  try {
    segment = decodeURIComponent(segment);
  } catch {
    // keep it encoded
  }
  const name = segment.replace(/[\u0000-\u001f\u007f-\u009f/\\]/g, '').slice(0, 255);
  return name.length === 0 || name === '.' || name === '..' ? undefined : name;
}

/** A `file://` URI's absolute path (percent-decoded), or `undefined` for any other URI. */
function localPath(uri: string): string | undefined {
  const match = /^file:\/\/(?:localhost)?(\/[^?#]*)$/i.exec(uri);
  if (!match) return undefined;
  try {
    const path = decodeURIComponent(match[1]!);
    return /^\/[A-Za-z]:[\\/]/.test(path) ? path.slice(1) : path;
  } catch {
    return undefined;
  }
}

/** A cheap fingerprint of base64 data, to upload an image a tool call repeats (content is replaced, not appended) once. */
function fingerprint(data: string): string {
  return `${data.length}:${data.slice(0, 64)}:${data.slice(-64)}`;
}

/** The text of a failed tool call: its first text content, or its raw output's error, or a default. */
function failureText(fields: ToolCallFields): string {
  for (const item of fields.content ?? []) {
    if (item.type === 'content' && item.content?.type === 'text' && item.content.text) {
      return shortText(item.content.text, MAX_DESCRIPTION_LENGTH);
    }
  }
  const raw = fields.rawOutput;
  if (typeof raw === 'string' && raw.length > 0) return shortText(raw, MAX_DESCRIPTION_LENGTH);
  if (isObject(raw)) {
    const error = raw.error ?? raw.message;
    if (typeof error === 'string' && error.length > 0) return shortText(error, MAX_DESCRIPTION_LENGTH);
    if (isObject(error) && typeof error.message === 'string')
      return shortText(error.message, MAX_DESCRIPTION_LENGTH);
  }
  return 'The tool call failed';
}

/** What a tool call's start says: `kind` is the tool name, `title` the title, `rawInput` the args. */
function callFields(fields: ToolCallFields): CallFields {
  const kind = fields.kind ?? 'other';
  const fullTitle = fields.title ?? '';
  const title = fullTitle.length > 0 ? shortText(fullTitle) : kind;
  const locations = (fields.locations ?? []).map((location) =>
    typeof location.line === 'number' ? `${location.path}:${location.line}` : location.path,
  );
  const description = [title !== fullTitle ? fullTitle : '', locations.join(', ')]
    .filter((part) => part.length > 0)
    .join(' — ');
  let args: Json;
  if (isObject(fields.rawInput)) args = fields.rawInput;
  else if (fields.rawInput !== undefined && fields.rawInput !== null) args = { input: fields.rawInput };
  else {
    // No raw input: what the call shows (its diffs, its locations) is all there is to keep.
    const diffs = (fields.content ?? [])
      .filter((item) => item.type === 'diff' && typeof item.path === 'string')
      .map((item) => ({ path: item.path!, oldText: item.oldText ?? null, newText: item.newText ?? '' }));
    args = diffs.length === 1 ? { ...diffs[0]! } : diffs.length > 1 ? { diffs } : {};
    if ((fields.locations ?? []).length > 0) args.locations = fields.locations;
  }
  return { toolName: kind, title, description: shortText(description, MAX_DESCRIPTION_LENGTH), args };
}

/** `next` over `previous`: a tool call update replaces the fields it carries. */
function mergeFields(previous: ToolCallFields, next: ToolCallFields): ToolCallFields {
  const merged: ToolCallFields = { ...previous };
  for (const [name, value] of Object.entries(next) as [keyof ToolCallFields, unknown][]) {
    if (value !== undefined && value !== null) (merged as Json)[name] = value;
  }
  return merged;
}

type ChunkKind = 'user' | 'agent' | 'thought';

interface TextBuffer {
  kind: ChunkKind;
  messageId: string | undefined;
  text: string;
  place: Placement;
}

class AcpMapper implements ProviderMapper {
  readonly #writer: SessionWriter;
  /** The message being streamed in chunks. */
  #buffer: TextBuffer | undefined;
  /** Tool calls announced `pending` and not yet written: their input may still be streaming. */
  readonly #pending = new Map<string, ToolCallFields>();
  /** Image fingerprints already uploaded per call. */
  readonly #images = new Map<string, Set<string>>();
  /** `session/prompt` requests without a response, by JSON-RPC id. */
  readonly #prompts = new Set<string>();
  /** `session/request_permission` requests without a response: id → call key. */
  readonly #permissions = new Map<string, string>();
  /** The open turn was inferred from replayed history, not opened by a prompt. */
  #inferredTurn = false;
  /** `session/cancel` was sent during the open turn. */
  #cancelRequested = false;
  #lastPlan: string | undefined;

  constructor(writer: SessionWriter) {
    this.#writer = writer;
  }

  async push(event: unknown, context: EventContext): Promise<void> {
    const writer = this.#writer;
    const place: Placement = { time: context.time };
    if (!isObject(event)) {
      writer.skips.skip('unknown-event', `a ${typeName(event)} instead of an object`);
      return;
    }
    // A bare update (`{ sessionUpdate, … }`) or notification params (`{ sessionId, update }`), as some recorders log them.
    if (typeof event.sessionUpdate === 'string') {
      await this.#update(event, place);
      return;
    }
    if (event.method === undefined && isObject(event.update)) {
      await this.#update(event.update, place);
      return;
    }
    const parsed = JsonRpcMessageSchema.safeParse(event);
    if (!parsed.success) {
      writer.skips.skip('unknown-event', 'not a JSON-RPC message');
      return;
    }
    const message = parsed.data;
    const id = message.id === undefined || message.id === null ? undefined : String(message.id);
    if (typeof message.method === 'string') {
      await this.#request(message.method, id, message.params, place);
      return;
    }
    if (id !== undefined && ('result' in event || message.error !== undefined)) {
      await this.#response(id, message.result, message.error, place);
      return;
    }
    writer.skips.skip('unknown-event', 'a JSON-RPC message that is neither a request nor a response');
  }

  async pushLegacy(data: unknown, context: EventContext): Promise<void> {
    await legacy(this.#writer, data, { time: context.time });
  }

  async end(): Promise<void> {
    this.#flushText();
    this.#materializeAll();
    if (this.#cancelRequested && this.#writer.openTurn !== undefined) this.#writer.endTurn('cancelled');
  }

  // --- requests and responses ---

  async #request(method: string, id: string | undefined, params: unknown, place: Placement): Promise<void> {
    const writer = this.#writer;
    switch (method) {
      case 'session/update': {
        const notification = SessionNotificationSchema.safeParse(params);
        if (!notification.success) {
          writer.skips.skip('malformed-event', 'session/update');
          return;
        }
        await this.#update(notification.data.update, place);
        return;
      }
      case 'session/prompt':
        await this.#prompt(id, params, place);
        return;
      case 'session/request_permission':
        await this.#requestPermission(id, params, place);
        return;
      case 'session/cancel':
        this.#cancelRequested = true;
        writer.skips.skip('not-displayed', 'session/cancel (the turn ends cancelled)');
        return;
      case 'session/load':
      case 'session/resume':
        this.#flushText();
        this.#endTurn('completed', place);
        writer.skips.skip('not-displayed', method);
        return;
      default:
        writer.skips.skip(
          NOT_DISPLAYED_METHODS.has(method) ? 'not-displayed' : 'unknown-event',
          `method ${typeName(method)}`,
        );
    }
  }

  async #response(
    id: string,
    result: unknown,
    error: { message: string } | undefined,
    place: Placement,
  ): Promise<void> {
    const writer = this.#writer;
    // Both sides number their own requests, so an id alone is ambiguous: the result's shape decides.
    const prompt = PromptResultSchema.safeParse(result);
    if (prompt.success && this.#prompts.has(id)) {
      this.#prompts.delete(id);
      const { status, note } = stopStatus(prompt.data.stopReason);
      this.#flushText();
      if (note !== undefined && writer.openTurn !== undefined) writer.service(note, place);
      this.#endTurn(this.#cancelRequested && status === 'completed' ? 'cancelled' : status, place);
      return;
    }
    const outcome = RequestPermissionResultSchema.safeParse(result);
    if (outcome.success && this.#permissions.has(id)) {
      const key = this.#permissions.get(id)!;
      this.#permissions.delete(id);
      this.#flushText();
      const { outcome: answer } = outcome.data;
      if (answer.outcome === 'selected' && answer.optionId !== undefined) {
        writer.respondPermission(key, answer.optionId, place);
      } else if (writer.isCallOpen(key)) {
        writer.service('The permission request was cancelled', { ...place, parent: key });
      } else writer.skips.skip('unmatched-permission', 'a cancelled permission request of a call that ended');
      return;
    }
    if (error !== undefined) {
      if (this.#permissions.has(id)) {
        const key = this.#permissions.get(id)!;
        this.#permissions.delete(id);
        if (writer.isCallOpen(key))
          writer.service('The permission request failed', { ...place, parent: key });
        return;
      }
      if (this.#prompts.has(id)) {
        this.#prompts.delete(id);
        this.#flushText();
        const message = shortText(error.message, MAX_DESCRIPTION_LENGTH);
        if (writer.openTurn !== undefined) writer.service(message ? `Error: ${message}` : 'Error', place);
        this.#endTurn('failed', place);
        return;
      }
    }
    if (prompt.success || outcome.success) {
      writer.skips.skip('unmatched-permission', `a response to request ${typeName(id)} that is not pending`);
      return;
    }
    writer.skips.skip('not-displayed', 'a response that carries no transcript');
  }

  // --- turns ---

  #endTurn(status: TurnStatus, place: Placement): void {
    this.#flushText();
    this.#materializeAll();
    if (this.#writer.openTurn !== undefined) this.#writer.endTurn(status, place);
    this.#inferredTurn = false;
    this.#cancelRequested = false;
    this.#images.clear();
  }

  /** Before agent output: a turn is opened by the writer if none is; one opened so is inferred. */
  #agentOutput(): void {
    if (this.#writer.openTurn === undefined) this.#inferredTurn = true;
  }

  async #prompt(id: string | undefined, params: unknown, place: Placement): Promise<void> {
    const writer = this.#writer;
    const prompt = PromptRequestSchema.safeParse(params);
    if (!prompt.success) {
      writer.skips.skip('malformed-event', 'session/prompt');
      return;
    }
    this.#flushText();
    if (writer.openTurn !== undefined) {
      // The previous prompt got no response: it ends as the log's end would end it (see `end`).
      const cancelled = this.#cancelRequested || writer.openCalls().length > 0 || this.#pending.size > 0;
      this.#endTurn(cancelled ? 'cancelled' : 'completed', place);
    }
    let text = '';
    for (const block of prompt.data.prompt) {
      if (block.type === 'text' && typeof block.text === 'string') {
        text = text.length > 0 ? `${text}\n\n${block.text}` : block.text;
        continue;
      }
      if (text.length > 0) writer.userText(text, place);
      text = '';
      await this.#content(block, 'user', place);
    }
    if (text.length > 0) writer.userText(text, place);
    writer.startTurn(place);
    this.#inferredTurn = false;
    this.#cancelRequested = false;
    if (id !== undefined) this.#prompts.add(id);
  }

  // --- session/update ---

  async #update(update: Json, place: Placement): Promise<void> {
    const writer = this.#writer;
    const kind = update.sessionUpdate;
    switch (kind) {
      case 'user_message_chunk':
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        const chunk = ContentChunkSchema.safeParse(update);
        if (!chunk.success) {
          writer.skips.skip('malformed-event', `${kind}`);
          return;
        }
        const chunkKind: ChunkKind =
          kind === 'user_message_chunk' ? 'user' : kind === 'agent_message_chunk' ? 'agent' : 'thought';
        await this.#chunk(chunkKind, chunk.data.content, chunk.data.messageId ?? undefined, place);
        return;
      }
      case 'tool_call':
      case 'tool_call_update': {
        const fields = ToolCallFieldsSchema.safeParse(update);
        if (!fields.success) {
          writer.skips.skip('malformed-event', `${kind}`);
          return;
        }
        this.#flushText();
        await this.#toolCall(kind, fields.data, place);
        return;
      }
      case 'plan': {
        const plan = PlanUpdateSchema.safeParse(update);
        if (!plan.success) {
          writer.skips.skip('malformed-event', 'plan');
          return;
        }
        this.#flushText();
        const text = planText(
          plan.data.entries.map((entry) => ({
            text: entry.content,
            status: entry.status === 'completed' ? 'done' : entry.status === 'in_progress' ? 'doing' : 'todo',
          })),
        );
        if (text === this.#lastPlan) {
          writer.skips.skip('duplicate', 'an unchanged plan');
          return;
        }
        this.#lastPlan = text;
        writer.service(text, place);
        return;
      }
      default:
        writer.skips.skip(
          typeof kind === 'string' && IGNORED_SESSION_UPDATES.has(kind) ? 'not-displayed' : 'unknown-event',
          `session update ${typeName(kind)}`,
        );
    }
  }

  async #chunk(
    kind: ChunkKind,
    content: ContentBlock,
    messageId: string | undefined,
    place: Placement,
  ): Promise<void> {
    const buffer = this.#buffer;
    const continues =
      buffer !== undefined &&
      buffer.kind === kind &&
      (messageId === undefined || buffer.messageId === undefined || buffer.messageId === messageId);
    if (!continues) {
      this.#flushText();
      // Replayed history: a user message after the agent's answer begins the next turn.
      if (kind === 'user' && this.#inferredTurn) this.#endTurn('completed', place);
    }
    if (content.type === 'text' && typeof content.text === 'string') {
      if (this.#buffer === undefined) this.#buffer = { kind, messageId, text: '', place };
      this.#buffer.text += content.text;
      if (messageId !== undefined) this.#buffer.messageId = messageId;
      return;
    }
    this.#flushText();
    await this.#content(content, kind === 'user' ? 'user' : 'agent', place);
  }

  #flushText(): void {
    const buffer = this.#buffer;
    if (buffer === undefined) return;
    this.#buffer = undefined;
    if (buffer.text.length === 0) return;
    if (buffer.kind === 'user') {
      this.#writer.userText(buffer.text, buffer.place);
      return;
    }
    this.#agentOutput();
    this.#writer.agentText(buffer.text, {
      ...buffer.place,
      ...(buffer.kind === 'thought' ? { thinking: true } : {}),
    });
  }

  /** A non-text content block of a prompt, a message or a tool call: media, a file reference, or a skip. */
  async #content(block: ContentBlock, role: 'user' | 'agent', place: Placement): Promise<void> {
    const writer = this.#writer;
    if (role === 'agent' && place.parent === undefined) this.#agentOutput();
    switch (block.type) {
      case 'image':
      case 'audio':
        if (typeof block.data === 'string' && block.data.length > 0) {
          await writer.media(
            block.data,
            {
              role,
              ...(block.mimeType ? { mimeType: block.mimeType } : {}),
              ...(block.type === 'audio' ? { noun: 'file' as const } : {}),
            },
            place,
          );
        } else writer.skips.skip('unsupported-content', `an ${block.type} by URI only`);
        return;
      case 'resource': {
        const resource = block.resource;
        if (resource === undefined) break;
        const name = fileNameOf(resource.uri);
        const data =
          typeof resource.blob === 'string'
            ? resource.blob
            : typeof resource.text === 'string'
              ? new TextEncoder().encode(resource.text)
              : undefined;
        if (data === undefined) break;
        const mimeType = resource.mimeType ?? (typeof resource.text === 'string' ? 'text/plain' : undefined);
        await writer.media(
          data,
          { role, noun: 'file', ...(mimeType ? { mimeType } : {}), ...(name ? { name } : {}) },
          place,
        );
        return;
      }
      case 'resource_link': {
        const path = typeof block.uri === 'string' ? localPath(block.uri) : undefined;
        const name = block.name ?? (typeof block.uri === 'string' ? fileNameOf(block.uri) : undefined);
        const size = block.size;
        if (
          path !== undefined &&
          name !== undefined &&
          typeof size === 'number' &&
          Number.isSafeInteger(size) &&
          size >= 0
        ) {
          const message = writer.mediaMessage(
            role,
            {
              type: 'file',
              ref: `machine-file://${path}`,
              name: fileNameOf(name) ?? name,
              size,
              mimeType: block.mimeType ?? 'application/octet-stream',
            },
            place,
          );
          if (message !== undefined) return;
        }
        writer.skips.skip('unsupported-content', 'a resource link that is not a local file of known size');
        return;
      }
      default:
        writer.skips.skip('unsupported-content', `content block ${typeName(block.type)}`);
        return;
    }
    writer.skips.skip('malformed-event', `content block ${typeName(block.type)}`);
  }

  // --- tool calls ---

  async #toolCall(
    kind: 'tool_call' | 'tool_call_update',
    fields: ToolCallFields,
    place: Placement,
  ): Promise<void> {
    const writer = this.#writer;
    const key = fields.toolCallId;
    const pending = this.#pending.get(key);
    if (pending !== undefined) {
      const merged = mergeFields(pending, fields);
      this.#pending.set(key, merged);
      if (this.#mustStart(merged)) await this.#materialize(key, place);
      return;
    }
    if (writer.isCallOpen(key)) {
      await this.#apply(key, fields, place);
      return;
    }
    if (kind === 'tool_call_update' && (writer.callIdOf(key) !== undefined || !fields.title)) {
      // An update for a call that ended (or that was never announced and says too little to show).
      writer.skips.skip(
        writer.callIdOf(key) !== undefined ? 'duplicate' : 'unknown-call',
        'tool_call_update',
      );
      return;
    }
    // A new call (agents also announce a call by its first update): held while its input may still stream.
    this.#pending.set(key, fields);
    if (this.#mustStart(fields)) await this.#materialize(key, place);
  }

  /** A held call is written once it runs, ends, has content to show, or is asked about. */
  #mustStart(fields: ToolCallFields): boolean {
    if (fields.status !== undefined && fields.status !== null && fields.status !== 'pending') return true;
    return (fields.content ?? []).some((item) => item.type === 'content' && item.content?.type !== 'text');
  }

  async #materialize(key: string, place: Placement): Promise<void> {
    const fields = this.#pending.get(key);
    if (fields === undefined) return;
    this.#pending.delete(key);
    this.#agentOutput();
    if (this.#writer.startCall(key, callFields(fields), { ...place, ifEnded: 'new-call' }) === undefined)
      return;
    await this.#apply(key, fields, place);
  }

  /** Held calls at the end of their turn: written, so the turn's end closes them. */
  #materializeAll(): void {
    for (const [key, fields] of this.#pending) {
      this.#agentOutput();
      this.#writer.startCall(key, callFields(fields), { ifEnded: 'new-call' });
    }
    this.#pending.clear();
  }

  /** What an update of an open call says: new media in its content, and its end. */
  async #apply(key: string, fields: ToolCallFields, place: Placement): Promise<void> {
    const writer = this.#writer;
    for (const item of fields.content ?? []) {
      const block = item.type === 'content' ? item.content : undefined;
      if (block === undefined || block.type === 'text') continue;
      const data = block.data ?? block.resource?.blob;
      if (typeof data === 'string') {
        let seen = this.#images.get(key);
        if (seen === undefined) {
          seen = new Set();
          this.#images.set(key, seen);
        }
        const print = fingerprint(data);
        if (seen.has(print)) continue; // the same content again: updates replace the list
        seen.add(print);
      }
      await this.#content(block, 'agent', { ...place, parent: key });
    }
    if (fields.status === 'completed') writer.endCall(key, place);
    else if (fields.status === 'failed') writer.endCall(key, { ...place, error: failureText(fields) });
  }

  // --- permissions ---

  async #requestPermission(id: string | undefined, params: unknown, place: Placement): Promise<void> {
    const writer = this.#writer;
    const request = RequestPermissionSchema.safeParse(params);
    if (!request.success) {
      writer.skips.skip('malformed-event', 'session/request_permission');
      return;
    }
    this.#flushText();
    const { toolCall } = request.data;
    const key = toolCall.toolCallId;
    if (this.#pending.has(key)) {
      this.#pending.set(key, mergeFields(this.#pending.get(key)!, toolCall));
      await this.#materialize(key, place);
    } else if (!writer.isCallOpen(key)) {
      if (writer.callIdOf(key) !== undefined) {
        writer.skips.skip('unmatched-permission', 'a permission request for a call that ended');
        return;
      }
      // Asked about a call never announced: the request says what it is.
      this.#pending.set(key, toolCall);
      await this.#materialize(key, place);
    }
    const options = permissionOptions(request.data.options);
    if (options.length === 0) {
      writer.skips.skip('unmatched-permission', 'a permission request without an option v2 can carry');
      return;
    }
    if (writer.requestPermission(key, { options }, place) && id !== undefined) this.#permissions.set(id, key);
  }
}

// --- Happy's legacy `acp` records ---------------------------------------------------------------

const DEFAULT_LEGACY_OPTIONS: PermissionOption[] = [
  { id: 'allow', label: 'Allow', kind: 'allow-once' },
  { id: 'deny', label: 'Deny', kind: 'reject-once' },
];

function outputText(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  if (isObject(output)) {
    for (const name of ['error', 'message', 'content', 'text']) {
      const value = output[name];
      if (typeof value === 'string' && value.length > 0) return value;
    }
  }
  return undefined;
}

/** Happy's legacy `{ type: 'acp', provider, data }` record `data` (what Happy's CLI wrote for Gemini, OpenCode, …). */
async function legacy(writer: SessionWriter, data: unknown, place: Placement): Promise<void> {
  if (!isObject(data) || typeof data.type !== 'string') {
    writer.skips.skip('unknown-event', 'a legacy acp record without a type');
    return;
  }
  const str = (name: string) => (typeof data[name] === 'string' ? (data[name] as string) : undefined);
  switch (data.type) {
    case 'message':
    case 'reasoning':
    case 'thinking': {
      const text = data.type === 'thinking' ? str('text') : str('message');
      if (text === undefined) break;
      if (text.length === 0) writer.skips.skip('not-displayed', `an empty legacy acp ${data.type}`);
      else writer.agentText(text, { ...place, ...(data.type === 'message' ? {} : { thinking: true }) });
      return;
    }
    case 'tool-call': {
      const callId = str('callId');
      const name = str('name');
      if (callId === undefined || name === undefined) break;
      const input = isObject(data.input) ? data.input : {};
      const toolCall = isObject(input.toolCall) ? input.toolCall : {};
      const title = typeof toolCall.title === 'string' && toolCall.title.length > 0 ? toolCall.title : name;
      writer.startCall(callId, { toolName: name, title: shortText(title), args: data.input ?? {} }, place);
      return;
    }
    case 'tool-result':
    case 'tool-call-result': {
      const callId = str('callId');
      if (callId === undefined) break;
      const error =
        data.isError === true
          ? shortText(outputText(data.output) ?? 'The tool call failed', MAX_DESCRIPTION_LENGTH)
          : undefined;
      writer.endCall(callId, { ...place, ...(error === undefined ? {} : { error }) });
      return;
    }
    case 'file-edit': {
      const id = str('id');
      const filePath = str('filePath');
      if (id === undefined || filePath === undefined) break;
      const { type: _type, id: _id, ...args } = data;
      if (
        writer.startCall(
          id,
          {
            toolName: 'file-edit',
            title: `Edit ${codeSpan(shortPath(filePath))}`,
            description: shortText(str('description') ?? '', MAX_DESCRIPTION_LENGTH),
            args,
          },
          place,
        ) !== undefined
      ) {
        writer.endCall(id, place);
      }
      return;
    }
    case 'permission-request': {
      const key = str('permissionId');
      if (key === undefined) break;
      const description = str('description') ?? '';
      if (!writer.isCallOpen(key)) {
        writer.startCall(
          key,
          { toolName: str('toolName') ?? 'unknown', title: shortText(description || 'Permission') },
          place,
        );
      }
      const options = Array.isArray(data.options) ? permissionOptions(data.options) : [];
      writer.requestPermission(
        key,
        {
          options: options.length > 0 ? options : DEFAULT_LEGACY_OPTIONS,
          ...(description ? { description } : {}),
        },
        place,
      );
      return;
    }
    case 'task_started':
      if (writer.openTurn !== undefined)
        writer.endTurn(writer.openCalls().length > 0 ? 'cancelled' : 'completed', place);
      writer.startTurn(place);
      return;
    case 'task_complete':
    case 'turn_aborted':
      if (!writer.endTurn(data.type === 'task_complete' ? 'completed' : 'cancelled', place)) {
        writer.skips.skip('out-of-order', `legacy acp ${data.type} without an open turn`);
      }
      return;
    case 'terminal-output':
    case 'token_count':
      writer.skips.skip('not-displayed', `legacy acp ${data.type}`);
      return;
    default:
      writer.skips.skip('unknown-event', `legacy acp record type ${typeName(data.type)}`);
      return;
  }
  writer.skips.skip('malformed-event', `legacy acp record type ${typeName(data.type)}`);
}

/**
 * The ACP provider: `happy-media map --from acp` and `createAgentMapper('acp')`; also reads Happy's
 * legacy `{ type: 'acp', provider, data }` records.
 *
 * @example
 * ```ts
 * const mapper = createAgentMapper(acpProvider, { media });
 * connection.onMessage(async (message) => send(await mapper.push(message))); // both directions
 * ```
 */
export const acpProvider: MapperProvider = {
  name: 'acp',
  summary:
    'Agent Client Protocol: JSON-RPC messages of a session, both directions (session/update, prompts, permissions)',
  legacyContentType: 'acp',
  create: (writer) => new AcpMapper(writer),
};
