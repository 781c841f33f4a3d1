/**
 * Builders: create a valid message from its fields, with a fresh cuid2 `id` and `time = Date.now()`.
 * Every builder checks its result against the strict schema before returning it (once: through the
 * quick check of `message-check.ts`, else the schema itself), so what we emit is always valid; pass
 * `{ id, time }` in the options to pin them (tests, replays).
 *
 * @module
 */
import type * as z from 'zod';
import { createMessageId } from './ids.js';
import { buildChecked } from './message-check.js';
import {
  type AgentFileMessage,
  type AgentPhotoMessage,
  type AgentTextMessage,
  type AgentVideoMessage,
  FileMessageSchema,
  type PermissionRequestMessage,
  PermissionRequestMessageSchema,
  type PermissionResponseMessage,
  PermissionResponseMessageSchema,
  PhotoMessageSchema,
  type ServiceMessage,
  ServiceMessageSchema,
  TextMessageSchema,
  type ToolCallEndMessage,
  ToolCallEndMessageSchema,
  type ToolCallStartMessage,
  ToolCallStartMessageSchema,
  type TurnEndMessage,
  TurnEndMessageSchema,
  type TurnStartMessage,
  TurnStartMessageSchema,
  type UserFileMessage,
  type UserPhotoMessage,
  type UserTextMessage,
  type UserVideoMessage,
  VideoMessageSchema,
} from './messages.js';
import { assertWith } from './schema-check.js';

/** Options of every builder: pin the generated `id` and `time`. */
export interface BuildOptions {
  /** Message id; a fresh cuid2 when omitted. */
  id?: string;
  /** Unix time in ms; `Date.now()` when omitted. */
  time?: number;
}

// The fields a caller gives: everything but id, time and type (and role, for agent- or user-only types).
type Fields<T> = T extends unknown ? Omit<T, 'id' | 'time' | 'type'> : never;
type RoleFixedFields<T> = T extends unknown ? Omit<T, 'id' | 'time' | 'type' | 'role'> : never;

/** Fields of {@link textMessage}: `role` decides which are allowed (`turn` and `thinking` for the agent). */
export type TextFields = Fields<AgentTextMessage | UserTextMessage>;
/** Fields of {@link photoMessage}. */
export type PhotoFields = Fields<AgentPhotoMessage | UserPhotoMessage>;
/** Fields of {@link videoMessage}. */
export type VideoFields = Fields<AgentVideoMessage | UserVideoMessage>;
/** Fields of {@link fileMessage}. */
export type FileFields = Fields<AgentFileMessage | UserFileMessage>;
/** Fields of {@link turnStart}. */
export type TurnStartFields = RoleFixedFields<TurnStartMessage>;
/** Fields of {@link turnEnd}. */
export type TurnEndFields = RoleFixedFields<TurnEndMessage>;
/** Fields of {@link toolCallStart}. */
export type ToolCallStartFields = RoleFixedFields<ToolCallStartMessage>;
/** Fields of {@link toolCallEnd}. */
export type ToolCallEndFields = RoleFixedFields<ToolCallEndMessage>;
/** Fields of {@link permissionRequest}. */
export type PermissionRequestFields = RoleFixedFields<PermissionRequestMessage>;
/** Fields of {@link permissionResponse}. */
export type PermissionResponseFields = RoleFixedFields<PermissionResponseMessage>;
/** Fields of {@link serviceMessage}. */
export type ServiceFields = RoleFixedFields<ServiceMessage>;

function build<S extends z.ZodType>(
  schema: S,
  what: string,
  type: string,
  role: string | undefined,
  fields: object,
  options: BuildOptions,
): z.infer<S> {
  const id = options.id ?? createMessageId();
  const time = options.time ?? Date.now();
  const checked = buildChecked(type, role, fields as Record<string, unknown>, id, time);
  if (checked !== undefined) return checked as z.infer<S>;
  // id/time/type/role go first so a caller's stray `type` in `fields` cannot silently win over them.
  const candidate = { ...fields, id, time, type, ...(role === undefined ? {} : { role }) };
  return assertWith(schema, candidate, what);
}

/**
 * Builds a `text` message.
 *
 * @throws {SchemaError} `ERR_SCHEMA` when a field is missing or invalid (e.g. `thinking` on a user message).
 * @example
 * ```ts
 * textMessage({ role: 'agent', turn, text: 'Found 3 TODOs.' });
 * textMessage({ role: 'user', text: 'Find TODOs' });
 * ```
 */
export function textMessage(
  fields: TextFields,
  options: BuildOptions = {},
): AgentTextMessage | UserTextMessage {
  return build(TextMessageSchema, 'text message', 'text', undefined, fields, options);
}

/**
 * Builds a `turn-start` message (role `agent`).
 *
 * @throws {SchemaError} `ERR_SCHEMA` when `turn` is missing or invalid.
 * @example
 * ```ts
 * const turn = createMessageId();
 * turnStart({ turn });
 * ```
 */
export function turnStart(fields: TurnStartFields, options: BuildOptions = {}): TurnStartMessage {
  return build(TurnStartMessageSchema, 'turn-start message', 'turn-start', 'agent', fields, options);
}

/**
 * Builds a `turn-end` message (role `agent`).
 *
 * @throws {SchemaError} `ERR_SCHEMA` when `turn` or `status` is missing or invalid.
 * @example
 * ```ts
 * turnEnd({ turn, status: 'completed' });
 * ```
 */
export function turnEnd(fields: TurnEndFields, options: BuildOptions = {}): TurnEndMessage {
  return build(TurnEndMessageSchema, 'turn-end message', 'turn-end', 'agent', fields, options);
}

/**
 * Builds a `tool-call-start` message (role `agent`).
 *
 * @throws {SchemaError} `ERR_SCHEMA` when a field is missing or invalid.
 * @example
 * ```ts
 * toolCallStart({ turn, callId: createMessageId(), toolName: 'bash', title: 'Run `ls`', description: 'List files', args: { command: 'ls' } });
 * ```
 */
export function toolCallStart(fields: ToolCallStartFields, options: BuildOptions = {}): ToolCallStartMessage {
  return build(
    ToolCallStartMessageSchema,
    'tool-call-start message',
    'tool-call-start',
    'agent',
    fields,
    options,
  );
}

/**
 * Builds a `tool-call-end` message (role `agent`). Give the same `parentId`/`agentId` as the start.
 *
 * @throws {SchemaError} `ERR_SCHEMA` when a field is missing or invalid.
 * @example
 * ```ts
 * toolCallEnd({ turn, callId, error: 'Command exited with code 1' });
 * ```
 */
export function toolCallEnd(fields: ToolCallEndFields, options: BuildOptions = {}): ToolCallEndMessage {
  return build(ToolCallEndMessageSchema, 'tool-call-end message', 'tool-call-end', 'agent', fields, options);
}

/**
 * Builds a `permission-request` message (role `agent`).
 *
 * @throws {SchemaError} `ERR_SCHEMA` when a field is invalid, `options` is empty or repeats an option id.
 * @example
 * ```ts
 * permissionRequest({ turn, callId, toolName: 'bash', title: 'Run `rm -rf dist`', options: [
 *   { id: 'yes', label: 'Allow once', kind: 'allow-once' }, { id: 'no', label: 'Deny', kind: 'reject-once' } ] });
 * ```
 */
export function permissionRequest(
  fields: PermissionRequestFields,
  options: BuildOptions = {},
): PermissionRequestMessage {
  return build(
    PermissionRequestMessageSchema,
    'permission-request message',
    'permission-request',
    'agent',
    fields,
    options,
  );
}

/**
 * Builds a `permission-response` message (role `user`).
 *
 * @throws {SchemaError} `ERR_SCHEMA` when `callId` or `optionId` is missing or invalid.
 * @example
 * ```ts
 * permissionResponse({ callId, optionId: 'yes' });
 * ```
 */
export function permissionResponse(
  fields: PermissionResponseFields,
  options: BuildOptions = {},
): PermissionResponseMessage {
  return build(
    PermissionResponseMessageSchema,
    'permission-response message',
    'permission-response',
    'user',
    fields,
    options,
  );
}

/**
 * Builds a `photo` message; agent photos need `turn`.
 *
 * @throws {SchemaError} `ERR_SCHEMA` when a field is invalid (bad ref, non-base64 thumbhash, negative or fractional size).
 * @example
 * ```ts
 * photoMessage({ role: 'user', ref: createMediaRef(), thumbhash, width: 800, height: 600 });
 * ```
 */
export function photoMessage(
  fields: PhotoFields,
  options: BuildOptions = {},
): AgentPhotoMessage | UserPhotoMessage {
  return build(PhotoMessageSchema, 'photo message', 'photo', undefined, fields, options);
}

/**
 * Builds a `video` message; agent videos need `turn`.
 *
 * @throws {SchemaError} `ERR_SCHEMA` when a field is invalid.
 * @example
 * ```ts
 * videoMessage({ role: 'agent', turn, ref, thumbhash, width: 1920, height: 1080, durationMs: 45000, mimeType: 'video/mp4', size: 104857600 });
 * ```
 */
export function videoMessage(
  fields: VideoFields,
  options: BuildOptions = {},
): AgentVideoMessage | UserVideoMessage {
  return build(VideoMessageSchema, 'video message', 'video', undefined, fields, options);
}

/**
 * Builds a `file` message; agent files need `turn`. `name` must be a plain file name, not a path.
 *
 * @throws {SchemaError} `ERR_SCHEMA` when a field is invalid.
 * @example
 * ```ts
 * fileMessage({ role: 'agent', turn, ref, name: 'report.pdf', size: 1024, mimeType: 'application/pdf' });
 * ```
 */
export function fileMessage(
  fields: FileFields,
  options: BuildOptions = {},
): AgentFileMessage | UserFileMessage {
  return build(FileMessageSchema, 'file message', 'file', undefined, fields, options);
}

/**
 * Builds a `service` message (role `agent`; `turn` optional).
 *
 * @throws {SchemaError} `ERR_SCHEMA` when a field is invalid.
 * @example
 * ```ts
 * serviceMessage({ text: 'Context window compacted' });
 * ```
 */
export function serviceMessage(fields: ServiceFields, options: BuildOptions = {}): ServiceMessage {
  return build(ServiceMessageSchema, 'service message', 'service', 'agent', fields, options);
}
