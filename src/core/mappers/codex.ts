/**
 * The Codex mapper: what OpenAI's Codex CLI writes, into Session Protocol v2. It reads, line by line
 * and in any mix:
 *
 * - `codex exec --json` events: `turn.started` / `turn.completed` / `turn.failed`, `item.started` /
 *   `item.updated` / `item.completed` of agent messages, reasoning, command executions, file changes,
 *   MCP tool calls, web searches, to-do lists, collab (subagent) calls and errors;
 * - session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): `{ timestamp, type, payload }`
 *   lines of `session_meta`, `turn_context`, `response_item` (the model's history: messages, reasoning,
 *   function / custom / local-shell calls and their outputs, web searches), `event_msg` and `compacted`;
 * - protocol events (`EventMsg`), bare or as `{ id, msg }` (what `codex mcp` and `codex proto` send):
 *   task lifecycle, messages, reasoning, command / patch / MCP / web-search begin and end, approval
 *   requests, plans, errors; and approval answers as submissions `{ id, op: { type: 'exec_approval' |
 *   'patch_approval', id, decision } }`.
 *
 * Happy's legacy `{ type: 'codex', data }` records (`message`, `reasoning`, `tool-call`,
 * `tool-call-result`) go through {@link ProviderMapper.pushLegacy}.
 *
 * Every decision where the design leaves room is in docs/mappers.md ("Codex").
 *
 * @module
 */
import type { PermissionOption, TurnStatus } from '../protocol/index.js';
import type { EventContext, MapperProvider, ProviderMapper } from './agent-mapper.js';
import {
  ApprovalSubmissionSchema,
  CompactedSchema,
  EVENT_MSG_SCHEMAS,
  type EventMsg,
  EXEC_EVENT_SCHEMAS,
  EXEC_ITEM_SCHEMAS,
  type ExecItem,
  IGNORED_EVENT_MSG_TYPES,
  RESPONSE_ITEM_SCHEMAS,
  type ResponseItem,
  RolloutLineSchema,
} from './codex-events.js';
import type { CallFields, Placement, SessionWriter } from './session-writer.js';
import { codeSpan, MAX_DESCRIPTION_LENGTH, shortPath, shortText } from './titles.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A type name fit for a skip's detail: bounded, never message text. */
function typeName(value: unknown): string {
  return typeof value === 'string' ? `"${value.slice(0, 48)}"` : typeof value;
}

// --- tool calls: names, titles, args ----------------------------------------------------------------

const SHELLS = new Set([
  'bash',
  'sh',
  'zsh',
  '/bin/bash',
  '/bin/sh',
  '/bin/zsh',
  '/usr/bin/bash',
  'pwsh',
  'powershell',
]);

/** The command a person reads: `bash -lc 'x'` shows as `x`, other argv joined with shell quoting. */
function commandText(command: unknown): string {
  if (typeof command === 'string') {
    // `codex exec --json` joins argv with shell quoting: `bash -lc 'npm test'` shows as `npm test`.
    const wrapped = /^(?:\/bin\/|\/usr\/bin\/)?(?:bash|sh|zsh) -l?c (.+)$/s.exec(command);
    if (!wrapped) return command;
    const script = wrapped[1]!;
    return /^'.*'$/s.test(script) ? script.slice(1, -1).replace(/'\\''/g, "'") : script;
  }
  if (!Array.isArray(command)) return '';
  const parts = command.filter((part): part is string => typeof part === 'string');
  if (parts.length === 3 && SHELLS.has(parts[0]!) && /^-l?c$/.test(parts[1]!)) return parts[2]!;
  return parts
    .map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

function bashCall(command: unknown, extra: Json = {}): CallFields {
  const text = commandText(command);
  return {
    toolName: 'CodexBash',
    title: text.length > 0 ? `Run ${codeSpan(text)}` : 'Run a command',
    description: shortText(text, MAX_DESCRIPTION_LENGTH),
    args: { command: command ?? text, ...extra },
  };
}

function patchCall(changes: Json, extra: Json = {}): CallFields {
  const paths = Object.keys(changes);
  const title = paths.length === 1 ? `Edit ${codeSpan(shortPath(paths[0]!))}` : `Edit ${paths.length} files`;
  return {
    toolName: 'CodexPatch',
    title,
    description: shortText(paths.join(', '), MAX_DESCRIPTION_LENGTH),
    args: { changes, ...extra },
  };
}

function mcpCall(server: string, tool: string, args: unknown): CallFields {
  return {
    toolName: `mcp__${server}__${tool}`,
    title: shortText(`${server}.${tool}`),
    description: `MCP tool ${tool} of server ${server}`,
    args: args === null || args === undefined ? {} : args,
  };
}

function webSearchCall(query: string): CallFields {
  return {
    toolName: 'WebSearch',
    title: query.length > 0 ? `Search the web for ${codeSpan(query)}` : 'Search the web',
    description: shortText(query, MAX_DESCRIPTION_LENGTH),
    args: { query },
  };
}

const COLLAB_TITLES: Record<string, string> = {
  spawn_agent: 'Start a subagent',
  spawn: 'Start a subagent',
  send_input: 'Message a subagent',
  interaction: 'Message a subagent',
  wait: 'Wait for a subagent',
  waiting: 'Wait for a subagent',
  close_agent: 'Close a subagent',
  close: 'Close a subagent',
};

function collabCall(tool: string, prompt: string | null | undefined, args: Json): CallFields {
  const spawns = tool === 'spawn_agent' || tool === 'spawn';
  return {
    toolName: 'CodexSubagent',
    title: COLLAB_TITLES[tool] ?? 'Subagent',
    description: prompt ? shortText(prompt, MAX_DESCRIPTION_LENGTH) : '',
    args,
    ...(spawns && prompt ? { agentTitle: shortText(prompt, 60) } : {}),
  };
}

/** The paths of an `apply_patch` input (`*** Add File: path`, …) as a changes record. */
function patchChanges(patch: string): Json {
  const changes: Json = {};
  for (const match of patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)) {
    changes[match[2]!.trim()] = { type: match[1]!.toLowerCase() };
  }
  return changes;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.length > 0 ? { input: text } : {};
  }
}

/** A rollout `function_call` as a call start (plans are handled before this). */
function functionCall(name: string, args: unknown): CallFields {
  const fields = isObject(args) ? args : {};
  switch (name) {
    case 'shell':
    case 'container.exec':
    case 'local_shell':
    case 'shell_command': {
      const { command, workdir, ...rest } = fields;
      return bashCall(command, { ...(workdir === undefined ? {} : { cwd: workdir }), ...rest });
    }
    case 'exec_command': {
      const { cmd, workdir, ...rest } = fields;
      return bashCall(cmd, { ...(workdir === undefined ? {} : { cwd: workdir }), ...rest });
    }
    case 'apply_patch': {
      const patch = typeof fields.input === 'string' ? fields.input : '';
      return patchCall(patchChanges(patch), { patch });
    }
    case 'view_image': {
      const path = typeof fields.path === 'string' ? fields.path : '';
      return {
        toolName: 'view_image',
        title: path ? `View ${codeSpan(shortPath(path))}` : 'View an image',
        description: path,
        args,
      };
    }
    default:
      return { toolName: name, title: shortText(name), description: '', args };
  }
}

// --- results --------------------------------------------------------------------------------------

/** The error of a command result: a non-zero exit code in Codex's JSON or text output forms. */
function outputError(output: unknown): string | undefined {
  if (isObject(output)) {
    if (output.success === false) {
      return typeof output.content === 'string' && output.content.length > 0
        ? shortText(output.content, MAX_DESCRIPTION_LENGTH)
        : 'The tool call failed';
    }
    return undefined;
  }
  if (typeof output !== 'string') return undefined;
  if (output.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(output);
      const exit = isObject(parsed) && isObject(parsed.metadata) ? parsed.metadata.exit_code : undefined;
      if (typeof exit === 'number' && exit !== 0) return `Command exited with code ${exit}`;
      return undefined;
    } catch {
      // plain text that happens to start with a brace
    }
  }
  const exit = /^Exit code: (-?\d+)/.exec(output);
  if (exit && exit[1] !== '0') return `Command exited with code ${exit[1]}`;
  return undefined;
}

/** The images of a function output given as a content-item list (`input_image` data URLs). */
function outputImages(output: unknown): string[] {
  const items = Array.isArray(output)
    ? output
    : isObject(output) && Array.isArray(output.content_items)
      ? output.content_items
      : [];
  const images: string[] = [];
  for (const item of items) {
    if (isObject(item) && item.type === 'input_image' && typeof item.image_url === 'string')
      images.push(item.image_url);
  }
  return images;
}

/** MCP content blocks of type `image` (`{ type, data, mimeType }`). */
function mcpImages(content: readonly unknown[]): { data: string; mimeType?: string }[] {
  const images: { data: string; mimeType?: string }[] = [];
  for (const block of content) {
    if (isObject(block) && block.type === 'image' && typeof block.data === 'string') {
      images.push({
        data: block.data,
        ...(typeof block.mimeType === 'string' ? { mimeType: block.mimeType } : {}),
      });
    }
  }
  return images;
}

/** `AgentStatus` of a collab event: an error message when the agent errored. */
function agentStatusError(status: unknown): string | undefined {
  if (isObject(status) && typeof status.errored === 'string') return status.errored || 'The subagent failed';
  if (status === 'errored' || status === 'not_found')
    return `The subagent ${status === 'errored' ? 'failed' : 'was not found'}`;
  return undefined;
}

// --- plans ----------------------------------------------------------------------------------------

/**
 * A plan as the text of a `service` message: a markdown checklist (`- [x] done`, `- [ ] next (in
 * progress)`). Shared by the Codex and ACP mappers, so a plan reads the same from either.
 *
 * @example
 * ```ts
 * planText([{ text: 'Run the tests', status: 'doing' }]); // 'Plan:\n- [ ] Run the tests (in progress)'
 * ```
 */
export function planText(
  steps: readonly { text: string; status: 'done' | 'doing' | 'todo' }[],
  explanation?: string | null,
): string {
  const lines = ['Plan:'];
  if (explanation) lines.push(explanation);
  for (const step of steps) {
    lines.push(
      `- [${step.status === 'done' ? 'x' : ' '}] ${step.text}${step.status === 'doing' ? ' (in progress)' : ''}`,
    );
  }
  return lines.join('\n');
}

function planStatus(status: string): 'done' | 'doing' | 'todo' {
  return status === 'completed' ? 'done' : status === 'in_progress' ? 'doing' : 'todo';
}

// --- approvals ------------------------------------------------------------------------------------

/** The options of a command approval; ids are Codex's `ReviewDecision` names. */
function execApprovalOptions(amendment: readonly string[] | null | undefined): PermissionOption[] {
  return [
    { id: 'approved', label: 'Yes, run it', kind: 'allow-once' },
    ...(amendment && amendment.length > 0
      ? [
          {
            id: 'approved_execpolicy_amendment',
            label: `Yes, and always allow commands starting with ${codeSpan(amendment.join(' '))}`,
            kind: 'allow-always' as const,
          },
        ]
      : []),
    { id: 'approved_for_session', label: "Yes, and don't ask again this session", kind: 'allow-always' },
    { id: 'denied', label: 'No, continue without it', kind: 'reject-once' },
    { id: 'abort', label: 'No, and stop', kind: 'reject-once' },
  ];
}

const PATCH_APPROVAL_OPTIONS: PermissionOption[] = [
  { id: 'approved', label: 'Yes, apply it', kind: 'allow-once' },
  { id: 'approved_for_session', label: "Yes, and don't ask again for these files", kind: 'allow-always' },
  { id: 'denied', label: 'No, continue without it', kind: 'reject-once' },
  { id: 'abort', label: 'No, and stop', kind: 'reject-once' },
];

/** The option id of a `ReviewDecision`: the string, or the one key of its object form. */
function decisionId(decision: unknown): string | undefined {
  if (typeof decision === 'string') return decision;
  if (isObject(decision)) return Object.keys(decision)[0];
  return undefined;
}

// --- injected context ---------------------------------------------------------------------------

// User-role history items Codex writes itself (environment, user and project instructions), not the user.
const INJECTED =
  /^(<(environment_context|user_instructions|INSTRUCTIONS|user_shell_command|turn_aborted|subagent_notification)\b|# AGENTS\.md instructions)/;

function isInjected(text: string): boolean {
  return INJECTED.test(text.trimStart());
}

// --- the mapper -----------------------------------------------------------------------------------

type Source = 'rollout' | 'events';

class CodexMapper implements ProviderMapper {
  readonly #writer: SessionWriter;
  /** A turn boundary was read (`turn.started`, `task_started`, `turn_context`) and its turn not yet written. */
  #turnRequested = false;
  /** An error was reported in this turn: it ends `failed`. */
  #turnFailed = false;
  /** A turn marker was seen: user messages then no longer split turns. */
  #sawTurnMarker = false;
  /** The last error text written, so `turn.failed` does not repeat the `error` before it. */
  #lastError: string | undefined;
  /** Web searches begun and not yet ended (their query comes with the end). */
  readonly #searches = new Map<string, Placement>();
  /** Calls with a pending approval (call id), for answers that name the turn instead of the call. */
  readonly #approvals = new Set<string>();
  /** Rollout `update_plan` calls: written as plans, their outputs skipped. */
  readonly #planCalls = new Set<string>();
  /** `codex exec` runs seen (`thread.started`): item ids (`item_0`, …) restart with each run. */
  #run = 0;
  /** The run each exec item id was last started in. */
  readonly #itemRuns = new Map<string, number>();
  /** The last plan written, so an unchanged plan is not repeated. */
  #lastPlan: string | undefined;
  /** A compaction was noted and nothing written since (rollouts write `compacted` and `context_compacted`). */
  #compactionNoted = false;

  constructor(writer: SessionWriter) {
    this.#writer = writer;
  }

  async push(event: unknown, context: EventContext): Promise<void> {
    const time = context.time;
    if (!isObject(event)) {
      this.#writer.skips.skip('unknown-event', `a ${typeName(event)} instead of an object`);
      return;
    }
    if (typeof event.timestamp === 'string' && 'payload' in event && typeof event.type === 'string') {
      await this.#rollout(event);
      return;
    }
    if (isObject(event.msg)) {
      await this.#eventMsg(event.msg, 'events', { time });
      return;
    }
    if (isObject(event.op)) {
      this.#submission(event, { time });
      return;
    }
    const type = event.type;
    if (typeof type === 'string' && type !== 'error' && Object.hasOwn(EXEC_EVENT_SCHEMAS, type)) {
      await this.#exec(type as keyof typeof EXEC_EVENT_SCHEMAS, event, { time });
      return;
    }
    if (typeof type === 'string') {
      await this.#eventMsg(event, 'events', { time });
      return;
    }
    this.#writer.skips.skip('unknown-event', 'an object without a type');
  }

  async pushLegacy(data: unknown, context: EventContext): Promise<void> {
    const place: Placement = { time: context.time };
    const writer = this.#writer;
    if (!isObject(data) || typeof data.type !== 'string') {
      writer.skips.skip('unknown-event', 'a legacy codex record without a type');
      return;
    }
    switch (data.type) {
      case 'message':
      case 'reasoning':
        if (typeof data.message !== 'string') break;
        if (data.message.length > 0) {
          writer.agentText(data.message, {
            ...place,
            ...(data.type === 'reasoning' ? { thinking: true } : {}),
          });
        } else writer.skips.skip('not-displayed', `an empty legacy codex ${data.type}`);
        return;
      case 'tool-call': {
        if (typeof data.callId !== 'string' || typeof data.name !== 'string') break;
        writer.startCall(data.callId, legacyToolCall(data.name, data.input), place);
        return;
      }
      case 'tool-call-result': {
        if (typeof data.callId !== 'string') break;
        const output = isObject(data.output) ? data.output : {};
        const cancelled = output.status === 'canceled' || output.status === 'cancelled';
        writer.endCall(data.callId, {
          ...place,
          ...(cancelled ? { error: 'The tool call was cancelled' } : {}),
        });
        return;
      }
      default:
        writer.skips.skip('unknown-event', `legacy codex record type ${typeName(data.type)}`);
        return;
    }
    writer.skips.skip('malformed-event', `legacy codex record type ${typeName(data.type)}`);
  }

  end(): void {
    this.#flushSearches();
  }

  // --- turns ---

  #beginTurn(place: Placement): void {
    this.#sawTurnMarker = true;
    if (this.#writer.openTurn !== undefined) {
      this.#endTurn(this.#writer.openCalls().length > 0 ? 'cancelled' : 'completed', place);
    }
    this.#turnRequested = true;
    this.#turnFailed = false;
  }

  /** A turn marker that may repeat one just read (`turn_context` and `task_started` both mark a rollout turn). */
  #beginTurnOnce(place: Placement): void {
    if (this.#turnRequested && this.#writer.openTurn === undefined) return;
    this.#beginTurn(place);
  }

  #endTurn(status: TurnStatus, place: Placement): void {
    const writer = this.#writer;
    this.#flushSearches();
    if (writer.openTurn !== undefined) writer.endTurn(status, place);
    else if (this.#turnRequested && status !== 'completed') {
      // A turn that wrote nothing but did not complete: keep its outcome visible.
      writer.startTurn(place);
      writer.endTurn(status, place);
    }
    this.#turnRequested = false;
    this.#turnFailed = false;
    this.#approvals.clear();
  }

  #error(message: string, place: Placement): void {
    this.#turnFailed = true;
    this.#lastError = message;
    this.#writer.service(`Error: ${message}`, place);
  }

  #plan(text: string, place: Placement): void {
    if (text === this.#lastPlan) {
      this.#writer.skips.skip('duplicate', 'an unchanged plan');
      return;
    }
    this.#lastPlan = text;
    this.#writer.service(text, place);
  }

  #compaction(place: Placement): void {
    if (this.#compactionNoted) {
      this.#writer.skips.skip('duplicate', 'a compaction noted twice');
      return;
    }
    this.#compactionNoted = true;
    this.#writer.service('Context compacted', place);
  }

  // --- codex exec --json ---

  async #exec(type: keyof typeof EXEC_EVENT_SCHEMAS, event: Json, place: Placement): Promise<void> {
    const writer = this.#writer;
    const parsed = EXEC_EVENT_SCHEMAS[type].safeParse(event);
    if (!parsed.success) {
      writer.skips.skip('malformed-event', `exec event ${typeName(type)}`);
      return;
    }
    switch (type) {
      case 'thread.started':
        this.#run += 1;
        writer.skips.skip('not-displayed', 'thread.started');
        return;
      case 'turn.started':
        this.#beginTurn(place);
        return;
      case 'turn.completed':
        this.#endTurn(this.#turnFailed ? 'failed' : 'completed', place);
        return;
      case 'turn.failed': {
        const message = (parsed.data as { error?: { message: string } }).error?.message;
        if (message && message !== this.#lastError) this.#error(message, place);
        this.#endTurn('failed', place);
        return;
      }
      default: {
        const phase = type.slice('item.'.length) as 'started' | 'updated' | 'completed';
        await this.#execItem(phase, (parsed.data as { item: unknown }).item, place);
      }
    }
  }

  async #execItem(phase: 'started' | 'updated' | 'completed', raw: unknown, place: Placement): Promise<void> {
    const writer = this.#writer;
    const type = isObject(raw) ? raw.type : undefined;
    if (typeof type !== 'string' || !Object.hasOwn(EXEC_ITEM_SCHEMAS, type)) {
      writer.skips.skip('unknown-event', `exec item type ${typeName(type)}`);
      return;
    }
    const parsed = EXEC_ITEM_SCHEMAS[type as keyof typeof EXEC_ITEM_SCHEMAS].safeParse(raw);
    if (!parsed.success) {
      writer.skips.skip('malformed-event', `exec item ${typeName(type)}`);
      return;
    }
    const item = parsed.data as ExecItem;
    const key = item.id;
    /** Starts the item's call unless it is open; false when the event repeats an ended call. */
    const startOnce = (fields: CallFields): boolean => {
      if (writer.isCallOpen(key)) return true;
      // The same id in a later run is a new call; in the same run it is a repeated event.
      const ifEnded = this.#itemRuns.get(key) === this.#run ? 'duplicate' : 'new-call';
      if (writer.startCall(key, fields, { ...place, ifEnded }) === undefined) return false;
      this.#itemRuns.set(key, this.#run);
      return true;
    };
    switch (item.type) {
      case 'agent_message':
      case 'reasoning':
      case 'plan':
        if (phase !== 'completed') {
          writer.skips.skip('not-displayed', `${item.type} ${phase}: the completed item follows`);
          return;
        }
        this.#compactionNoted = false;
        writer.agentText(item.text, { ...place, ...(item.type === 'reasoning' ? { thinking: true } : {}) });
        return;
      case 'error':
        writer.service(item.message, place);
        return;
      case 'todo_list':
        this.#plan(
          planText(item.items.map((todo) => ({ text: todo.text, status: todo.completed ? 'done' : 'todo' }))),
          place,
        );
        return;
      case 'command_execution':
        if (phase === 'updated') {
          writer.skips.skip('not-displayed', 'command_execution output so far');
          return;
        }
        if (!startOnce(bashCall(item.command))) return;
        if (phase === 'completed') {
          const error =
            item.status === 'declined'
              ? 'The command was declined'
              : item.status === 'failed' || (typeof item.exit_code === 'number' && item.exit_code !== 0)
                ? typeof item.exit_code === 'number'
                  ? `Command exited with code ${item.exit_code}`
                  : 'The command failed'
                : undefined;
          writer.endCall(key, { ...place, ...(error === undefined ? {} : { error }) });
        }
        return;
      case 'mcp_tool_call':
        if (phase === 'updated') {
          writer.skips.skip('not-displayed', 'mcp_tool_call progress');
          return;
        }
        if (!startOnce(mcpCall(item.server, item.tool, item.arguments))) return;
        if (phase === 'completed') {
          for (const image of mcpImages(item.result?.content ?? [])) {
            await writer.media(
              image.data,
              { role: 'agent', ...(image.mimeType ? { mimeType: image.mimeType } : {}) },
              {
                ...place,
                parent: key,
              },
            );
          }
          const error =
            item.error?.message ?? (item.status === 'failed' ? 'The MCP tool call failed' : undefined);
          writer.endCall(key, { ...place, ...(error === undefined ? {} : { error }) });
        }
        return;
      case 'collab_tool_call': {
        if (phase === 'updated') {
          writer.skips.skip('not-displayed', 'collab_tool_call progress');
          return;
        }
        const started = startOnce(
          collabCall(item.tool, item.prompt, {
            tool: item.tool,
            receiverThreadIds: item.receiver_thread_ids,
            ...(item.prompt ? { prompt: item.prompt } : {}),
          }),
        );
        if (!started) return;
        if (phase === 'completed') {
          writer.endCall(key, {
            ...place,
            ...(item.status === 'failed' ? { error: 'The subagent call failed' } : {}),
          });
        }
        return;
      }
      case 'web_search':
        if (!startOnce(webSearchCall(item.query))) return;
        if (phase === 'completed') writer.endCall(key, place);
        return;
      case 'file_change': {
        const changes: Json = {};
        for (const change of item.changes) changes[change.path] = { type: change.kind };
        if (!startOnce(patchCall(changes))) return;
        if (phase === 'completed') {
          writer.endCall(key, {
            ...place,
            ...(item.status === 'failed' ? { error: 'The patch could not be applied' } : {}),
          });
        }
        return;
      }
    }
  }

  // --- rollouts ---

  async #rollout(line: Json): Promise<void> {
    const writer = this.#writer;
    const parsed = RolloutLineSchema.safeParse(line);
    if (!parsed.success) {
      writer.skips.skip('malformed-event', 'rollout line');
      return;
    }
    const parsedTime = Date.parse(parsed.data.timestamp);
    const place: Placement = Number.isNaN(parsedTime) ? {} : { time: parsedTime };
    const payload = parsed.data.payload;
    switch (parsed.data.type) {
      case 'session_meta':
        writer.skips.skip('not-displayed', 'session_meta');
        return;
      case 'turn_context':
        this.#beginTurnOnce(place);
        return;
      case 'compacted':
        if (!CompactedSchema.safeParse(payload).success) {
          writer.skips.skip('malformed-event', 'compacted');
          return;
        }
        this.#compaction(place);
        return;
      case 'event_msg':
        if (!isObject(payload)) {
          writer.skips.skip('malformed-event', 'event_msg without a payload object');
          return;
        }
        await this.#eventMsg(payload, 'rollout', place);
        return;
      case 'response_item':
        await this.#responseItem(payload, place);
        return;
      default:
        writer.skips.skip('unknown-event', `rollout line type ${typeName(parsed.data.type)}`);
    }
  }

  async #responseItem(payload: unknown, place: Placement): Promise<void> {
    const writer = this.#writer;
    const type = isObject(payload) ? payload.type : undefined;
    if (typeof type !== 'string' || !Object.hasOwn(RESPONSE_ITEM_SCHEMAS, type)) {
      writer.skips.skip(
        type === 'ghost_snapshot' || type === 'compaction' || type === 'other'
          ? 'not-displayed'
          : 'unknown-event',
        `response item ${typeName(type)}`,
      );
      return;
    }
    const parsed = RESPONSE_ITEM_SCHEMAS[type as keyof typeof RESPONSE_ITEM_SCHEMAS].safeParse(payload);
    if (!parsed.success) {
      writer.skips.skip('malformed-event', `response item ${typeName(type)}`);
      return;
    }
    const item = parsed.data as ResponseItem;
    switch (item.type) {
      case 'message':
        await this.#message(item, place);
        return;
      case 'reasoning': {
        let text = item.summary
          .map((part) => part.text)
          .filter((part) => part.length > 0)
          .join('\n\n');
        if (text.length === 0)
          text = item.content
            .map((part) => part.text)
            .filter((part) => part.length > 0)
            .join('\n\n');
        if (text.length === 0) {
          writer.skips.skip('not-displayed', 'reasoning without readable text (encrypted only)');
          return;
        }
        this.#compactionNoted = false;
        writer.agentText(text, { ...place, thinking: true });
        return;
      }
      case 'function_call': {
        const args = parseArguments(item.arguments);
        if (item.name === 'update_plan' && isObject(args) && Array.isArray(args.plan)) {
          this.#planCalls.add(item.call_id);
          const steps = args.plan.filter(isObject).map((step) => ({
            text: String(step.step ?? ''),
            status: planStatus(String(step.status ?? '')),
          }));
          this.#plan(
            planText(steps, typeof args.explanation === 'string' ? args.explanation : undefined),
            place,
          );
          return;
        }
        this.#compactionNoted = false;
        writer.startCall(item.call_id, functionCall(item.name, args), place);
        return;
      }
      case 'custom_tool_call': {
        this.#compactionNoted = false;
        const fields =
          item.name === 'apply_patch'
            ? patchCall(patchChanges(item.input), { patch: item.input })
            : { toolName: item.name, title: shortText(item.name), args: { input: item.input } };
        writer.startCall(item.call_id, fields, place);
        return;
      }
      case 'local_shell_call': {
        const key = item.call_id ?? item.id;
        if (!key) {
          writer.skips.skip('malformed-event', 'local_shell_call without an id');
          return;
        }
        this.#compactionNoted = false;
        const { command, working_directory, timeout_ms } = item.action;
        writer.startCall(
          key,
          bashCall(command, {
            ...(working_directory ? { cwd: working_directory } : {}),
            ...(typeof timeout_ms === 'number' ? { timeout_ms } : {}),
          }),
          place,
        );
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        if (this.#planCalls.delete(item.call_id)) {
          writer.skips.skip('not-displayed', 'the output of update_plan');
          return;
        }
        if (!writer.isCallOpen(item.call_id)) {
          writer.endCall(item.call_id, place); // counts unknown-call / duplicate
          return;
        }
        for (const image of outputImages(item.output)) {
          await writer.media(image, { role: 'agent' }, { ...place, parent: item.call_id });
        }
        const error = outputError(item.output);
        writer.endCall(item.call_id, { ...place, ...(error === undefined ? {} : { error }) });
        return;
      }
      case 'web_search_call': {
        const query = item.action?.query ?? '';
        const key = item.id ?? `web-search-${writer.messageCount}`;
        this.#compactionNoted = false;
        if (writer.startCall(key, webSearchCall(query), { ...place, ifEnded: 'new-call' }) !== undefined) {
          writer.endCall(key, {
            ...place,
            ...(item.status === 'failed' ? { error: 'The search failed' } : {}),
          });
        }
        return;
      }
    }
  }

  async #message(item: Extract<ResponseItem, { type: 'message' }>, place: Placement): Promise<void> {
    const writer = this.#writer;
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
    if (role === 'user' && !this.#sawTurnMarker && writer.openTurn !== undefined) {
      // An old rollout without turn markers: a user message starts the next turn.
      this.#endTurn(writer.openCalls().length > 0 ? 'cancelled' : 'completed', place);
    }
    this.#compactionNoted = false;
    for (const part of parts) {
      if ('text' in part) {
        if (role === 'user') writer.userText(part.text, place);
        else writer.agentText(part.text, place);
      } else await writer.media(part.image, { role }, place);
    }
  }

  // --- protocol events ---

  async #eventMsg(raw: Json, source: Source, place: Placement): Promise<void> {
    const writer = this.#writer;
    const type = raw.type;
    if (typeof type !== 'string') {
      writer.skips.skip('unknown-event', 'an event without a type');
      return;
    }
    if (!Object.hasOwn(EVENT_MSG_SCHEMAS, type)) {
      if (/^collab_[a-z_]+_(begin|end)$/.test(type)) {
        this.#collabEvent(type, raw, place);
        return;
      }
      writer.skips.skip(
        IGNORED_EVENT_MSG_TYPES.has(type) ? 'not-displayed' : 'unknown-event',
        `event ${typeName(type)}`,
      );
      return;
    }
    const parsed = EVENT_MSG_SCHEMAS[type as keyof typeof EVENT_MSG_SCHEMAS].safeParse(raw);
    if (!parsed.success) {
      writer.skips.skip('malformed-event', `event ${typeName(type)}`);
      return;
    }
    const event = parsed.data as EventMsg;
    // A rollout keeps the model's history as response items; these events repeat it (and, in newer
    // rollouts, the tool begin/end events repeat the calls). The response items are mapped.
    if (source === 'rollout' && ROLLOUT_DUPLICATES.has(event.type)) {
      writer.skips.skip('duplicate', `rollout event ${event.type} (its response item is mapped)`);
      return;
    }
    switch (event.type) {
      case 'task_started':
      case 'turn_started':
        this.#beginTurnOnce(place);
        return;
      case 'task_complete':
      case 'turn_complete':
        this.#endTurn(this.#turnFailed ? 'failed' : 'completed', place);
        return;
      case 'turn_aborted':
        this.#endTurn('cancelled', place);
        return;
      case 'error':
        this.#error(event.message, place);
        return;
      case 'warning':
      case 'stream_error':
        writer.service(event.message, place);
        return;
      case 'agent_message':
        this.#compactionNoted = false;
        writer.agentText(event.message, place);
        return;
      case 'agent_reasoning':
      case 'agent_reasoning_raw_content':
        this.#compactionNoted = false;
        writer.agentText(event.text, { ...place, thinking: true });
        return;
      case 'user_message':
        this.#compactionNoted = false;
        if (event.message.length > 0) writer.userText(event.message, place);
        for (const image of event.images ?? []) await writer.media(image, { role: 'user' }, place);
        return;
      case 'exec_command_begin':
        this.#startOnce(event.call_id, bashCall(event.command, callExtras(event)), place);
        return;
      case 'exec_command_end': {
        const error =
          typeof event.exit_code === 'number' && event.exit_code !== 0
            ? `Command exited with code ${event.exit_code}`
            : undefined;
        this.#approvals.delete(event.call_id);
        writer.endCall(event.call_id, { ...place, ...(error === undefined ? {} : { error }) });
        return;
      }
      case 'patch_apply_begin':
        this.#startOnce(
          event.call_id,
          patchCall(
            event.changes,
            event.auto_approved === undefined ? {} : { auto_approved: event.auto_approved },
          ),
          place,
        );
        return;
      case 'patch_apply_end':
        this.#approvals.delete(event.call_id);
        writer.endCall(event.call_id, {
          ...place,
          ...(event.success
            ? {}
            : {
                error: event.stderr
                  ? shortText(event.stderr, MAX_DESCRIPTION_LENGTH)
                  : 'The patch could not be applied',
              }),
        });
        return;
      case 'mcp_tool_call_begin':
        this.#startOnce(
          event.call_id,
          mcpCall(event.invocation.server, event.invocation.tool, event.invocation.arguments),
          place,
        );
        return;
      case 'mcp_tool_call_end': {
        if (!writer.isCallOpen(event.call_id) && event.invocation) {
          // An end without its begin (Codex itself synthesises the item then): start it first.
          this.#startOnce(
            event.call_id,
            mcpCall(event.invocation.server, event.invocation.tool, event.invocation.arguments),
            place,
          );
        }
        let error: string | undefined;
        const result = event.result;
        if (result && 'Ok' in result) {
          if (writer.isCallOpen(event.call_id)) {
            for (const image of mcpImages(result.Ok.content)) {
              await writer.media(
                image.data,
                { role: 'agent', ...(image.mimeType ? { mimeType: image.mimeType } : {}) },
                {
                  ...place,
                  parent: event.call_id,
                },
              );
            }
          }
          if (result.Ok.isError === true || result.Ok.is_error === true)
            error = 'The MCP tool reported an error';
        } else if (result && 'Err' in result)
          error = shortText(result.Err, MAX_DESCRIPTION_LENGTH) || 'The MCP tool call failed';
        writer.endCall(event.call_id, { ...place, ...(error === undefined ? {} : { error }) });
        return;
      }
      case 'web_search_begin':
        this.#searches.set(event.call_id, place);
        return;
      case 'web_search_end': {
        const begun = this.#searches.get(event.call_id);
        this.#searches.delete(event.call_id);
        if (writer.startCall(event.call_id, webSearchCall(event.query), begun ?? place) !== undefined) {
          writer.endCall(event.call_id, place);
        }
        return;
      }
      case 'exec_approval_request':
        this.#startOnce(event.call_id, bashCall(event.command, callExtras(event)), place);
        this.#requestApproval(
          event.call_id,
          execApprovalOptions(event.proposed_execpolicy_amendment),
          event.reason,
          place,
        );
        return;
      case 'apply_patch_approval_request':
        this.#startOnce(event.call_id, patchCall(event.changes), place);
        this.#requestApproval(
          event.call_id,
          PATCH_APPROVAL_OPTIONS,
          event.reason ??
            (event.grant_root ? `Allow writes under ${event.grant_root} for this session` : undefined),
          place,
        );
        return;
      case 'plan_update':
        this.#plan(
          planText(
            event.plan.map((step) => ({ text: step.step, status: planStatus(step.status) })),
            event.explanation,
          ),
          place,
        );
        return;
      case 'context_compacted':
        this.#compaction(place);
        return;
      case 'thread_rolled_back':
        writer.service(
          `Rolled back the last ${event.num_turns} turn${event.num_turns === 1 ? '' : 's'}`,
          place,
        );
        return;
      case 'undo_completed':
        writer.service(event.message ?? (event.success ? 'Undo completed' : 'Undo failed'), place);
        return;
    }
  }

  #startOnce(key: string, fields: CallFields, place: Placement): void {
    this.#compactionNoted = false;
    if (this.#writer.isCallOpen(key)) {
      this.#writer.skips.skip('duplicate', 'a call begun after its approval request started it');
      return;
    }
    this.#writer.startCall(key, fields, place);
  }

  #requestApproval(
    key: string,
    options: PermissionOption[],
    reason: string | null | undefined,
    place: Placement,
  ): void {
    if (!this.#writer.isCallOpen(key)) return;
    if (this.#writer.requestPermission(key, { options, ...(reason ? { description: reason } : {}) }, place)) {
      this.#approvals.add(key);
    }
  }

  #submission(event: Json, place: Placement): void {
    const writer = this.#writer;
    const parsed = ApprovalSubmissionSchema.safeParse(event);
    if (!parsed.success) {
      const opType = isObject(event.op) ? event.op.type : undefined;
      writer.skips.skip(
        opType === 'exec_approval' || opType === 'patch_approval' ? 'malformed-event' : 'not-displayed',
        `submission ${typeName(opType)}`,
      );
      return;
    }
    const { op } = parsed.data;
    // Newer Codex names the call; older Codex named the turn's submission: then the one pending approval.
    let key: string | undefined = writer.hasPendingPermission(op.id) ? op.id : undefined;
    if (key === undefined && this.#approvals.size === 1) key = [...this.#approvals][0];
    const optionId = decisionId(op.decision);
    if (key === undefined || optionId === undefined) {
      writer.skips.skip('unmatched-permission', `${op.type} answer without a pending approval`);
      return;
    }
    if (!writer.respondPermission(key, optionId, place)) return;
    this.#approvals.delete(key);
    if (optionId === 'denied' || optionId === 'abort') {
      // Codex runs nothing and sends no end event for a rejected call: it ends here.
      writer.endCall(key, { ...place, error: `Rejected by the user (${optionId})` });
    }
  }

  #collabEvent(type: string, raw: Json, place: Placement): void {
    const writer = this.#writer;
    const key = raw.call_id;
    if (typeof key !== 'string' || key.length === 0) {
      writer.skips.skip('malformed-event', `event ${typeName(type)}`);
      return;
    }
    const kind = type
      .slice('collab_'.length)
      .replace(/_(begin|end)$/, '')
      .replace(/^agent_/, '');
    if (type.endsWith('_begin')) {
      const prompt = typeof raw.prompt === 'string' ? raw.prompt : undefined;
      const { type: _type, call_id: _callId, ...args } = raw;
      this.#startOnce(key, collabCall(kind, prompt, args), place);
      return;
    }
    const error = agentStatusError(raw.status);
    writer.endCall(key, { ...place, ...(error === undefined ? {} : { error }) });
  }

  /** Searches begun and never ended: started now, so the turn's end closes them like any open call. */
  #flushSearches(): void {
    for (const [key, place] of this.#searches) {
      this.#writer.startCall(key, webSearchCall(''), place);
    }
    this.#searches.clear();
  }
}

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

function callExtras(event: { cwd?: string | undefined; parsed_cmd?: unknown[] | undefined }): Json {
  return {
    ...(event.cwd === undefined ? {} : { cwd: event.cwd }),
    ...(event.parsed_cmd === undefined ? {} : { parsed_cmd: event.parsed_cmd }),
  };
}

/** A legacy Happy codex `tool-call` (names Happy's CLI used: CodexBash, CodexPatch, …) as a call start. */
function legacyToolCall(name: string, input: unknown): CallFields {
  const fields = isObject(input) ? input : {};
  if (name === 'CodexBash') {
    const { command, ...rest } = fields;
    return bashCall(command, rest);
  }
  if (name === 'CodexPatch' && isObject(fields.changes)) {
    const { changes, ...rest } = fields;
    return patchCall(changes as Json, rest);
  }
  const title =
    typeof fields.title === 'string' && fields.title.length > 0 ? shortText(fields.title) : shortText(name);
  return { toolName: name, title, description: '', args: input ?? {} };
}

/**
 * The Codex provider: `happy-media map --from codex` and `createAgentMapper('codex')`; also reads
 * Happy's legacy `{ type: 'codex', data }` records.
 *
 * @example
 * ```ts
 * const mapper = createAgentMapper(codexProvider, { media });
 * for (const line of rollout.split('\n').filter(Boolean)) send(await mapper.push(JSON.parse(line)));
 * send(await mapper.end());
 * ```
 */
export const codexProvider: MapperProvider = {
  name: 'codex',
  summary:
    'Codex: `codex exec --json` events, session rollouts (rollout-*.jsonl), protocol events and approvals',
  legacyContentType: 'codex',
  create: (writer) => new CodexMapper(writer),
};
