/**
 * Codex's protocol events (`EventMsg`): what `codex mcp` / `codex proto` send a client, bare or as
 * `{ id, msg }`, and what a rollout keeps as `event_msg` lines. Task lifecycle, messages, reasoning,
 * command / patch / MCP / web-search / collab begin and end, approval requests, plans, errors.
 *
 * @module
 */
import { placeWith } from '../place-with.js';
import { planStepStatus } from '../plan.js';
import { type JsonObject, typeName } from '../provider-json.js';
import type { Placement } from '../session-writer.js';
import { afterStep, eachStep, type Step } from '../steps.js';
import { MAX_DESCRIPTION_LENGTH, shortText } from '../titles.js';
import {
  EVENT_MSG_READERS,
  EVENT_MSG_SCHEMAS,
  type EventMsg,
  IGNORED_EVENT_MSG_TYPES,
} from './codex-events.js';
import { type CodexSession, execApprovalOptions, PATCH_APPROVAL_OPTIONS } from './codex-session.js';
import {
  agentStatusError,
  bashCall,
  collabCall,
  commandExtras,
  exitCodeError,
  mcpCall,
  mcpImages,
  patchCall,
} from './codex-tools.js';

/** Where an event was read: on its own, or inside a rollout (where the response items hold the history). */
export type EventSource = 'rollout' | 'events';

type EventOf<T extends EventMsg['type']> = Extract<EventMsg, { type: T }>;
type TextEvent = EventOf<
  'agent_message' | 'agent_reasoning' | 'agent_reasoning_raw_content' | 'user_message'
>;
type ToolEvent = EventOf<
  | 'exec_command_begin'
  | 'exec_command_end'
  | 'patch_apply_begin'
  | 'patch_apply_end'
  | 'web_search_begin'
  | 'web_search_end'
>;
type McpEvent = EventOf<'mcp_tool_call_begin' | 'mcp_tool_call_end'>;
type ApprovalRequest = EventOf<'exec_approval_request' | 'apply_patch_approval_request'>;
type LifecycleEvent = Exclude<EventMsg, TextEvent | ToolEvent | McpEvent | ApprovalRequest>;

/** Rollout events that repeat what a response item already says. */
const ROLLOUT_DUPLICATES: ReadonlySet<string> = new Set([
  'user_message',
  'agent_message',
  'agent_reasoning',
  'agent_reasoning_raw_content',
  'exec_command_begin',
  'exec_command_end',
  'patch_apply_begin',
  'patch_apply_end',
  'mcp_tool_call_begin',
  'mcp_tool_call_end',
  'web_search_begin',
  'web_search_end',
]);

/** Reads protocol events into the session. */
export class EventReader {
  readonly #session: CodexSession;

  constructor(session: CodexSession) {
    this.#session = session;
  }

  read(raw: JsonObject, source: EventSource, place: Placement): Step {
    const event = this.#parse(raw, place);
    if (event === undefined) return;
    // A rollout keeps the model's history as response items; these events repeat it (and, in newer
    // rollouts, the tool begin/end events repeat the calls). The response items are mapped.
    if (source === 'rollout' && ROLLOUT_DUPLICATES.has(event.type)) {
      this.#session.writer.skips.skip(
        'duplicate',
        `rollout event ${event.type} (its response item is mapped)`,
      );
      return;
    }
    switch (event.type) {
      case 'agent_message':
      case 'agent_reasoning':
      case 'agent_reasoning_raw_content':
      case 'user_message':
        return this.#text(event, place);
      case 'exec_command_begin':
      case 'exec_command_end':
      case 'patch_apply_begin':
      case 'patch_apply_end':
      case 'web_search_begin':
      case 'web_search_end':
        this.#toolCall(event, place);
        return;
      case 'mcp_tool_call_begin':
      case 'mcp_tool_call_end':
        return this.#mcpCall(event, place);
      case 'exec_approval_request':
      case 'apply_patch_approval_request':
        this.#approvalRequest(event, place);
        return;
      default:
        this.#lifecycle(event, place);
    }
  }

  /** The event parsed by its schema; `undefined` (counted, or read as a collab event) otherwise. */
  #parse(raw: JsonObject, place: Placement): EventMsg | undefined {
    const type = raw.type;
    if (typeof type !== 'string') {
      this.#session.writer.skips.skip('unknown-event', 'an event without a type');
      return undefined;
    }
    if (!Object.hasOwn(EVENT_MSG_SCHEMAS, type) && /^collab_[a-z_]+_(begin|end)$/.test(type)) {
      this.#collab(type, raw, place);
      return undefined;
    }
    return this.#session.parseTagged(
      EVENT_MSG_SCHEMAS,
      raw,
      'event',
      (name) => IGNORED_EVENT_MSG_TYPES.has(name as string),
      EVENT_MSG_READERS,
    );
  }

  /** Turn lifecycle, errors, plans and session notes. */
  #lifecycle(event: LifecycleEvent, place: Placement): void {
    const session = this.#session;
    switch (event.type) {
      case 'task_started':
      case 'turn_started':
        session.beginTurnOnce(place);
        return;
      case 'task_complete':
      case 'turn_complete':
        session.completeTurn(place);
        return;
      case 'turn_aborted':
        session.endTurn('cancelled', place);
        return;
      case 'error':
        session.error(event.message, place);
        return;
      case 'warning':
      case 'stream_error':
        session.writer.service(event.message, place);
        return;
      case 'plan_update':
        session.plan(
          event.plan.map((step) => ({ text: step.step, status: planStepStatus(step.status) })),
          event.explanation,
          place,
        );
        return;
      case 'context_compacted':
        session.compaction(place);
        return;
      case 'thread_rolled_back':
        session.writer.service(
          `Rolled back the last ${event.num_turns} turn${event.num_turns === 1 ? '' : 's'}`,
          place,
        );
        return;
      case 'undo_completed':
        session.writer.service(event.message ?? (event.success ? 'Undo completed' : 'Undo failed'), place);
        return;
    }
  }

  /** The agent's messages and reasoning, and the user's message (with its images). */
  #text(event: TextEvent, place: Placement): Step {
    const writer = this.#session.writer;
    this.#session.wroteOutput();
    switch (event.type) {
      case 'agent_message':
        writer.agentText(event.message, place);
        return;
      case 'agent_reasoning':
      case 'agent_reasoning_raw_content':
        writer.agentText(event.text, placeWith(place, { thinking: true }));
        return;
      case 'user_message':
        if (event.message.length > 0) writer.userText(event.message, place);
        return eachStep(event.images ?? [], (image) => writer.media(image, { role: 'user' }, place));
    }
  }

  /** Command, patch and web-search begin and end. */
  #toolCall(event: ToolEvent, place: Placement): void {
    const session = this.#session;
    switch (event.type) {
      case 'exec_command_begin':
        session.startOnce(event.call_id, bashCall(event.command, commandExtras(event)), place);
        return;
      case 'exec_command_end': {
        const error = exitCodeError(event.exit_code);
        session.callEnded(event.call_id);
        session.writer.endCall(event.call_id, placeWith(place, error === undefined ? {} : { error }));
        return;
      }
      case 'patch_apply_begin':
        session.startOnce(
          event.call_id,
          patchCall(
            event.changes,
            event.auto_approved === undefined ? {} : { auto_approved: event.auto_approved },
          ),
          place,
        );
        return;
      case 'patch_apply_end':
        session.callEnded(event.call_id);
        session.writer.endCall(
          event.call_id,
          placeWith(
            place,
            event.success
              ? {}
              : {
                  error: event.stderr
                    ? shortText(event.stderr, MAX_DESCRIPTION_LENGTH)
                    : 'The patch could not be applied',
                },
          ),
        );
        return;
      case 'web_search_begin':
        session.searchBegan(event.call_id, place);
        return;
      case 'web_search_end':
        session.searchEnded(event.call_id, event.query, place);
        return;
    }
  }

  /** MCP begin and end: the result's images inside the call, then its end. */
  #mcpCall(event: McpEvent, place: Placement): Step {
    const session = this.#session;
    const writer = session.writer;
    const key = event.call_id;
    if (event.type === 'mcp_tool_call_begin') {
      const { server, tool, arguments: args } = event.invocation;
      session.startOnce(key, mcpCall(server, tool, args), place);
      return;
    }
    if (!writer.isCallOpen(key) && event.invocation) {
      // An end without its begin (Codex itself synthesises the item then): start it first.
      const { server, tool, arguments: args } = event.invocation;
      session.startOnce(key, mcpCall(server, tool, args), place);
    }
    let error: string | undefined;
    const result = event.result;
    let images: { data: string; mimeType?: string }[] = [];
    if (result && 'Ok' in result) {
      if (writer.isCallOpen(key)) images = mcpImages(result.Ok.content);
      if (result.Ok.isError === true || result.Ok.is_error === true) error = 'The MCP tool reported an error';
    } else if (result && 'Err' in result) {
      error = shortText(result.Err, MAX_DESCRIPTION_LENGTH) || 'The MCP tool call failed';
    }
    const uploads = eachStep(images, (image) =>
      writer.media(
        image.data,
        { role: 'agent', ...(image.mimeType ? { mimeType: image.mimeType } : {}) },
        placeWith(place, { parent: key }),
      ),
    );
    return afterStep(uploads, () => {
      writer.endCall(key, placeWith(place, error === undefined ? {} : { error }));
    });
  }

  /** An approval request: the call's start (Codex asks before it begins), then the request inside it. */
  #approvalRequest(event: ApprovalRequest, place: Placement): void {
    const session = this.#session;
    if (event.type === 'exec_approval_request') {
      session.startOnce(event.call_id, bashCall(event.command, commandExtras(event)), place);
      session.requestApproval(
        event.call_id,
        execApprovalOptions(event.proposed_execpolicy_amendment),
        event.reason,
        place,
      );
      return;
    }
    session.startOnce(event.call_id, patchCall(event.changes), place);
    session.requestApproval(
      event.call_id,
      PATCH_APPROVAL_OPTIONS,
      event.reason ??
        (event.grant_root ? `Allow writes under ${event.grant_root} for this session` : undefined),
      place,
    );
  }

  /** `collab_*_begin` / `collab_*_end` (calls to another Codex agent), read without a schema of their own. */
  #collab(type: string, raw: JsonObject, place: Placement): void {
    const session = this.#session;
    const key = raw.call_id;
    if (typeof key !== 'string' || key.length === 0) {
      session.writer.skips.skip('malformed-event', `event ${typeName(type)}`);
      return;
    }
    const kind = type
      .slice('collab_'.length)
      .replace(/_(begin|end)$/, '')
      .replace(/^agent_/, '');
    if (type.endsWith('_begin')) {
      const prompt = typeof raw.prompt === 'string' ? raw.prompt : undefined;
      const { type: _type, call_id: _callId, ...args } = raw;
      session.startOnce(key, collabCall(kind, prompt, args), place);
      return;
    }
    const error = agentStatusError(raw.status);
    session.writer.endCall(key, placeWith(place, error === undefined ? {} : { error }));
  }
}
