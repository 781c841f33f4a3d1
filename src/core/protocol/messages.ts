/**
 * Session Protocol v2: the zod schemas of the 11 message types, per role, exactly as the design's
 * "Full Type Definition", and the types inferred from them (so schema and type cannot drift).
 *
 * These schemas are strict (`z.strictObject`): an unknown field is an error. That is what we emit and
 * what builders check. Reading from the wire goes through `parseSessionMessage`, whose default
 * `tolerant` mode first drops fields the protocol does not know (see `parse.ts` and docs/protocol.md).
 *
 * Role rules: `turn-start`, `turn-end`, `tool-call-start`, `tool-call-end`, `permission-request` and
 * `service` are agent-only; `permission-response` is user-only; `text`, `photo`, `video` and `file`
 * exist for both roles. Agent messages carry `turn` (only `service` may omit it); user messages may
 * carry it (the design's `MessageBase` allows it) but never must; `thinking` exists only on agent text.
 *
 * @module
 */
import * as z from 'zod';
import {
  ArgsSchema,
  FileNameSchema,
  IdSchema,
  MimeTypeSchema,
  NonNegativeIntegerSchema,
  PermissionOptionKindSchema,
  ThumbhashSchema,
  TimeSchema,
  TurnStatusSchema,
} from './fields.js';
import { RefSchema } from './refs.js';

/** The 11 message types, in the design's order. */
export const MESSAGE_TYPES = [
  'turn-start',
  'turn-end',
  'text',
  'tool-call-start',
  'tool-call-end',
  'permission-request',
  'permission-response',
  'photo',
  'video',
  'file',
  'service',
] as const;

/** The `type` discriminator of a session message. */
export const MessageTypeSchema = z.enum(MESSAGE_TYPES);
/** One of the 11 message type strings. */
export type MessageType = z.infer<typeof MessageTypeSchema>;

/** Who wrote a message. */
export const RoleSchema = z.enum(['agent', 'user']);
/** `agent` or `user`. */
export type Role = z.infer<typeof RoleSchema>;

const agentOnly = (type: string) =>
  z.literal('agent', { error: `"${type}" messages are written by the agent only: expected role "agent"` });
const userOnly = (type: string) =>
  z.literal('user', { error: `"${type}" messages are written by the user only: expected role "user"` });

// Common fields (MessageBase). `turn` is optional here and made required per agent type below.
const base = {
  id: IdSchema,
  time: TimeSchema,
  turn: IdSchema.optional(),
  parentId: IdSchema.optional(),
  agentId: IdSchema.optional(),
};

const mediaFields = {
  ref: RefSchema,
  thumbhash: ThumbhashSchema,
  width: NonNegativeIntegerSchema,
  height: NonNegativeIntegerSchema,
};
const videoFields = {
  ...mediaFields,
  durationMs: NonNegativeIntegerSchema,
  mimeType: MimeTypeSchema,
  size: NonNegativeIntegerSchema,
};
const fileFields = {
  ref: RefSchema,
  name: FileNameSchema,
  size: NonNegativeIntegerSchema,
  mimeType: MimeTypeSchema,
};

// --- agent messages ---

/** `turn-start`: the agent begins processing a prompt. */
export const TurnStartMessageSchema = z.strictObject({
  ...base,
  role: agentOnly('turn-start'),
  type: z.literal('turn-start'),
  turn: IdSchema,
});
/** `turn-start` message. */
export type TurnStartMessage = z.infer<typeof TurnStartMessageSchema>;

/** `turn-end`: the agent finished the turn, with a status. */
export const TurnEndMessageSchema = z.strictObject({
  ...base,
  role: agentOnly('turn-end'),
  type: z.literal('turn-end'),
  turn: IdSchema,
  status: TurnStatusSchema,
});
/** `turn-end` message. */
export type TurnEndMessage = z.infer<typeof TurnEndMessageSchema>;

/** Agent `text` (markdown); `thinking: true` marks reasoning tokens. */
export const AgentTextMessageSchema = z.strictObject({
  ...base,
  role: z.literal('agent'),
  type: z.literal('text'),
  turn: IdSchema,
  text: z.string(),
  thinking: z.boolean().optional(),
});
/** Agent `text` message. */
export type AgentTextMessage = z.infer<typeof AgentTextMessageSchema>;

/** `tool-call-start`: the agent decided to invoke a tool (it may still wait for permission). */
export const ToolCallStartMessageSchema = z.strictObject({
  ...base,
  role: agentOnly('tool-call-start'),
  type: z.literal('tool-call-start'),
  turn: IdSchema,
  callId: IdSchema,
  toolName: z.string().min(1),
  title: z.string(),
  description: z.string(),
  args: ArgsSchema,
  agentTitle: z.string().optional(),
});
/** `tool-call-start` message. */
export type ToolCallStartMessage = z.infer<typeof ToolCallStartMessageSchema>;

/** `tool-call-end`: the tool invocation finished; `error` is set when it failed. */
export const ToolCallEndMessageSchema = z.strictObject({
  ...base,
  role: agentOnly('tool-call-end'),
  type: z.literal('tool-call-end'),
  turn: IdSchema,
  callId: IdSchema,
  error: z.string().optional(),
});
/** `tool-call-end` message. */
export type ToolCallEndMessage = z.infer<typeof ToolCallEndMessageSchema>;

/** One choice offered by a permission request. */
export const PermissionOptionSchema = z.strictObject({
  id: IdSchema,
  label: z.string(),
  kind: PermissionOptionKindSchema,
});
/** One choice offered by a permission request: `id`, `label`, `kind`. */
export type PermissionOption = z.infer<typeof PermissionOptionSchema>;

/** `permission-request`: the agent asks the user before running a tool call. */
export const PermissionRequestMessageSchema = z.strictObject({
  ...base,
  role: agentOnly('permission-request'),
  type: z.literal('permission-request'),
  turn: IdSchema,
  callId: IdSchema,
  toolName: z.string().min(1),
  title: z.string(),
  description: z.string().optional(),
  args: ArgsSchema.optional(),
  options: z
    .array(PermissionOptionSchema)
    .min(1, { error: 'expected at least one permission option' })
    .superRefine((options, context) => {
      const seen = new Set<string>();
      options.forEach((option, index) => {
        if (seen.has(option.id)) {
          context.addIssue({
            code: 'custom',
            path: [index, 'id'],
            message: 'expected unique option ids: a response names its option by id',
          });
        }
        seen.add(option.id);
      });
    }),
});
/** `permission-request` message. */
export type PermissionRequestMessage = z.infer<typeof PermissionRequestMessageSchema>;

/** Agent `photo`: an uploaded image with a ThumbHash placeholder. */
export const AgentPhotoMessageSchema = z.strictObject({
  ...base,
  role: z.literal('agent'),
  type: z.literal('photo'),
  turn: IdSchema,
  ...mediaFields,
});
/** Agent `photo` message. */
export type AgentPhotoMessage = z.infer<typeof AgentPhotoMessageSchema>;

/** Agent `video`: an uploaded video with a poster ThumbHash, dimensions, duration, type and size. */
export const AgentVideoMessageSchema = z.strictObject({
  ...base,
  role: z.literal('agent'),
  type: z.literal('video'),
  turn: IdSchema,
  ...videoFields,
});
/** Agent `video` message. */
export type AgentVideoMessage = z.infer<typeof AgentVideoMessageSchema>;

/** Agent `file`: any uploaded file, by ref, with display name, size and MIME type. */
export const AgentFileMessageSchema = z.strictObject({
  ...base,
  role: z.literal('agent'),
  type: z.literal('file'),
  turn: IdSchema,
  ...fileFields,
});
/** Agent `file` message. */
export type AgentFileMessage = z.infer<typeof AgentFileMessageSchema>;

/** `service`: a system message (context compaction, metadata); the only agent type whose `turn` is optional. */
export const ServiceMessageSchema = z.strictObject({
  ...base,
  role: agentOnly('service'),
  type: z.literal('service'),
  text: z.string(),
});
/** `service` message. */
export type ServiceMessage = z.infer<typeof ServiceMessageSchema>;

// --- user messages ---

/** User `text`: a prompt. Never carries `thinking`. */
export const UserTextMessageSchema = z.strictObject({
  ...base,
  role: z.literal('user'),
  type: z.literal('text'),
  text: z.string(),
});
/** User `text` message. */
export type UserTextMessage = z.infer<typeof UserTextMessageSchema>;

/** `permission-response`: the user picks one option of an open permission request. */
export const PermissionResponseMessageSchema = z.strictObject({
  ...base,
  role: userOnly('permission-response'),
  type: z.literal('permission-response'),
  callId: IdSchema,
  optionId: IdSchema,
});
/** `permission-response` message. */
export type PermissionResponseMessage = z.infer<typeof PermissionResponseMessageSchema>;

/** User `photo` (no `turn` required). */
export const UserPhotoMessageSchema = z.strictObject({
  ...base,
  role: z.literal('user'),
  type: z.literal('photo'),
  ...mediaFields,
});
/** User `photo` message. */
export type UserPhotoMessage = z.infer<typeof UserPhotoMessageSchema>;

/** User `video` (no `turn` required). */
export const UserVideoMessageSchema = z.strictObject({
  ...base,
  role: z.literal('user'),
  type: z.literal('video'),
  ...videoFields,
});
/** User `video` message. */
export type UserVideoMessage = z.infer<typeof UserVideoMessageSchema>;

/** User `file` (no `turn` required). */
export const UserFileMessageSchema = z.strictObject({
  ...base,
  role: z.literal('user'),
  type: z.literal('file'),
  ...fileFields,
});
/** User `file` message. */
export type UserFileMessage = z.infer<typeof UserFileMessageSchema>;

// --- unions of the types both roles may write ---

/** `text` from either role (discriminated by `role`). */
export const TextMessageSchema = z.discriminatedUnion('role', [
  AgentTextMessageSchema,
  UserTextMessageSchema,
]);
/** `text` message from either role. */
export type TextMessage = z.infer<typeof TextMessageSchema>;

/** `photo` from either role. */
export const PhotoMessageSchema = z.discriminatedUnion('role', [
  AgentPhotoMessageSchema,
  UserPhotoMessageSchema,
]);
/** `photo` message from either role. */
export type PhotoMessage = z.infer<typeof PhotoMessageSchema>;

/** `video` from either role. */
export const VideoMessageSchema = z.discriminatedUnion('role', [
  AgentVideoMessageSchema,
  UserVideoMessageSchema,
]);
/** `video` message from either role. */
export type VideoMessage = z.infer<typeof VideoMessageSchema>;

/** `file` from either role. */
export const FileMessageSchema = z.discriminatedUnion('role', [
  AgentFileMessageSchema,
  UserFileMessageSchema,
]);
/** `file` message from either role. */
export type FileMessage = z.infer<typeof FileMessageSchema>;

/** A media message: `photo`, `video` or `file`, either role. */
export type MediaMessage = PhotoMessage | VideoMessage | FileMessage;

/** Every message the agent may write. */
export const AgentMessageSchema = z.discriminatedUnion('type', [
  TurnStartMessageSchema,
  TurnEndMessageSchema,
  AgentTextMessageSchema,
  ToolCallStartMessageSchema,
  ToolCallEndMessageSchema,
  PermissionRequestMessageSchema,
  AgentPhotoMessageSchema,
  AgentVideoMessageSchema,
  AgentFileMessageSchema,
  ServiceMessageSchema,
]);
/** A message written by the agent. */
export type AgentMessage = z.infer<typeof AgentMessageSchema>;

/** Every message the user may write. */
export const UserMessageSchema = z.discriminatedUnion('type', [
  UserTextMessageSchema,
  PermissionResponseMessageSchema,
  UserPhotoMessageSchema,
  UserVideoMessageSchema,
  UserFileMessageSchema,
]);
/** A message written by the user. */
export type UserMessage = z.infer<typeof UserMessageSchema>;

/**
 * Any Session Protocol v2 message, strict. Discriminated by `type`, then by `role` for the four types
 * both roles write, so an error names the field that is wrong rather than "no union member matched".
 */
export const SessionMessageSchema = z.discriminatedUnion('type', [
  TurnStartMessageSchema,
  TurnEndMessageSchema,
  TextMessageSchema,
  ToolCallStartMessageSchema,
  ToolCallEndMessageSchema,
  PermissionRequestMessageSchema,
  PermissionResponseMessageSchema,
  PhotoMessageSchema,
  VideoMessageSchema,
  FileMessageSchema,
  ServiceMessageSchema,
]);
/** Any Session Protocol v2 message (agent or user). */
export type SessionMessage = z.infer<typeof SessionMessageSchema>;

/**
 * Every field name the protocol defines, on any message type. The tolerant reader drops keys outside
 * this set (fields from a newer writer) but still rejects a known field in the wrong place.
 */
export const KNOWN_MESSAGE_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'time',
  'role',
  'type',
  'turn',
  'parentId',
  'agentId',
  'status',
  'text',
  'thinking',
  'callId',
  'toolName',
  'title',
  'description',
  'args',
  'agentTitle',
  'error',
  'options',
  'optionId',
  'ref',
  'thumbhash',
  'width',
  'height',
  'durationMs',
  'mimeType',
  'size',
  'name',
]);

/** Every field name of a permission option. */
export const KNOWN_OPTION_FIELDS: ReadonlySet<string> = new Set(['id', 'label', 'kind']);
