/**
 * Codex session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): `{ timestamp, type, payload }`
 * lines of `session_meta`, `turn_context`, `response_item` (the model's history: messages, reasoning,
 * function / custom / local-shell calls and their outputs, web searches), `event_msg` and `compacted`.
 * The response items are the history; the events that repeat them are skipped (see `event-reader.ts`).
 *
 * @module
 */
import { parseTimestamp } from '../iso-time.js';
import { placeWith } from '../place-with.js';
import { planStepStatus } from '../plan.js';
import { isJsonObject, type JsonObject, typeName } from '../provider-json.js';
import { RecentSet } from '../recent.js';
import type { Placement } from '../session-writer.js';
import { afterStep, eachStep, type Step } from '../steps.js';
import {
  CompactedSchema,
  RESPONSE_ITEM_READERS,
  RESPONSE_ITEM_SCHEMAS,
  type ResponseItem,
} from './codex-events.js';
import type { CodexSession } from './codex-session.js';
import {
  bashCall,
  customToolCall,
  functionCall,
  outputError,
  outputImages,
  parseArguments,
  webSearchCall,
} from './codex-tools.js';
import type { EventReader } from './event-reader.js';

type ItemOf<T extends ResponseItem['type']> = Extract<ResponseItem, { type: T }>;

// User-role history items Codex writes itself (environment, user and project instructions), not the user.
const INJECTED =
  /^(<(environment_context|user_instructions|INSTRUCTIONS|user_shell_command|turn_aborted|subagent_notification)\b|# AGENTS\.md instructions)/;

function isInjected(text: string): boolean {
  return INJECTED.test(text.trimStart());
}

/** One line of a Codex session rollout: `{ timestamp, type, payload }`. */
export interface RolloutLine extends JsonObject {
  timestamp: string;
  type: string;
  payload: unknown;
}

/** True when `event` has a rollout line's shape (`timestamp`, `type`, `payload`): all a line's own check. */
export function isRolloutLine(event: JsonObject): event is RolloutLine {
  return typeof event.timestamp === 'string' && 'payload' in event && typeof event.type === 'string';
}

/** Reads rollout lines into the session; their `event_msg` payloads go to the protocol event reader. */
export class RolloutReader {
  readonly #session: CodexSession;
  readonly #events: EventReader;
  /** `update_plan` calls: written as plans, their outputs skipped. */
  readonly #planCalls = new RecentSet<string>();

  constructor(session: CodexSession, events: EventReader) {
    this.#session = session;
    this.#events = events;
  }

  read(line: RolloutLine): Step {
    const session = this.#session;
    const skips = session.writer.skips;
    const parsedTime = parseTimestamp(line.timestamp);
    const place: Placement = Number.isNaN(parsedTime) ? {} : { time: parsedTime };
    const payload = line.payload;
    const type = line.type;
    switch (type) {
      case 'session_meta':
        skips.skip('not-displayed', 'session_meta');
        return;
      case 'turn_context':
        session.beginTurnOnce(place);
        return;
      case 'compacted':
        if (!CompactedSchema.safeParse(payload).success) skips.skip('malformed-event', 'compacted');
        else session.compaction(place);
        return;
      case 'event_msg':
        if (!isJsonObject(payload)) skips.skip('malformed-event', 'event_msg without a payload object');
        else return this.#events.read(payload, 'rollout', place);
        return;
      case 'response_item':
        return this.#responseItem(payload, place);
      default:
        skips.skip('unknown-event', `rollout line type ${typeName(type)}`);
    }
  }

  #responseItem(payload: unknown, place: Placement): Step {
    const session = this.#session;
    const writer = session.writer;
    const item: ResponseItem | undefined = session.parseTagged(
      RESPONSE_ITEM_SCHEMAS,
      payload,
      'response item',
      (type) => type === 'ghost_snapshot' || type === 'compaction' || type === 'other',
      RESPONSE_ITEM_READERS,
    );
    if (item === undefined) return;
    switch (item.type) {
      case 'message':
        return this.#message(item, place);
      case 'reasoning':
        this.#reasoning(item, place);
        return;
      case 'function_call':
        this.#functionCall(item, place);
        return;
      case 'custom_tool_call':
        session.wroteOutput();
        writer.startCall(item.call_id, customToolCall(item.name, item.input), place);
        return;
      case 'local_shell_call':
        this.#localShellCall(item, place);
        return;
      case 'function_call_output':
      case 'custom_tool_call_output':
        return this.#callOutput(item, place);
      case 'web_search_call':
        this.#webSearch(item, place);
        return;
    }
  }

  #message(item: ItemOf<'message'>, place: Placement): Step {
    const session = this.#session;
    const writer = session.writer;
    if (item.role !== 'user' && item.role !== 'assistant') {
      writer.skips.skip('not-displayed', `a ${typeName(item.role)} message (instructions)`);
      return;
    }
    const role = item.role === 'user' ? 'user' : 'agent';
    const parts: ({ text: string } | { image: string })[] = [];
    for (const part of item.content) {
      const isText = role === 'user' ? part.type === 'input_text' : part.type === 'output_text';
      if (isText && typeof part.text === 'string') {
        if (role === 'user' && isInjected(part.text)) {
          writer.skips.skip('not-displayed', 'context Codex injects into the history');
          continue;
        }
        const last = parts.at(-1);
        if (last && 'text' in last) last.text += `\n\n${part.text}`;
        else parts.push({ text: part.text });
      } else if (part.type === 'input_image' && typeof part.image_url === 'string') {
        parts.push({ image: part.image_url });
      } else {
        writer.skips.skip('unsupported-content', `message part ${typeName(part.type)}`);
      }
    }
    if (parts.length === 0) return;
    if (role === 'user' && !session.sawTurnMarker && writer.openTurn !== undefined) {
      // An old rollout without turn markers: a user message starts the next turn.
      session.endTurn(writer.openCalls().length > 0 ? 'cancelled' : 'completed', place);
    }
    session.wroteOutput();
    return eachStep(parts, (part) => {
      if ('image' in part) return writer.media(part.image, { role }, place);
      if (role === 'user') writer.userText(part.text, place);
      else writer.agentText(part.text, place);
    });
  }

  /** Reasoning: its summary, else its readable content; encrypted-only reasoning is not displayed. */
  #reasoning(item: ItemOf<'reasoning'>, place: Placement): void {
    const joined = (parts: readonly { text: string }[]) =>
      parts
        .map((part) => part.text)
        .filter((part) => part.length > 0)
        .join('\n\n');
    const text = joined(item.summary) || joined(item.content);
    if (text.length === 0) {
      this.#session.writer.skips.skip('not-displayed', 'reasoning without readable text (encrypted only)');
      return;
    }
    this.#session.wroteOutput();
    this.#session.writer.agentText(text, placeWith(place, { thinking: true }));
  }

  #functionCall(item: ItemOf<'function_call'>, place: Placement): void {
    const session = this.#session;
    const args = parseArguments(item.arguments);
    if (item.name === 'update_plan' && isJsonObject(args) && Array.isArray(args.plan)) {
      this.#planCalls.add(item.call_id);
      const steps = args.plan.filter(isJsonObject).map((step) => ({
        text: String(step.step ?? ''),
        status: planStepStatus(String(step.status ?? '')),
      }));
      session.plan(steps, typeof args.explanation === 'string' ? args.explanation : undefined, place);
      return;
    }
    session.wroteOutput();
    session.writer.startCall(item.call_id, functionCall(item.name, args), place);
  }

  #localShellCall(item: ItemOf<'local_shell_call'>, place: Placement): void {
    const session = this.#session;
    const key = item.call_id ?? item.id;
    if (!key) {
      session.writer.skips.skip('malformed-event', 'local_shell_call without an id');
      return;
    }
    session.wroteOutput();
    const { command, working_directory, timeout_ms } = item.action;
    session.writer.startCall(
      key,
      bashCall(command, {
        ...(working_directory ? { cwd: working_directory } : {}),
        ...(typeof timeout_ms === 'number' ? { timeout_ms } : {}),
      }),
      place,
    );
  }

  /** A call's output: its images inside the call, then its end (with the error the output shows). */
  #callOutput(item: ItemOf<'function_call_output' | 'custom_tool_call_output'>, place: Placement): Step {
    const writer = this.#session.writer;
    if (this.#planCalls.delete(item.call_id)) {
      writer.skips.skip('not-displayed', 'the output of update_plan');
      return;
    }
    if (!writer.isCallOpen(item.call_id)) {
      writer.endCall(item.call_id, place); // counts unknown-call / duplicate
      return;
    }
    const end = () => {
      const error = outputError(item.output);
      writer.endCall(item.call_id, error === undefined ? place : placeWith(place, { error }));
    };
    const images = outputImages(item.output);
    if (images.length === 0) return end();
    return afterStep(
      eachStep(images, (image) =>
        writer.media(image, { role: 'agent' }, placeWith(place, { parent: item.call_id })),
      ),
      end,
    );
  }

  #webSearch(item: ItemOf<'web_search_call'>, place: Placement): void {
    const session = this.#session;
    const writer = session.writer;
    const query = item.action?.query ?? '';
    const key = item.id ?? `web-search-${writer.messageCount}`;
    session.wroteOutput();
    if (
      writer.startCall(key, webSearchCall(query), placeWith(place, { ifEnded: 'new-call' })) !== undefined
    ) {
      writer.endCall(key, placeWith(place, item.status === 'failed' ? { error: 'The search failed' } : {}));
    }
  }
}
