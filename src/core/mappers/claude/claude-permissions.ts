/**
 * Claude Code's permission prompts in v2 terms: the options a `permission-request` offers, the
 * `can_use_tool` control request and its answer (stream-json), the answer Happy's CLI recorded on a
 * tool result (legacy records), and what a tool result's text says about a prompt (rejected,
 * interrupted).
 *
 * @module
 */
import type { PermissionOption } from '../../protocol/index.js';
import { jsonObject, nonEmptyString } from '../provider-json.js';

/** The choices Claude Code offers for a tool call, as v2 permission options. */
export const CLAUDE_PERMISSION_OPTIONS: readonly PermissionOption[] = [
  { id: 'allow-once', label: 'Allow once', kind: 'allow-once' },
  { id: 'allow-always', label: "Allow, and don't ask again", kind: 'allow-always' },
  { id: 'reject-once', label: 'Deny', kind: 'reject-once' },
];

/** A `can_use_tool` control request. */
export interface CanUseToolRequest {
  requestId: string;
  toolName: string;
  input: unknown;
  /** The call it is about (Claude Code sends it since 1.0.x; older versions do not). */
  toolUseId?: string;
  /** What the CLI would show (newer versions). */
  title?: string;
  description?: string;
}

/**
 * Reads `{ type: 'control_request', request_id, request: { subtype: 'can_use_tool', tool_name, input,
 * tool_use_id?, title?, description? } }`, or returns `undefined` for any other control request.
 */
export function parseCanUseTool(event: Record<string, unknown>): CanUseToolRequest | undefined {
  const request = jsonObject(event.request);
  const requestId = nonEmptyString(event.request_id);
  if (request?.subtype !== 'can_use_tool' || requestId === undefined) return undefined;
  const toolName = nonEmptyString(request.tool_name);
  if (toolName === undefined) return undefined;
  const toolUseId = nonEmptyString(request.tool_use_id);
  const title = nonEmptyString(request.title);
  const description = nonEmptyString(request.description) ?? nonEmptyString(request.decision_reason);
  return {
    requestId,
    toolName,
    input: request.input,
    ...(toolUseId === undefined ? {} : { toolUseId }),
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
  };
}

/**
 * Reads the host's answer `{ type: 'control_response', response: { subtype: 'success', request_id,
 * response: { behavior: 'allow' | 'deny', updatedPermissions? } } }` as the option chosen: `allow` with
 * permission updates is `allow-always`, without `allow-once`; `deny` is `reject-once`. An `error`
 * answer (the host failed) chose nothing: `undefined`.
 */
export function parseControlResponse(
  event: Record<string, unknown>,
): { requestId: string; optionId: string } | undefined {
  const response = jsonObject(event.response);
  const requestId = nonEmptyString(response?.request_id);
  if (response?.subtype !== 'success' || requestId === undefined) return undefined;
  const answer = jsonObject(response.response);
  if (answer?.behavior === 'allow') {
    const updates = answer.updatedPermissions;
    return {
      requestId,
      optionId: Array.isArray(updates) && updates.length > 0 ? 'allow-always' : 'allow-once',
    };
  }
  if (answer?.behavior === 'deny') return { requestId, optionId: 'reject-once' };
  return undefined;
}

/**
 * The option Happy's CLI recorded on a legacy tool result (`permissions: { result, decision? }`):
 * `approved_for_session` is `allow-always`, `approved` `allow-once`, `denied` and `abort` `reject-once`.
 */
export function legacyPermissionOption(permissions: unknown): string | undefined {
  const p = jsonObject(permissions);
  if (p === undefined) return undefined;
  switch (p.decision) {
    case 'approved_for_session':
      return 'allow-always';
    case 'approved':
      return 'allow-once';
    case 'denied':
    case 'abort':
      return 'reject-once';
    default:
      break;
  }
  if (p.result === 'approved') return 'allow-once';
  if (p.result === 'denied') return 'reject-once';
  return undefined;
}

// Claude Code's own text, and the one older Happy CLIs answered a denied prompt with.
const REJECTION =
  /^(?:Error: )?(?:The user doesn't want to proceed with this tool use\.|Permission denied by user)/;
const INTERRUPT = /^(?:Error: )?\[Request interrupted by user(?: for tool use)?\]/;

/** True for the text of a tool call the user rejected at its permission prompt (Claude Code's, or Happy's). */
export function isRejectionText(text: string): boolean {
  return REJECTION.test(text);
}

/** True for Claude Code's interrupt marker (`[Request interrupted by user]`, `… for tool use]`). */
export function isInterruptText(text: string): boolean {
  return INTERRUPT.test(text.trim());
}
