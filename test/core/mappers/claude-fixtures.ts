/**
 * Hand-written Claude Code events (session JSONL lines and SDK stream-json messages) for the mapper
 * tests: the shapes of the recorded logs, written small.
 */
type Json = Record<string, unknown>;

let clock = Date.parse('2025-08-01T10:00:00.000Z');
let uuidCount = 0;

/** Resets the fixture clock and uuid counter (call in beforeEach). */
export function resetFixtures(): void {
  clock = Date.parse('2025-08-01T10:00:00.000Z');
  uuidCount = 0;
}

function line(
  fields: Json,
  options: { sidechain?: boolean; parentUuid?: string | null; uuid?: string } = {},
): Json {
  clock += 1000;
  uuidCount += 1;
  return {
    parentUuid: options.parentUuid ?? null,
    isSidechain: options.sidechain ?? false,
    userType: 'external',
    cwd: '/work/project',
    sessionId: 'session-1',
    version: '1.0.71',
    ...fields,
    uuid: options.uuid ?? `uuid-${uuidCount}`,
    timestamp: new Date(clock).toISOString(),
  };
}

/** A user prompt (string content, as Claude Code writes typed prompts). */
export function prompt(text: string, options: Parameters<typeof line>[1] = {}): Json {
  return line({ type: 'user', message: { role: 'user', content: text } }, options);
}

/** A user message with content blocks. */
export function userBlocks(blocks: Json[], options: Parameters<typeof line>[1] = {}): Json {
  return line({ type: 'user', message: { role: 'user', content: blocks } }, options);
}

/** One assistant line: Claude Code writes each block of an API message as its own line, same message id. */
export function assistant(messageId: string, blocks: Json[], options: Parameters<typeof line>[1] = {}): Json {
  return line(
    {
      type: 'assistant',
      message: {
        id: messageId,
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-4-1',
        content: blocks,
      },
    },
    options,
  );
}

export const text = (value: string): Json => ({ type: 'text', text: value });
export const thinking = (value: string): Json => ({ type: 'thinking', thinking: value, signature: 'sig' });
export const toolUse = (id: string, name: string, input: Json): Json => ({
  type: 'tool_use',
  id,
  name,
  input,
});
export const toolResult = (id: string, content: unknown, isError = false): Json => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
  ...(isError ? { is_error: true } : {}),
});
export const image = (data: string, mediaType?: string): Json => ({
  type: 'image',
  source: { type: 'base64', data, ...(mediaType === undefined ? {} : { media_type: mediaType }) },
});

/** An SDK message (no uuid chain, no timestamp; subagent messages carry `parent_tool_use_id`). */
export function sdk(
  type: 'assistant' | 'user',
  content: unknown,
  parentToolUseId: string | null = null,
  messageId?: string,
): Json {
  return {
    type,
    message:
      type === 'assistant'
        ? { id: messageId ?? `msg_${++uuidCount}`, role: 'assistant', model: 'claude-opus-4-1', content }
        : { role: 'user', content },
    parent_tool_use_id: parentToolUseId,
    session_id: 'session-1',
  };
}

/** A `can_use_tool` control request (stream-json, CLI → host). */
export function canUseTool(requestId: string, toolName: string, input: Json, toolUseId?: string): Json {
  return {
    type: 'control_request',
    request_id: requestId,
    request: {
      subtype: 'can_use_tool',
      tool_name: toolName,
      input,
      ...(toolUseId ? { tool_use_id: toolUseId } : {}),
    },
  };
}

/** The host's answer to a `can_use_tool` request. */
export function permissionAnswer(requestId: string, behavior: 'allow' | 'deny', always = false): Json {
  return {
    type: 'control_response',
    response: {
      subtype: 'success',
      request_id: requestId,
      response:
        behavior === 'allow'
          ? { behavior, updatedInput: {}, ...(always ? { updatedPermissions: [{ type: 'addRules' }] } : {}) }
          : { behavior, message: 'no' },
    },
  };
}

/** Claude Code's text of a rejected tool call. */
export const REJECTED =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
