/**
 * What an Agent Client Protocol (ACP) session carries, as tolerant zod schemas: JSON-RPC 2.0 messages
 * in both directions — `session/prompt` and its response (`stopReason`), `session/update`
 * notifications (message and thought chunks, tool calls and their updates, plans, usage),
 * `session/request_permission` and its outcome, `session/cancel` — and the content blocks inside them.
 *
 * Shapes follow the ACP JSON schema v1 (agentclientprotocol/agent-client-protocol @ b7f00054, schema/v1;
 * the corpus copy is `../shared/corpus/protocol/acp/schema.v1.json`). Reading is tolerant in the way the
 * schema itself asks (`x-deserialize-default-on-error`): unknown fields are dropped, enum-like fields are
 * plain strings, a malformed optional field falls back to absent, and invalid items of a list are left
 * out. An unknown method or `sessionUpdate` kind is not an error: the mapper counts it as skipped.
 *
 * @module
 */
import * as z from 'zod';
import { isJsonObject, type JsonObject } from '../provider-json.js';

/** An optional field that becomes `undefined` when it is malformed, as ACP's schema asks. */
function lenient<T extends z.ZodType>(schema: T) {
  return schema.optional().catch(undefined);
}

/** A list whose malformed items are left out, as ACP's schema asks (`x-deserialize-skip-invalid-items`). */
function validItems<T extends z.ZodType>(item: T) {
  return z.array(z.unknown()).transform((values) => {
    const kept: z.infer<T>[] = [];
    for (const value of values) {
      const parsed = item.safeParse(value);
      if (parsed.success) kept.push(parsed.data);
    }
    return kept;
  });
}

/** An optional list of {@link validItems}: absent or malformed reads as empty. */
function skipInvalid<T extends z.ZodType>(item: T) {
  return validItems(item)
    .optional()
    .catch(undefined)
    .transform((values) => values ?? []);
}

// --- content -------------------------------------------------------------------------------------

/**
 * A content block (`ContentBlock`): `text`, `image` (base64 `data` + `mimeType`, optional `uri`),
 * `audio`, `resource_link` (a reference by `uri`) or `resource` (embedded text or base64 `blob`).
 * Unknown block types parse with only their `type`.
 */
export const ContentBlockSchema = z.object({
  type: z.string(),
  text: lenient(z.string()),
  data: lenient(z.string()),
  mimeType: lenient(z.string().nullable()),
  uri: lenient(z.string().nullable()),
  name: lenient(z.string()),
  title: lenient(z.string().nullable()),
  size: lenient(z.number().nullable()),
  resource: lenient(
    z.object({
      uri: z.string(),
      mimeType: lenient(z.string().nullable()),
      text: lenient(z.string()),
      blob: lenient(z.string()),
    }),
  ),
});
/** A content block. */
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** Tool call content (`ToolCallContent`): `content` (a block), `diff` or `terminal`. */
export const ToolCallContentSchema = z.object({
  type: z.string(),
  content: lenient(ContentBlockSchema),
  path: lenient(z.string()),
  oldText: lenient(z.string().nullable()),
  newText: lenient(z.string()),
  terminalId: lenient(z.string()),
});
/** One item of a tool call's content. */
export type ToolCallContent = z.infer<typeof ToolCallContentSchema>;

/** A file location a tool call touches. */
export const ToolCallLocationSchema = z.object({ path: z.string(), line: lenient(z.number().nullable()) });

const ToolCallContentListSchema = validItems(ToolCallContentSchema);
const ToolCallLocationListSchema = validItems(ToolCallLocationSchema);

/**
 * A list field of an update: absent (or malformed, which ACP reads as absent) means "unchanged", so it is
 * `undefined`; a list replaces the previous one, its malformed items left out.
 */
function listOrAbsent<T>(list: z.ZodType<T[]>) {
  return z
    .unknown()
    .optional()
    .transform((value) => {
      // Absent is the common case (most updates change only the status): no failed parse to build.
      if (!Array.isArray(value)) return undefined;
      const parsed = list.safeParse(value);
      return parsed.success ? parsed.data : undefined;
    });
}

/**
 * The fields of `ToolCall` and `ToolCallUpdate`: only `toolCallId` is required (ACP also requires a
 * `tool_call`'s `title`; one without is still read, titled by its kind); the rest replaces what was
 * known when present.
 */
export const ToolCallFieldsSchema = z.object({
  toolCallId: z.string(),
  title: lenient(z.string().nullable()),
  kind: lenient(z.string().nullable()),
  status: lenient(z.string().nullable()),
  content: listOrAbsent(ToolCallContentListSchema),
  locations: listOrAbsent(ToolCallLocationListSchema),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
});
/** A tool call or a tool call update. */
export type ToolCallFields = z.infer<typeof ToolCallFieldsSchema>;

// --- the same, read by hand ----------------------------------------------------------------------
//
// The updates every line of a session carries (message chunks, tool calls and their updates) are read
// by the functions below instead of their zod schemas: on JSON they accept exactly what the schemas
// accept and read the same fields (a property test holds them to the schemas), without the cost of a
// zod parse per update. A field the schema would set to `undefined` (absent or malformed) is left out.

/** A string, else `undefined` (a lenient string field). */
function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A string or `null`, else `undefined` (a lenient nullable string field). */
function nullableString(value: unknown): string | null | undefined {
  return typeof value === 'string' || value === null ? value : undefined;
}

/** A finite number or `null` (zod's numbers are finite), else `undefined`. */
function nullableNumber(value: unknown): number | null | undefined {
  return (typeof value === 'number' && Number.isFinite(value)) || value === null ? value : undefined;
}

/** An embedded resource as the schema's lenient `resource` field reads it. */
function readResource(value: unknown): ContentBlock['resource'] {
  if (!isJsonObject(value) || typeof value.uri !== 'string') return undefined;
  const resource: NonNullable<ContentBlock['resource']> = { uri: value.uri };
  const mimeType = nullableString(value.mimeType);
  if (mimeType !== undefined) resource.mimeType = mimeType;
  const text = optionalString(value.text);
  if (text !== undefined) resource.text = text;
  const blob = optionalString(value.blob);
  if (blob !== undefined) resource.blob = blob;
  return resource;
}

/** `value` as {@link ContentBlockSchema} reads it, or `undefined` when the schema refuses it. */
export function readContentBlock(value: unknown): ContentBlock | undefined {
  if (!isJsonObject(value) || typeof value.type !== 'string') return undefined;
  const block: ContentBlock = { type: value.type };
  const { text, data, mimeType, uri, name, title, size, resource } = value;
  if (typeof text === 'string') block.text = text;
  if (typeof data === 'string') block.data = data;
  const mime = nullableString(mimeType);
  if (mime !== undefined) block.mimeType = mime;
  const link = nullableString(uri);
  if (link !== undefined) block.uri = link;
  if (typeof name === 'string') block.name = name;
  const heading = nullableString(title);
  if (heading !== undefined) block.title = heading;
  const bytes = nullableNumber(size);
  if (bytes !== undefined) block.size = bytes;
  if (resource !== undefined) {
    const embedded = readResource(resource);
    if (embedded !== undefined) block.resource = embedded;
  }
  return block;
}

/** `value` as {@link ToolCallContentSchema} reads it, or `undefined` when the schema refuses it. */
function readToolCallContent(value: unknown): ToolCallContent | undefined {
  if (!isJsonObject(value) || typeof value.type !== 'string') return undefined;
  const item: ToolCallContent = { type: value.type };
  const { content, path, oldText, newText, terminalId } = value;
  if (content !== undefined) {
    const block = readContentBlock(content);
    if (block !== undefined) item.content = block;
  }
  if (typeof path === 'string') item.path = path;
  const old = nullableString(oldText);
  if (old !== undefined) item.oldText = old;
  if (typeof newText === 'string') item.newText = newText;
  if (typeof terminalId === 'string') item.terminalId = terminalId;
  return item;
}

/** `value` as {@link ToolCallLocationSchema} reads it, or `undefined` when the schema refuses it. */
function readToolCallLocation(value: unknown): z.infer<typeof ToolCallLocationSchema> | undefined {
  if (!isJsonObject(value) || typeof value.path !== 'string') return undefined;
  const line = nullableNumber(value.line);
  return line === undefined ? { path: value.path } : { path: value.path, line };
}

/** The items of a list `read` accepts, the others left out; `undefined` for a value that is not a list. */
function readItems<T>(value: unknown, read: (item: unknown) => T | undefined): T[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const kept: T[] = [];
  for (const item of value) {
    const parsed = read(item);
    if (parsed !== undefined) kept.push(parsed);
  }
  return kept;
}

/** `value` as {@link ToolCallFieldsSchema} reads it, or `undefined` when the schema refuses it. */
export function readToolCallFields(value: unknown): ToolCallFields | undefined {
  if (!isJsonObject(value) || typeof value.toolCallId !== 'string') return undefined;
  const { title, kind, status, content, locations, rawInput, rawOutput } = value;
  // `content` and `locations` are always there, `undefined` when unchanged (as the schema's type says).
  const fields: ToolCallFields = {
    toolCallId: value.toolCallId,
    content: readItems(content, readToolCallContent),
    locations: readItems(locations, readToolCallLocation),
  };
  const heading = nullableString(title);
  if (heading !== undefined) fields.title = heading;
  const toolKind = nullableString(kind);
  if (toolKind !== undefined) fields.kind = toolKind;
  const state = nullableString(status);
  if (state !== undefined) fields.status = state;
  if (rawInput !== undefined) fields.rawInput = rawInput;
  if (rawOutput !== undefined) fields.rawOutput = rawOutput;
  return fields;
}

/** `value` as {@link ContentChunkSchema} reads it, or `undefined` when the schema refuses it. */
export function readContentChunk(value: unknown): ContentChunk | undefined {
  if (!isJsonObject(value) || typeof value.sessionUpdate !== 'string') return undefined;
  const content = readContentBlock(value.content);
  if (content === undefined) return undefined;
  const messageId = nullableString(value.messageId);
  return messageId === undefined
    ? { sessionUpdate: value.sessionUpdate, content }
    : { sessionUpdate: value.sessionUpdate, content, messageId };
}

// --- session/update ------------------------------------------------------------------------------

/** `user_message_chunk`, `agent_message_chunk`, `agent_thought_chunk`: one block of a streamed message. */
export const ContentChunkSchema = z.object({
  sessionUpdate: z.string(),
  content: ContentBlockSchema,
  messageId: lenient(z.string().nullable()),
});
/** A streamed message chunk. */
export type ContentChunk = z.infer<typeof ContentChunkSchema>;

/** `plan`: the agent's whole plan, replacing the previous one. */
export const PlanUpdateSchema = z.object({
  sessionUpdate: z.literal('plan'),
  entries: skipInvalid(z.object({ content: z.string(), priority: lenient(z.string()), status: z.string() })),
});
/** A plan update. */
export type PlanUpdate = z.infer<typeof PlanUpdateSchema>;

/** One entry of a plan as the schema's item reads it, or `undefined` when the schema refuses it. */
function readPlanEntry(value: unknown): PlanUpdate['entries'][number] | undefined {
  if (!isJsonObject(value) || typeof value.content !== 'string' || typeof value.status !== 'string')
    return undefined;
  const priority = optionalString(value.priority);
  return priority === undefined
    ? { content: value.content, status: value.status }
    : { content: value.content, priority, status: value.status };
}

/**
 * `value` as {@link PlanUpdateSchema} reads it, or `undefined` when the schema refuses it: a list of
 * entries, its malformed entries left out (absent or malformed `entries` read as an empty plan).
 */
export function readPlanUpdate(value: unknown): PlanUpdate | undefined {
  if (!isJsonObject(value) || value.sessionUpdate !== 'plan') return undefined;
  return { sessionUpdate: 'plan', entries: readItems(value.entries, readPlanEntry) ?? [] };
}

/**
 * `sessionUpdate` kinds the mapper knows and deliberately does not turn into messages (session state,
 * not transcript): usage, commands, modes, configuration, session title. Counted as skipped, `ignored`.
 */
export const IGNORED_SESSION_UPDATES: ReadonlySet<string> = new Set([
  'usage_update',
  'available_commands_update',
  'current_mode_update',
  'config_option_update',
  'session_info_update',
]);

// --- JSON-RPC ------------------------------------------------------------------------------------

/** A JSON-RPC request id. */
export const RequestIdSchema = z.union([z.string(), z.number()]);

/** A JSON-RPC 2.0 message, either direction: a request, a notification or a response. */
export const JsonRpcMessageSchema = z.object({
  jsonrpc: z.string().optional(),
  id: RequestIdSchema.nullish(),
  method: z.string().optional(),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: lenient(z.object({ code: z.number().optional(), message: z.string().default('') })),
});
/** A JSON-RPC message. */
export type JsonRpcMessage = z.infer<typeof JsonRpcMessageSchema>;

/**
 * `event` as {@link JsonRpcMessageSchema} reads it, checked without zod, or `undefined` when the schema
 * refuses it. The envelope of every line is only a few typed fields, and what it carries is validated by
 * the schema of its method or update: one validation per message, not one per layer.
 */
export function readJsonRpcMessage(event: JsonObject): JsonRpcMessage | undefined {
  const { jsonrpc, id, method } = event;
  if (jsonrpc !== undefined && typeof jsonrpc !== 'string') return undefined;
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') return undefined;
  if (method !== undefined && typeof method !== 'string') return undefined;
  return { jsonrpc, id, method, params: event.params, result: event.result, error: rpcError(event.error) };
}

/** A JSON-RPC `error` as the schema's lenient field reads it: `{ code?, message }`, or absent when malformed. */
function rpcError(value: unknown): JsonRpcMessage['error'] {
  if (!isJsonObject(value)) return undefined;
  const { code, message } = value;
  if (
    (code !== undefined && typeof code !== 'number') ||
    (message !== undefined && typeof message !== 'string')
  )
    return undefined;
  return code === undefined ? { message: message ?? '' } : { code, message: message ?? '' };
}

/** `session/update` params. */
export const SessionNotificationSchema = z.object({
  sessionId: z.string().optional(),
  update: z.object({ sessionUpdate: z.string() }).loose(),
});

/**
 * The update of `session/update` params, when {@link SessionNotificationSchema} accepts them (checked
 * without zod, and without copying the update: the update's own schema reads it next).
 */
export function readSessionUpdate(params: unknown): JsonObject | undefined {
  if (!isJsonObject(params) || (params.sessionId !== undefined && typeof params.sessionId !== 'string'))
    return undefined;
  const update = params.update;
  return isJsonObject(update) && typeof update.sessionUpdate === 'string' ? update : undefined;
}

/** `session/prompt` params: the user's prompt as content blocks. */
export const PromptRequestSchema = z.object({
  sessionId: z.string().optional(),
  prompt: validItems(ContentBlockSchema),
});

/** A permission option: `optionId`, `name`, `kind` (`allow_once | allow_always | reject_once | reject_always`). */
export const AcpPermissionOptionSchema = z.object({
  optionId: z.string(),
  name: z.string(),
  kind: z.string(),
});

/** `session/request_permission` params. */
export const RequestPermissionSchema = z.object({
  sessionId: z.string().optional(),
  toolCall: ToolCallFieldsSchema,
  options: z.array(AcpPermissionOptionSchema),
});

/** A permission option. */
export type AcpPermissionOption = z.infer<typeof AcpPermissionOptionSchema>;

// A prompt and a permission request come once per turn or call, not per line, but their zod parses still
// cost more than the rest of reading them: they are read by hand too (the same property test holds them).

/** `session/prompt` params as {@link PromptRequestSchema} reads them, or `undefined` when it refuses them. */
export function readPromptRequest(params: unknown): z.infer<typeof PromptRequestSchema> | undefined {
  if (!isJsonObject(params) || (params.sessionId !== undefined && typeof params.sessionId !== 'string'))
    return undefined;
  const prompt = readItems(params.prompt, readContentBlock);
  if (prompt === undefined) return undefined;
  return params.sessionId === undefined ? { prompt } : { sessionId: params.sessionId, prompt };
}

/** A permission option as {@link AcpPermissionOptionSchema} reads it, or `undefined` when it refuses it. */
export function readPermissionOption(value: unknown): AcpPermissionOption | undefined {
  if (!isJsonObject(value)) return undefined;
  const { optionId, name, kind } = value;
  return typeof optionId === 'string' && typeof name === 'string' && typeof kind === 'string'
    ? { optionId, name, kind }
    : undefined;
}

/** `session/request_permission` params as {@link RequestPermissionSchema} reads them, or `undefined` when it refuses them. */
export function readRequestPermission(params: unknown): z.infer<typeof RequestPermissionSchema> | undefined {
  if (!isJsonObject(params) || (params.sessionId !== undefined && typeof params.sessionId !== 'string'))
    return undefined;
  const toolCall = readToolCallFields(params.toolCall);
  if (toolCall === undefined || !Array.isArray(params.options)) return undefined;
  const options: AcpPermissionOption[] = [];
  for (const item of params.options) {
    const option = readPermissionOption(item);
    if (option === undefined) return undefined;
    options.push(option);
  }
  return params.sessionId === undefined
    ? { toolCall, options }
    : { sessionId: params.sessionId, toolCall, options };
}

/** The result of `session/request_permission`: an option was selected, or the request was cancelled. */
export const RequestPermissionResultSchema = z.object({
  outcome: z.object({ outcome: z.string(), optionId: lenient(z.string()) }),
});

/** The result of `session/prompt`: why the turn stopped. */
export const PromptResultSchema = z.object({ stopReason: z.string() });
