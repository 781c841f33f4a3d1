/**
 * What Codex writes, as tolerant zod schemas: the `codex exec --json` events (`thread.started`,
 * `turn.*`, `item.*` with their thread items), the session rollout lines Codex appends to
 * `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (`session_meta`, `response_item`, `event_msg`,
 * `turn_context`, `compacted`), the protocol events (`EventMsg`) inside them or on their own, and the
 * approval answers (`exec_approval` / `patch_approval` submissions).
 *
 * Shapes follow openai/codex's Rust types (see test/fixtures/mappers/README.md for the files and
 * commits). Reading is tolerant: unknown fields are dropped (`z.object`), statuses and kinds are plain
 * strings so a new value does not reject the event, and only the fields the mapper uses are required.
 * A line whose `type` is not listed here is not an error: the mapper counts it as skipped.
 *
 * @module
 */
import * as z from 'zod';
import { isJsonObject } from '../provider-json.js';

const text = z.string();
const nullableString = z.string().nullish();

// --- codex exec --json: thread items ---------------------------------------------------------------

/** `agent_message`: the agent's answer (or a JSON string when structured output was asked for). */
export const ExecAgentMessageItemSchema = z.object({
  id: z.string(),
  type: z.literal('agent_message'),
  text,
});
/** `reasoning`: a reasoning summary. */
export const ExecReasoningItemSchema = z.object({ id: z.string(), type: z.literal('reasoning'), text });
/** `plan`: a proposed plan (plan mode). */
export const ExecPlanItemSchema = z.object({ id: z.string(), type: z.literal('plan'), text });
/** `command_execution`: a command the agent ran; `status` is `in_progress | completed | failed | declined`. */
export const ExecCommandExecutionItemSchema = z.object({
  id: z.string(),
  type: z.literal('command_execution'),
  command: z.string(),
  aggregated_output: z.string().default(''),
  exit_code: z.number().int().nullish(),
  status: z.string(),
});
/** `file_change`: the files a patch touched; only ever `item.completed`. */
export const ExecFileChangeItemSchema = z.object({
  id: z.string(),
  type: z.literal('file_change'),
  changes: z.array(z.object({ path: z.string(), kind: z.string() })).default([]),
  status: z.string(),
});
/** `mcp_tool_call`: an MCP tool invocation; `result.content` holds MCP content blocks (text, image, …). */
export const ExecMcpToolCallItemSchema = z.object({
  id: z.string(),
  type: z.literal('mcp_tool_call'),
  server: z.string(),
  tool: z.string(),
  arguments: z.unknown(),
  result: z
    .object({ content: z.array(z.unknown()).default([]), structured_content: z.unknown().optional() })
    .nullish(),
  error: z.object({ message: z.string() }).nullish(),
  status: z.string(),
});
/** `collab_tool_call`: a call to another Codex agent (spawn, send input, wait, close). */
export const ExecCollabToolCallItemSchema = z.object({
  id: z.string(),
  type: z.literal('collab_tool_call'),
  tool: z.string(),
  sender_thread_id: z.string().optional(),
  receiver_thread_ids: z.array(z.string()).default([]),
  prompt: nullableString,
  status: z.string(),
});
/** `web_search`: a search the agent made. */
export const ExecWebSearchItemSchema = z.object({
  id: z.string(),
  type: z.literal('web_search'),
  query: z.string().default(''),
  action: z.unknown().optional(),
});
/** `todo_list`: the agent's running to-do list (started, updated as steps change, completed at turn end). */
export const ExecTodoListItemSchema = z.object({
  id: z.string(),
  type: z.literal('todo_list'),
  items: z.array(z.object({ text: z.string(), completed: z.boolean() })).default([]),
});
/** `error`: a non-fatal error surfaced as an item. */
export const ExecErrorItemSchema = z.object({
  id: z.string(),
  type: z.literal('error'),
  message: z.string(),
});

/** Every `codex exec --json` thread item the mapper reads, by its `type`. */
export const EXEC_ITEM_SCHEMAS = {
  agent_message: ExecAgentMessageItemSchema,
  reasoning: ExecReasoningItemSchema,
  plan: ExecPlanItemSchema,
  command_execution: ExecCommandExecutionItemSchema,
  file_change: ExecFileChangeItemSchema,
  mcp_tool_call: ExecMcpToolCallItemSchema,
  collab_tool_call: ExecCollabToolCallItemSchema,
  web_search: ExecWebSearchItemSchema,
  todo_list: ExecTodoListItemSchema,
  error: ExecErrorItemSchema,
} as const;

/** A thread item of `codex exec --json`. */
export type ExecItem = z.infer<(typeof EXEC_ITEM_SCHEMAS)[keyof typeof EXEC_ITEM_SCHEMAS]>;

// --- codex exec --json: top-level events ------------------------------------------------------------

/** Every `codex exec --json` event the mapper reads (the item is parsed on its own, by its type). */
export const EXEC_EVENT_SCHEMAS = {
  'thread.started': z.object({ type: z.literal('thread.started'), thread_id: z.string().optional() }),
  'turn.started': z.object({ type: z.literal('turn.started') }),
  'turn.completed': z.object({ type: z.literal('turn.completed') }),
  'turn.failed': z.object({
    type: z.literal('turn.failed'),
    error: z.object({ message: z.string() }).optional(),
  }),
  'item.started': z.object({ type: z.literal('item.started'), item: z.unknown() }),
  'item.updated': z.object({ type: z.literal('item.updated'), item: z.unknown() }),
  'item.completed': z.object({ type: z.literal('item.completed'), item: z.unknown() }),
  error: z.object({ type: z.literal('error'), message: z.string() }),
} as const;

// --- rollout lines ----------------------------------------------------------------------------------

/** `compacted`: the history was summarised; `message` is the summary the model continues from. */
export const CompactedSchema = z.object({ message: z.string().default('') });

// --- response items (the model's history) -----------------------------------------------------------

/** One part of a `message` response item. */
export const ContentItemSchema = z.object({
  type: z.string(),
  text: z.string().optional(),
  image_url: z.string().optional(),
});

/** Every response item the mapper reads, by its `type`. */
export const RESPONSE_ITEM_SCHEMAS = {
  message: z.object({
    type: z.literal('message'),
    role: z.string(),
    content: z.array(ContentItemSchema).default([]),
  }),
  reasoning: z.object({
    type: z.literal('reasoning'),
    summary: z.array(z.object({ type: z.string(), text: z.string().default('') })).default([]),
    content: z
      .array(z.object({ type: z.string(), text: z.string().default('') }))
      .nullish()
      .transform((value) => value ?? []),
  }),
  local_shell_call: z.object({
    type: z.literal('local_shell_call'),
    call_id: nullableString,
    id: nullableString,
    status: z.string().optional(),
    action: z
      .object({
        command: z.array(z.string()).default([]),
        working_directory: nullableString,
        timeout_ms: z.number().nullish(),
      })
      .default({ command: [] }),
  }),
  function_call: z.object({
    type: z.literal('function_call'),
    name: z.string(),
    arguments: z.string().default(''),
    call_id: z.string(),
  }),
  function_call_output: z.object({
    type: z.literal('function_call_output'),
    call_id: z.string(),
    output: z.unknown(),
  }),
  custom_tool_call: z.object({
    type: z.literal('custom_tool_call'),
    call_id: z.string(),
    name: z.string(),
    input: z.string().default(''),
  }),
  custom_tool_call_output: z.object({
    type: z.literal('custom_tool_call_output'),
    call_id: z.string(),
    output: z.unknown(),
  }),
  web_search_call: z.object({
    type: z.literal('web_search_call'),
    id: nullableString,
    status: z.string().nullish(),
    action: z.object({ type: z.string(), query: z.string().optional() }).optional(),
  }),
} as const;

/** A response item of a rollout (`response_item` payload). */
export type ResponseItem = z.infer<(typeof RESPONSE_ITEM_SCHEMAS)[keyof typeof RESPONSE_ITEM_SCHEMAS]>;

// --- protocol events (EventMsg) ---------------------------------------------------------------------

const callId = z.string();
const commandParts = z.union([z.array(z.string()), z.string()]);

/** A patch's changes: path → `{ type: add | delete | update, content | unified_diff, move_path }`. */
export const FileChangesSchema = z.record(z.string(), z.unknown()).default({});

/** Rust's `Result<CallToolResult, String>` as serde writes it: `{ "Ok": … }` or `{ "Err": "…" }`. */
export const McpResultSchema = z.union([
  z.object({
    Ok: z.object({
      content: z.array(z.unknown()).default([]),
      isError: z.boolean().nullish(),
      is_error: z.boolean().nullish(),
    }),
  }),
  z.object({ Err: z.string() }),
]);

/** Every protocol event (`EventMsg`) the mapper reads, by its `type`. */
export const EVENT_MSG_SCHEMAS = {
  task_started: z.object({ type: z.literal('task_started') }),
  turn_started: z.object({ type: z.literal('turn_started') }),
  task_complete: z.object({ type: z.literal('task_complete') }),
  turn_complete: z.object({ type: z.literal('turn_complete') }),
  turn_aborted: z.object({ type: z.literal('turn_aborted'), reason: z.string().optional() }),
  error: z.object({ type: z.literal('error'), message: z.string() }),
  warning: z.object({ type: z.literal('warning'), message: z.string() }),
  stream_error: z.object({ type: z.literal('stream_error'), message: z.string() }),
  agent_message: z.object({ type: z.literal('agent_message'), message: z.string() }),
  user_message: z.object({
    type: z.literal('user_message'),
    message: z.string().default(''),
    images: z.array(z.string()).nullish(),
  }),
  agent_reasoning: z.object({ type: z.literal('agent_reasoning'), text: z.string() }),
  agent_reasoning_raw_content: z.object({ type: z.literal('agent_reasoning_raw_content'), text: z.string() }),
  exec_command_begin: z.object({
    type: z.literal('exec_command_begin'),
    call_id: callId,
    command: commandParts.default([]),
    cwd: z.string().optional(),
    parsed_cmd: z.array(z.unknown()).optional(),
  }),
  exec_command_end: z.object({
    type: z.literal('exec_command_end'),
    call_id: callId,
    exit_code: z.number().int().optional(),
    stderr: z.string().optional(),
  }),
  exec_approval_request: z.object({
    type: z.literal('exec_approval_request'),
    call_id: callId,
    command: commandParts.default([]),
    cwd: z.string().optional(),
    reason: nullableString,
    parsed_cmd: z.array(z.unknown()).optional(),
    proposed_execpolicy_amendment: z.array(z.string()).nullish(),
  }),
  apply_patch_approval_request: z.object({
    type: z.literal('apply_patch_approval_request'),
    call_id: callId,
    changes: FileChangesSchema,
    reason: nullableString,
    grant_root: nullableString,
  }),
  patch_apply_begin: z.object({
    type: z.literal('patch_apply_begin'),
    call_id: callId,
    auto_approved: z.boolean().optional(),
    changes: FileChangesSchema,
  }),
  patch_apply_end: z.object({
    type: z.literal('patch_apply_end'),
    call_id: callId,
    success: z.boolean().default(true),
    stderr: z.string().optional(),
  }),
  mcp_tool_call_begin: z.object({
    type: z.literal('mcp_tool_call_begin'),
    call_id: callId,
    invocation: z.object({ server: z.string(), tool: z.string(), arguments: z.unknown().optional() }),
  }),
  mcp_tool_call_end: z.object({
    type: z.literal('mcp_tool_call_end'),
    call_id: callId,
    invocation: z
      .object({ server: z.string(), tool: z.string(), arguments: z.unknown().optional() })
      .optional(),
    result: McpResultSchema.optional(),
  }),
  web_search_begin: z.object({ type: z.literal('web_search_begin'), call_id: callId }),
  web_search_end: z.object({
    type: z.literal('web_search_end'),
    call_id: callId,
    query: z.string().default(''),
  }),
  plan_update: z.object({
    type: z.literal('plan_update'),
    explanation: nullableString,
    plan: z.array(z.object({ step: z.string(), status: z.string() })).default([]),
  }),
  context_compacted: z.object({ type: z.literal('context_compacted') }),
  thread_rolled_back: z.object({ type: z.literal('thread_rolled_back'), num_turns: z.number().int() }),
  undo_completed: z.object({
    type: z.literal('undo_completed'),
    success: z.boolean().default(true),
    message: nullableString,
  }),
} as const;

/** A protocol event the mapper reads. */
export type EventMsg = z.infer<(typeof EVENT_MSG_SCHEMAS)[keyof typeof EVENT_MSG_SCHEMAS]>;

/**
 * Protocol events the mapper knows and deliberately does not turn into messages: streaming deltas (the
 * whole message follows), the new `item_*` events (each is also sent as the legacy event read above),
 * usage, configuration, listings and start-up progress. Counted as skipped with the reason `ignored`.
 */
export const IGNORED_EVENT_MSG_TYPES: ReadonlySet<string> = new Set([
  'agent_message_delta',
  'agent_reasoning_delta',
  'agent_reasoning_raw_content_delta',
  'agent_reasoning_section_break',
  'agent_message_content_delta',
  'reasoning_content_delta',
  'reasoning_raw_content_delta',
  'exec_command_output_delta',
  'terminal_interaction',
  'item_started',
  'item_completed',
  'raw_response_item',
  'token_count',
  'session_configured',
  'mcp_startup_update',
  'mcp_startup_complete',
  'mcp_list_tools_response',
  'list_custom_prompts_response',
  'list_skills_response',
  'skills_update_available',
  'get_history_entry_response',
  'turn_diff',
  'background_event',
  'deprecation_notice',
  'shutdown_complete',
  'undo_started',
  'entered_review_mode',
  'exited_review_mode',
  'view_image_tool_call',
  'item.plan.delta',
]);

// --- approvals (submissions) ------------------------------------------------------------------------

/**
 * A `ReviewDecision` as serde writes it: a string (`approved`, `approved_for_session`, `denied`,
 * `abort`) or a one-key object (`{ "approved_execpolicy_amendment": { … } }`).
 */
export const ReviewDecisionSchema = z.union([z.string(), z.record(z.string(), z.unknown())]);

/**
 * An approval answer as Codex reads it on its submission queue: `{ id, op: { type: 'exec_approval' |
 * 'patch_approval', id, decision } }`. `op.id` names the approval request (its call id).
 */
export const ApprovalSubmissionSchema = z.object({
  id: z.string().optional(),
  op: z.object({
    type: z.enum(['exec_approval', 'patch_approval']),
    id: z.string(),
    decision: ReviewDecisionSchema,
  }),
});
/** An approval answer. */
export type ApprovalSubmission = z.infer<typeof ApprovalSubmissionSchema>;

// --- the same, read by hand ------------------------------------------------------------------------
//
// The response items and events every turn of a rollout carries are read by the functions below
// instead of their zod schemas: on JSON they accept exactly what the schemas accept and read the same
// fields (a property test holds them to the schemas), without the cost of a zod parse per line. The
// rarer kinds are still read by their schemas.

/** `value` when absent (`fallback`) or a string; `undefined` when it is something else. */
function stringOr(value: unknown, fallback: string): string | undefined {
  return value === undefined ? fallback : typeof value === 'string' ? value : undefined;
}

/** The items of a list each read by `read`; `undefined` when it is not a list or one item is refused. */
function everyItem<T>(value: unknown, read: (item: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const items: T[] = [];
  for (const item of value) {
    const parsed = read(item);
    if (parsed === undefined) return undefined;
    items.push(parsed);
  }
  return items;
}

type ContentItem = z.infer<typeof ContentItemSchema>;

function readContentItem(value: unknown): ContentItem | undefined {
  if (!isJsonObject(value) || typeof value.type !== 'string') return undefined;
  const { text, image_url } = value;
  if (
    (text !== undefined && typeof text !== 'string') ||
    (image_url !== undefined && typeof image_url !== 'string')
  )
    return undefined;
  const item: ContentItem = { type: value.type };
  if (text !== undefined) item.text = text;
  if (image_url !== undefined) item.image_url = image_url;
  return item;
}

function readReasoningPart(value: unknown): { type: string; text: string } | undefined {
  if (!isJsonObject(value) || typeof value.type !== 'string') return undefined;
  const text = stringOr(value.text, '');
  return text === undefined ? undefined : { type: value.type, text };
}

/**
 * Readers of the common response items, by `type`: each returns the item as its schema in
 * {@link RESPONSE_ITEM_SCHEMAS} reads it, or `undefined` when the schema refuses it.
 */
export const RESPONSE_ITEM_READERS: Readonly<
  Record<string, (raw: Record<string, unknown>) => ResponseItem | undefined>
> = {
  message(raw) {
    if (typeof raw.role !== 'string') return undefined;
    const content = raw.content === undefined ? [] : everyItem(raw.content, readContentItem);
    return content === undefined ? undefined : { type: 'message', role: raw.role, content };
  },
  reasoning(raw) {
    const summary = raw.summary === undefined ? [] : everyItem(raw.summary, readReasoningPart);
    if (summary === undefined) return undefined;
    const content =
      raw.content === undefined || raw.content === null ? [] : everyItem(raw.content, readReasoningPart);
    return content === undefined ? undefined : { type: 'reasoning', summary, content };
  },
  function_call(raw) {
    const args = stringOr(raw.arguments, '');
    if (typeof raw.name !== 'string' || typeof raw.call_id !== 'string' || args === undefined)
      return undefined;
    return { type: 'function_call', name: raw.name, arguments: args, call_id: raw.call_id };
  },
  // The schemas' `output: z.unknown()` wants the key there, whatever its value.
  function_call_output(raw) {
    return typeof raw.call_id === 'string' && 'output' in raw
      ? { type: 'function_call_output', call_id: raw.call_id, output: raw.output }
      : undefined;
  },
  custom_tool_call(raw) {
    const input = stringOr(raw.input, '');
    if (typeof raw.name !== 'string' || typeof raw.call_id !== 'string' || input === undefined)
      return undefined;
    return { type: 'custom_tool_call', call_id: raw.call_id, name: raw.name, input };
  },
  custom_tool_call_output(raw) {
    return typeof raw.call_id === 'string' && 'output' in raw
      ? { type: 'custom_tool_call_output', call_id: raw.call_id, output: raw.output }
      : undefined;
  },
};

/**
 * Readers of the events a rollout repeats on every turn, by `type`: each returns the event as its schema
 * in {@link EVENT_MSG_SCHEMAS} reads it, or `undefined` when the schema refuses it.
 */
export const EVENT_MSG_READERS: Readonly<
  Record<string, (raw: Record<string, unknown>) => EventMsg | undefined>
> = {
  agent_message(raw) {
    return typeof raw.message === 'string' ? { type: 'agent_message', message: raw.message } : undefined;
  },
  agent_reasoning(raw) {
    return typeof raw.text === 'string' ? { type: 'agent_reasoning', text: raw.text } : undefined;
  },
  user_message(raw) {
    const message = stringOr(raw.message, '');
    if (message === undefined) return undefined;
    const images = raw.images;
    if (images === undefined) return { type: 'user_message', message };
    if (images === null) return { type: 'user_message', message, images };
    const list = everyItem(images, (image) => (typeof image === 'string' ? image : undefined));
    return list === undefined ? undefined : { type: 'user_message', message, images: list };
  },
};
