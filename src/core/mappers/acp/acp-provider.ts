/**
 * The ACP mapper: an Agent Client Protocol session (Zed's JSON-RPC protocol between an editor and a
 * coding agent: Gemini CLI, Claude Code's and Codex's ACP adapters, OpenCode, …) into Session
 * Protocol v2. It reads the JSON-RPC messages of both directions, in the order they crossed the wire:
 *
 * - `session/prompt` (the user's content blocks) opens a turn; its response's `stopReason` ends it;
 * - `session/update`: message and thought chunks are joined into whole `text` messages (a new
 *   `messageId`, another kind of update or the end of the turn ends a message); `tool_call` /
 *   `tool_call_update` become one `tool-call-start` and one `tool-call-end` (`acp-tool-calls.ts`); a
 *   `plan` is a checklist;
 * - `session/request_permission` and its response become `permission-request` / `permission-response`;
 * - `session/cancel` makes an unfinished turn end `cancelled`;
 * - `session/load` replays history as chunks with no prompt around them: turns are inferred.
 *
 * Images (and other binary content: audio, embedded files) go to the media handler and become
 * `photo` / `file` messages (`acp-content.ts`), with `parentId` = the tool call whose content they are.
 * Happy's legacy `{ type: 'acp', provider, data }` records go through {@link ProviderMapper.pushLegacy}
 * (`acp-legacy.ts`).
 *
 * Every decision where the design leaves room is in docs/mappers.md ("ACP").
 *
 * @module
 */
import type { TurnStatus } from '../../protocol/index.js';
import type { EventContext, MapperProvider, ProviderMapper } from '../mapper-provider.js';
import { placeWith } from '../place-with.js';
import { PlanNotes, planStepStatus } from '../plan.js';
import { isJsonObject, type JsonObject, typeName } from '../provider-json.js';
import { RecentMap, RecentSet } from '../recent.js';
import type { Placement, SessionWriter } from '../session-writer.js';
import { afterStep, eachStep, type Step } from '../steps.js';
import { MAX_DESCRIPTION_LENGTH, shortText } from '../titles.js';
import { writeContentBlock } from './acp-content.js';
import {
  type ContentBlock,
  IGNORED_SESSION_UPDATES,
  PromptResultSchema,
  RequestPermissionResultSchema,
  readContentChunk,
  readJsonRpcMessage,
  readPlanUpdate,
  readPromptRequest,
  readRequestPermission,
  readSessionUpdate,
  readToolCallFields,
} from './acp-events.js';
import { readLegacyAcpRecord } from './acp-legacy.js';
import { permissionOptions } from './acp-permissions.js';
import { AcpToolCalls } from './acp-tool-calls.js';

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
  readonly #calls: AcpToolCalls;
  /** `session/prompt` requests without a response, by JSON-RPC id. */
  readonly #prompts = new RecentSet<string>();
  /** `session/request_permission` requests without a response: id → call key. */
  readonly #permissions = new RecentMap<string, string>();
  /** The open turn was inferred from replayed history, not opened by a prompt. */
  #inferredTurn = false;
  /** `session/cancel` was sent during the open turn. */
  #cancelRequested = false;
  readonly #plans = new PlanNotes();

  constructor(writer: SessionWriter) {
    this.#writer = writer;
    this.#calls = new AcpToolCalls(writer, () => this.#agentOutput());
  }

  push(event: unknown, context: EventContext): Step {
    const writer = this.#writer;
    const place: Placement = { time: context.time };
    if (!isJsonObject(event)) {
      writer.skips.skip('unknown-event', `a ${typeName(event)} instead of an object`);
      return;
    }
    // A bare update (`{ sessionUpdate, … }`) or notification params (`{ sessionId, update }`), as some recorders log them.
    if (typeof event.sessionUpdate === 'string') return this.#update(event, place);
    if (event.method === undefined && isJsonObject(event.update)) return this.#update(event.update, place);
    const message = readJsonRpcMessage(event);
    if (message === undefined) {
      writer.skips.skip('unknown-event', 'not a JSON-RPC message');
      return;
    }
    const id = message.id === undefined || message.id === null ? undefined : String(message.id);
    if (typeof message.method === 'string') return this.#request(message.method, id, message.params, place);
    if (id !== undefined && ('result' in event || message.error !== undefined)) {
      this.#response(id, message.result, message.error, place);
      return;
    }
    writer.skips.skip('unknown-event', 'a JSON-RPC message that is neither a request nor a response');
  }

  pushLegacy(data: unknown, context: EventContext): void {
    readLegacyAcpRecord(this.#writer, data, { time: context.time });
  }

  end(): void {
    this.#flushText();
    this.#calls.writeHeld();
    if (this.#cancelRequested && this.#writer.openTurn !== undefined) this.#writer.endTurn('cancelled');
  }

  // --- requests and responses ---

  #request(method: string, id: string | undefined, params: unknown, place: Placement): Step {
    const writer = this.#writer;
    switch (method) {
      case 'session/update': {
        const update = readSessionUpdate(params);
        if (update === undefined) {
          writer.skips.skip('malformed-event', 'session/update');
          return;
        }
        return this.#update(update, place);
      }
      case 'session/prompt':
        return this.#prompt(id, params, place);
      case 'session/request_permission':
        return this.#requestPermission(id, params, place);
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

  #response(id: string, result: unknown, error: { message: string } | undefined, place: Placement): void {
    const writer = this.#writer;
    // Both sides number their own requests, so an id alone is ambiguous: the result's shape decides.
    // Each shape is parsed only when a request of its kind waits under this id (a zod parse that fails
    // cost more than the rest of the response), and at the end when neither did.
    const prompt = this.#prompts.has(id) ? PromptResultSchema.safeParse(result) : undefined;
    if (prompt?.success) {
      this.#prompts.delete(id);
      const { status, note } = stopStatus(prompt.data.stopReason);
      this.#flushText();
      if (note !== undefined && writer.openTurn !== undefined) writer.service(note, place);
      this.#endTurn(this.#cancelRequested && status === 'completed' ? 'cancelled' : status, place);
      return;
    }
    const outcome = this.#permissions.has(id) ? RequestPermissionResultSchema.safeParse(result) : undefined;
    if (outcome?.success) {
      const key = this.#permissions.get(id)!;
      this.#permissions.delete(id);
      this.#flushText();
      const { outcome: answer } = outcome.data;
      if (answer.outcome === 'selected' && answer.optionId !== undefined) {
        writer.respondPermission(key, answer.optionId, place);
      } else if (writer.isCallOpen(key)) {
        writer.service('The permission request was cancelled', placeWith(place, { parent: key }));
      } else writer.skips.skip('unmatched-permission', 'a cancelled permission request of a call that ended');
      return;
    }
    if (error !== undefined) {
      if (this.#permissions.has(id)) {
        const key = this.#permissions.get(id)!;
        this.#permissions.delete(id);
        if (writer.isCallOpen(key))
          writer.service('The permission request failed', placeWith(place, { parent: key }));
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
    if (
      (prompt ?? PromptResultSchema.safeParse(result)).success ||
      (outcome ?? RequestPermissionResultSchema.safeParse(result)).success
    ) {
      writer.skips.skip('unmatched-permission', `a response to request ${typeName(id)} that is not pending`);
      return;
    }
    writer.skips.skip('not-displayed', 'a response that carries no transcript');
  }

  // --- turns ---

  #endTurn(status: TurnStatus, place: Placement): void {
    this.#flushText();
    this.#calls.writeHeld();
    if (this.#writer.openTurn !== undefined) this.#writer.endTurn(status, place);
    this.#inferredTurn = false;
    this.#cancelRequested = false;
    this.#calls.turnEnded();
  }

  /** Before agent output: a turn is opened by the writer if none is; one opened so is inferred. */
  #agentOutput(): void {
    if (this.#writer.openTurn === undefined) this.#inferredTurn = true;
  }

  #prompt(id: string | undefined, params: unknown, place: Placement): Step {
    const writer = this.#writer;
    const prompt = readPromptRequest(params);
    if (prompt === undefined) {
      writer.skips.skip('malformed-event', 'session/prompt');
      return;
    }
    this.#flushText();
    if (writer.openTurn !== undefined) {
      // The previous prompt got no response: it ends as the log's end would end it (see `end`).
      const cancelled = this.#cancelRequested || writer.openCalls().length > 0 || this.#calls.holding;
      this.#endTurn(cancelled ? 'cancelled' : 'completed', place);
    }
    let text = '';
    const blocks = eachStep(prompt.prompt, (block) => {
      if (block.type === 'text' && typeof block.text === 'string') {
        text = text.length > 0 ? `${text}\n\n${block.text}` : block.text;
        return;
      }
      if (text.length > 0) writer.userText(text, place);
      text = '';
      return writeContentBlock(writer, block, 'user', place);
    });
    return afterStep(blocks, () => {
      if (text.length > 0) writer.userText(text, place);
      writer.startTurn(place);
      this.#inferredTurn = false;
      this.#cancelRequested = false;
      if (id !== undefined) this.#prompts.add(id);
    });
  }

  // --- session/update ---

  #update(update: JsonObject, place: Placement): Step {
    const writer = this.#writer;
    const kind = update.sessionUpdate;
    switch (kind) {
      case 'user_message_chunk':
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        const chunk = readContentChunk(update);
        if (chunk === undefined) {
          writer.skips.skip('malformed-event', `${kind}`);
          return;
        }
        const chunkKind: ChunkKind =
          kind === 'user_message_chunk' ? 'user' : kind === 'agent_message_chunk' ? 'agent' : 'thought';
        return this.#chunk(chunkKind, chunk.content, chunk.messageId ?? undefined, place);
      }
      case 'tool_call':
      case 'tool_call_update': {
        const fields = readToolCallFields(update);
        if (fields === undefined) {
          writer.skips.skip('malformed-event', `${kind}`);
          return;
        }
        this.#flushText();
        return this.#calls.update(kind, fields, place);
      }
      case 'plan': {
        const plan = readPlanUpdate(update);
        if (plan === undefined) {
          writer.skips.skip('malformed-event', 'plan');
          return;
        }
        this.#flushText();
        this.#plans.write(
          writer,
          plan.entries.map((entry) => ({ text: entry.content, status: planStepStatus(entry.status) })),
          undefined,
          place,
        );
        return;
      }
      default:
        writer.skips.skip(
          typeof kind === 'string' && IGNORED_SESSION_UPDATES.has(kind) ? 'not-displayed' : 'unknown-event',
          `session update ${typeName(kind)}`,
        );
    }
  }

  #chunk(kind: ChunkKind, content: ContentBlock, messageId: string | undefined, place: Placement): Step {
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
    if (kind !== 'user') this.#agentOutput();
    return writeContentBlock(this.#writer, content, kind === 'user' ? 'user' : 'agent', place);
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
    this.#writer.agentText(
      buffer.text,
      placeWith(buffer.place, buffer.kind === 'thought' ? { thinking: true } : {}),
    );
  }

  // --- permissions ---

  #requestPermission(id: string | undefined, params: unknown, place: Placement): Step {
    const writer = this.#writer;
    const request = readRequestPermission(params);
    if (request === undefined) {
      writer.skips.skip('malformed-event', 'session/request_permission');
      return;
    }
    this.#flushText();
    const { toolCall } = request;
    const asked = this.#calls.asked(toolCall, place);
    if (asked === false) return;
    const options = request.options;
    if (asked === undefined) this.#askPermission(id, toolCall.toolCallId, options, place);
    else return asked.then(() => this.#askPermission(id, toolCall.toolCallId, options, place));
  }

  /** The permission request inside its (written) call. */
  #askPermission(
    id: string | undefined,
    key: string,
    acpOptions: readonly unknown[],
    place: Placement,
  ): void {
    const writer = this.#writer;
    const options = permissionOptions(acpOptions);
    if (options.length === 0) {
      writer.skips.skip('unmatched-permission', 'a permission request without an option v2 can carry');
      return;
    }
    if (writer.requestPermission(key, { options }, place) && id !== undefined) this.#permissions.set(id, key);
  }
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
