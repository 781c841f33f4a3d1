/**
 * `codex exec --json`, the non-interactive CLI's JSON Lines: `thread.started`, `turn.started` /
 * `turn.completed` / `turn.failed`, and `item.started` / `item.updated` / `item.completed` of its thread
 * items (agent messages, reasoning, plans, command executions, file changes, MCP tool calls, collab
 * calls, web searches, to-do lists, errors).
 *
 * @module
 */
import { placeWith } from '../place-with.js';
import { type JsonObject, typeName } from '../provider-json.js';
import { RecentMap } from '../recent.js';
import type { CallFields, Placement } from '../session-writer.js';
import { afterStep, eachStep, type Step } from '../steps.js';
import { EXEC_EVENT_SCHEMAS, EXEC_ITEM_SCHEMAS, type ExecItem } from './codex-events.js';
import type { CodexSession } from './codex-session.js';
import {
  bashCall,
  collabCall,
  exitCodeError,
  mcpCall,
  mcpImages,
  patchCall,
  webSearchCall,
} from './codex-tools.js';

/** A `codex exec --json` event type the reader knows (`error` is read as a protocol event). */
export type ExecEventType = keyof typeof EXEC_EVENT_SCHEMAS;

/** True when `type` names an exec event (a dotted type such as `turn.started`, or `thread.started`). */
export function isExecEventType(type: unknown): type is ExecEventType {
  return typeof type === 'string' && type !== 'error' && Object.hasOwn(EXEC_EVENT_SCHEMAS, type);
}

type Phase = 'started' | 'updated' | 'completed';
type ItemOf<T extends ExecItem['type']> = Extract<ExecItem, { type: T }>;

/** Reads `codex exec --json` events into the session. */
export class ExecReader {
  readonly #session: CodexSession;
  /** `codex exec` runs seen (`thread.started`): item ids (`item_0`, …) restart with each run. */
  #run = 0;
  /** The run each item id was last started in. */
  readonly #itemRuns = new RecentMap<string, number>();

  constructor(session: CodexSession) {
    this.#session = session;
  }

  read(type: ExecEventType, event: JsonObject, place: Placement): Step {
    const session = this.#session;
    const parsed = EXEC_EVENT_SCHEMAS[type].safeParse(event);
    if (!parsed.success) {
      session.writer.skips.skip('malformed-event', `exec event ${typeName(type)}`);
      return;
    }
    switch (type) {
      case 'thread.started':
        this.#run += 1;
        session.writer.skips.skip('not-displayed', 'thread.started');
        return;
      case 'turn.started':
        session.beginTurn(place);
        return;
      case 'turn.completed':
        session.completeTurn(place);
        return;
      case 'turn.failed':
        session.turnFailed((parsed.data as { error?: { message: string } }).error?.message, place);
        return;
      default: {
        const phase = type.slice('item.'.length) as Phase;
        return this.#item(phase, (parsed.data as { item: unknown }).item, place);
      }
    }
  }

  #item(phase: Phase, raw: unknown, place: Placement): Step {
    const writer = this.#session.writer;
    const item: ExecItem | undefined = this.#session.parseTagged(EXEC_ITEM_SCHEMAS, raw, 'exec item');
    if (item === undefined) return;
    switch (item.type) {
      case 'agent_message':
      case 'reasoning':
      case 'plan':
        this.#text(phase, item, place);
        return;
      case 'error':
        writer.service(item.message, place);
        return;
      case 'todo_list':
        this.#session.plan(
          item.items.map((todo) => ({ text: todo.text, status: todo.completed ? 'done' : 'todo' })),
          undefined,
          place,
        );
        return;
      case 'command_execution':
        this.#command(phase, item, place);
        return;
      case 'mcp_tool_call':
        return this.#mcpCall(phase, item, place);
      case 'collab_tool_call':
        this.#collabCall(phase, item, place);
        return;
      case 'web_search':
        if (!this.#startOnce(item.id, webSearchCall(item.query), place)) return;
        if (phase === 'completed') writer.endCall(item.id, place);
        return;
      case 'file_change':
        this.#fileChange(phase, item, place);
        return;
    }
  }

  /** Starts the item's call unless it is open; false when the event repeats an ended call. */
  #startOnce(key: string, fields: CallFields, place: Placement): boolean {
    const writer = this.#session.writer;
    if (writer.isCallOpen(key)) return true;
    // The same id in a later run is a new call; in the same run it is a repeated event.
    const ifEnded = this.#itemRuns.get(key) === this.#run ? 'duplicate' : 'new-call';
    if (writer.startCall(key, fields, placeWith(place, { ifEnded })) === undefined) return false;
    this.#itemRuns.set(key, this.#run);
    return true;
  }

  #text(phase: Phase, item: ItemOf<'agent_message' | 'reasoning' | 'plan'>, place: Placement): void {
    const writer = this.#session.writer;
    if (phase !== 'completed') {
      writer.skips.skip('not-displayed', `${item.type} ${phase}: the completed item follows`);
      return;
    }
    this.#session.wroteOutput();
    writer.agentText(item.text, placeWith(place, item.type === 'reasoning' ? { thinking: true } : {}));
  }

  #command(phase: Phase, item: ItemOf<'command_execution'>, place: Placement): void {
    if (phase === 'updated') {
      this.#session.writer.skips.skip('not-displayed', 'command_execution output so far');
      return;
    }
    if (!this.#startOnce(item.id, bashCall(item.command), place) || phase !== 'completed') return;
    const error =
      item.status === 'declined'
        ? 'The command was declined'
        : item.status === 'failed' || exitCodeError(item.exit_code) !== undefined
          ? typeof item.exit_code === 'number'
            ? `Command exited with code ${item.exit_code}`
            : 'The command failed'
          : undefined;
    this.#session.writer.endCall(item.id, placeWith(place, error === undefined ? {} : { error }));
  }

  #mcpCall(phase: Phase, item: ItemOf<'mcp_tool_call'>, place: Placement): Step {
    const writer = this.#session.writer;
    if (phase === 'updated') {
      writer.skips.skip('not-displayed', 'mcp_tool_call progress');
      return;
    }
    if (!this.#startOnce(item.id, mcpCall(item.server, item.tool, item.arguments), place)) return;
    if (phase !== 'completed') return;
    const images = eachStep(mcpImages(item.result?.content ?? []), (image) =>
      writer.media(
        image.data,
        { role: 'agent', ...(image.mimeType ? { mimeType: image.mimeType } : {}) },
        placeWith(place, { parent: item.id }),
      ),
    );
    return afterStep(images, () => {
      const error =
        item.error?.message ?? (item.status === 'failed' ? 'The MCP tool call failed' : undefined);
      writer.endCall(item.id, placeWith(place, error === undefined ? {} : { error }));
    });
  }

  #collabCall(phase: Phase, item: ItemOf<'collab_tool_call'>, place: Placement): void {
    const writer = this.#session.writer;
    if (phase === 'updated') {
      writer.skips.skip('not-displayed', 'collab_tool_call progress');
      return;
    }
    const fields = collabCall(item.tool, item.prompt, {
      tool: item.tool,
      receiverThreadIds: item.receiver_thread_ids,
      ...(item.prompt ? { prompt: item.prompt } : {}),
    });
    if (!this.#startOnce(item.id, fields, place) || phase !== 'completed') return;
    writer.endCall(
      item.id,
      placeWith(place, item.status === 'failed' ? { error: 'The subagent call failed' } : {}),
    );
  }

  #fileChange(phase: Phase, item: ItemOf<'file_change'>, place: Placement): void {
    const changes: JsonObject = {};
    for (const change of item.changes) changes[change.path] = { type: change.kind };
    if (!this.#startOnce(item.id, patchCall(changes), place) || phase !== 'completed') return;
    this.#session.writer.endCall(
      item.id,
      placeWith(place, item.status === 'failed' ? { error: 'The patch could not be applied' } : {}),
    );
  }
}
