/**
 * The builders' check of a message against its strict schema, without zod: a mapper builds a message
 * per event, and the zod parse cost more than reading the event. For the types it knows (all but the
 * media types, whose fields have grammars of their own) it builds the message the schema would return
 * (the same fields with a value, in the schema's key order) and checks it in the same pass, with a
 * branch per type so every field is read by name; it says yes only to what the strict schema accepts
 * (a property test holds it to the schemas). When it says no, or meets anything unusual (a class
 * instance, args that are not a plain object), the builder asks the schema itself, which also words the
 * error. Either way each message is validated once.
 *
 * @module
 */
import { isId } from './fields.js';

type Fields = Record<string, unknown>;

// One bit per message type (the user's text apart: it has no `thinking`), for the unknown-key check.
const TURN_START = 1;
const TURN_END = 2;
const AGENT_TEXT = 4;
const USER_TEXT = 8;
const CALL_START = 16;
const CALL_END = 32;
const PERMISSION_REQUEST = 64;
const PERMISSION_RESPONSE = 128;
const SERVICE = 256;
const EVERY_TYPE = 511;

/** The types whose schema has the key `key` (0: none). */
function typesWithKey(key: string): number {
  switch (key) {
    case 'id':
    case 'time':
    case 'turn':
    case 'parentId':
    case 'agentId':
    case 'role':
    case 'type':
      return EVERY_TYPE;
    case 'status':
      return TURN_END;
    case 'text':
      return AGENT_TEXT | USER_TEXT | SERVICE;
    case 'thinking':
      return AGENT_TEXT;
    case 'callId':
      return CALL_START | CALL_END | PERMISSION_REQUEST | PERMISSION_RESPONSE;
    case 'toolName':
    case 'title':
    case 'description':
    case 'args':
      return CALL_START | PERMISSION_REQUEST;
    case 'agentTitle':
      return CALL_START;
    case 'error':
      return CALL_END;
    case 'options':
      return PERMISSION_REQUEST;
    case 'optionId':
      return PERMISSION_RESPONSE;
    default:
      return 0;
  }
}

/** The bit of `type` written by `role`; 0 for a type the check leaves to the schema or a role it does not allow. */
function typeBit(type: string, role: unknown): number {
  switch (type) {
    case 'turn-start':
      return role === 'agent' ? TURN_START : 0;
    case 'turn-end':
      return role === 'agent' ? TURN_END : 0;
    case 'text':
      return role === 'agent' ? AGENT_TEXT : role === 'user' ? USER_TEXT : 0;
    case 'tool-call-start':
      return role === 'agent' ? CALL_START : 0;
    case 'tool-call-end':
      return role === 'agent' ? CALL_END : 0;
    case 'permission-request':
      return role === 'agent' ? PERMISSION_REQUEST : 0;
    case 'permission-response':
      return role === 'user' ? PERMISSION_RESPONSE : 0;
    case 'service':
      return role === 'agent' ? SERVICE : 0;
    default:
      return 0;
  }
}

function isTime(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isOptionalId(value: unknown): boolean {
  return value === undefined || isId(value);
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function isToolName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isTurnStatus(value: unknown): boolean {
  return value === 'completed' || value === 'failed' || value === 'cancelled';
}

function isOptionKind(value: unknown): boolean {
  return (
    value === 'allow-once' || value === 'allow-always' || value === 'reject-once' || value === 'reject-always'
  );
}

/**
 * A copy of `value` when it is a plain object with string keys only, as `z.record(z.string(),
 * z.unknown())` reads it; `undefined` otherwise (an own `__proto__` key, which the schema's copy turns
 * into a prototype, is left to the schema too).
 */
function plainRecordCopy(value: unknown): Fields | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const prototype = Object.getPrototypeOf(value);
  if (
    (prototype !== Object.prototype && prototype !== null) ||
    Object.hasOwn(value, '__proto__') ||
    Object.getOwnPropertySymbols(value).length > 0
  ) {
    return undefined;
  }
  return { ...(value as Fields) };
}

/** The options of a permission request, copied as the schema writes them; `undefined` when invalid. */
function optionsCopy(value: unknown): Fields[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const options: Fields[] = [];
  for (let i = 0; i < value.length; i++) {
    const option: unknown = value[i];
    if (typeof option !== 'object' || option === null || Array.isArray(option)) return undefined;
    const fields = option as Fields;
    for (const key in fields) if (key !== 'id' && key !== 'label' && key !== 'kind') return undefined;
    const { id, label, kind } = fields;
    if (!isId(id) || typeof label !== 'string' || !isOptionKind(kind)) return undefined;
    // Option ids are unique (a response names its option by id); requests carry a handful.
    for (let j = 0; j < options.length; j++) if (options[j]!.id === id) return undefined;
    options.push({ id, label, kind });
  }
  return options;
}

/**
 * `message` (its common fields set) with the fields of its type, `bit`, copied from `fields` in the
 * schema's key order once each is checked, or `undefined` to ask the schema.
 */
function withTypeFields(bit: number, fields: Fields, message: Fields): Fields | undefined {
  switch (bit) {
    case TURN_START:
      return message;
    case TURN_END:
      if (!isTurnStatus(fields.status)) return undefined;
      message.status = fields.status;
      return message;
    case AGENT_TEXT:
    case USER_TEXT: {
      const { text, thinking } = fields;
      if (typeof text !== 'string' || (thinking !== undefined && typeof thinking !== 'boolean'))
        return undefined;
      message.text = text;
      if (thinking !== undefined) message.thinking = thinking;
      return message;
    }
    case CALL_START: {
      const { callId, toolName, title, description, agentTitle } = fields;
      const args = plainRecordCopy(fields.args);
      if (
        !isId(callId) ||
        !isToolName(toolName) ||
        typeof title !== 'string' ||
        typeof description !== 'string' ||
        args === undefined ||
        !isOptionalString(agentTitle)
      ) {
        return undefined;
      }
      message.callId = callId;
      message.toolName = toolName;
      message.title = title;
      message.description = description;
      message.args = args;
      if (agentTitle !== undefined) message.agentTitle = agentTitle;
      return message;
    }
    case CALL_END: {
      const { callId, error } = fields;
      if (!isId(callId) || !isOptionalString(error)) return undefined;
      message.callId = callId;
      if (error !== undefined) message.error = error;
      return message;
    }
    case PERMISSION_REQUEST: {
      const { callId, toolName, title, description } = fields;
      const args = fields.args === undefined ? undefined : plainRecordCopy(fields.args);
      const options = optionsCopy(fields.options);
      if (
        !isId(callId) ||
        !isToolName(toolName) ||
        typeof title !== 'string' ||
        !isOptionalString(description) ||
        (fields.args !== undefined && args === undefined) ||
        options === undefined
      ) {
        return undefined;
      }
      message.callId = callId;
      message.toolName = toolName;
      message.title = title;
      if (description !== undefined) message.description = description;
      if (args !== undefined) message.args = args;
      message.options = options;
      return message;
    }
    case PERMISSION_RESPONSE: {
      const { callId, optionId } = fields;
      if (!isId(callId) || !isId(optionId)) return undefined;
      message.callId = callId;
      message.optionId = optionId;
      return message;
    }
    case SERVICE:
      if (typeof fields.text !== 'string') return undefined;
      message.text = fields.text;
      return message;
    default:
      return undefined;
  }
}

/**
 * The message a builder makes of `fields` (with `id`, `time`, `type` and, when given, `role` over
 * theirs), built in the schema's key order and checked in one pass, or `undefined` to ask the schema.
 */
export function buildChecked(
  type: string,
  role: unknown,
  fields: Fields,
  id: unknown,
  time: unknown,
): Fields | undefined {
  const writer = role === undefined ? fields.role : role;
  const bit = typeBit(type, writer);
  if (bit === 0) return undefined;
  const prototype = Object.getPrototypeOf(fields);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  for (const key in fields) if ((typesWithKey(key) & bit) === 0) return undefined;
  const { turn, parentId, agentId } = fields;
  // Every agent type but `service` carries its turn; the user's may.
  const turnRequired = writer === 'agent' && bit !== SERVICE;
  if (turnRequired ? !isId(turn) : !isOptionalId(turn)) return undefined;
  if (!isId(id) || !isTime(time) || !isOptionalId(parentId) || !isOptionalId(agentId)) return undefined;
  const message: Fields = { id, time };
  if (turn !== undefined) message.turn = turn;
  if (parentId !== undefined) message.parentId = parentId;
  if (agentId !== undefined) message.agentId = agentId;
  message.role = writer;
  message.type = type;
  return withTypeFields(bit, fields, message);
}

/**
 * The message the strict schema would return for `value`, when the check knows its type and the
 * schema accepts it; `undefined` means "ask the schema".
 */
export function checkedMessage(value: unknown): Fields | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const m = value as Fields;
  if (typeof m.type !== 'string' || typeof m.role !== 'string') return undefined;
  return buildChecked(m.type, m.role, m, m.id, m.time);
}
