/**
 * Which provider wrote a log, from its first events: what `happy-media map` reads when `--from` is left
 * out, and what it checks a given `--from` against. Each event votes for the format its shape shows;
 * the format with the most votes wins, and a log no event recognises is `unknown`.
 *
 * @module
 */
import { isJsonObject, type JsonObject } from './provider-json.js';

/** A log format {@link detectAgentLog} recognises, and the provider (`--from`) that reads it. */
export const AGENT_LOG_FORMATS = {
  'claude-session': { provider: 'claude', description: 'a Claude Code session log' },
  'claude-stream-json': { provider: 'claude', description: 'Claude Code stream-json (Agent SDK) output' },
  'codex-rollout': { provider: 'codex', description: 'a Codex session rollout' },
  'codex-exec-json': { provider: 'codex', description: '`codex exec --json` output' },
  'codex-protocol-events': { provider: 'codex', description: 'Codex protocol events' },
  'acp-json-rpc': { provider: 'acp', description: 'an Agent Client Protocol session (JSON-RPC)' },
  'happy-records': { provider: 'happy', description: "Happy's stored session records" },
} as const;

/** A log format's name. */
export type AgentLogFormat = keyof typeof AGENT_LOG_FORMATS;

/** What {@link detectAgentLog} found. */
export type DetectedAgentLog =
  | {
      /** The provider that reads the log: `claude`, `codex`, `acp` or `happy`. */
      provider: (typeof AGENT_LOG_FORMATS)[AgentLogFormat]['provider'];
      /** The format the events showed. */
      format: AgentLogFormat;
      /** The format for people ("a Codex session rollout"). */
      description: string;
    }
  | { provider: 'unknown'; format: undefined; description: string };

/** How many events {@link detectAgentLog} looks at, at most. */
export const DETECT_EVENTS = 50;

const CLAUDE_TYPES: ReadonlySet<string> = new Set([
  'user',
  'assistant',
  'system',
  'result',
  'summary',
  'attachment',
  'file-history-snapshot',
  'queue-operation',
  'progress',
  'custom-title',
  'stream_event',
  'tool_progress',
  'control_request',
  'control_response',
  'rate_limit_event',
  'conversation_reset',
]);

const ROLLOUT_TYPES: ReadonlySet<string> = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
]);

const V2_TYPES: ReadonlySet<string> = new Set([
  'text',
  'service',
  'tool-call-start',
  'tool-call-end',
  'turn-start',
  'turn-end',
  'permission-request',
  'permission-response',
  'photo',
  'video',
  'file',
]);

/** The format one event's shape shows, if any. */
function formatOf(event: unknown): AgentLogFormat | undefined {
  if (!isJsonObject(event)) return undefined;
  const type = event.type;
  if (event.method === 'codex/event') return 'codex-protocol-events';
  if (event.jsonrpc === '2.0' || (typeof event.method === 'string' && event.method.includes('/'))) {
    return 'acp-json-rpc';
  }
  if (typeof event.sessionUpdate === 'string') return 'acp-json-rpc';
  if (typeof type === 'string') {
    if (typeof event.timestamp === 'string' && 'payload' in event && ROLLOUT_TYPES.has(type)) {
      return 'codex-rollout';
    }
    if (/^(thread|turn|item)\.[a-z_]+$/.test(type)) return 'codex-exec-json';
    if (CLAUDE_TYPES.has(type)) return claudeFormat(event);
    if (V2_TYPES.has(type) && typeof event.id === 'string' && typeof event.time === 'number') {
      return 'happy-records';
    }
  }
  if (isJsonObject(event.msg) && typeof event.msg.type === 'string') return 'codex-protocol-events';
  if (isJsonObject(event.op) && typeof event.op.type === 'string') return 'codex-protocol-events';
  if (isHappyRecord(event)) return 'happy-records';
  return undefined;
}

/** A Claude line: the session log's lines carry `uuid` and `sessionId`; the SDK's carry `session_id`. */
function claudeFormat(event: JsonObject): AgentLogFormat {
  if (typeof event.sessionId === 'string' || typeof event.parentUuid === 'string' || 'isSidechain' in event) {
    return 'claude-session';
  }
  return 'claude-stream-json';
}

/** Happy's records: `{ role, content }`, a decrypted server message, or what `readMessages` yields. */
function isHappyRecord(event: JsonObject): boolean {
  if (event.kind === 'message' || event.kind === 'legacy' || event.kind === 'unreadable') {
    return typeof event.seq === 'number' || 'recordId' in event;
  }
  if ((event.role === 'user' || event.role === 'agent' || event.role === 'session') && 'content' in event) {
    return true;
  }
  return isJsonObject(event.content) && ('createdAt' in event || 'seq' in event);
}

/**
 * Which provider wrote a log, from its first events (at most {@link DETECT_EVENTS} are read): a Claude
 * Code session log or stream-json output, a Codex rollout, `codex exec --json` output or protocol
 * events, an ACP JSON-RPC session, or Happy's stored records. Never throws: a log no event is
 * recognised in is `{ provider: 'unknown' }`.
 *
 * @example
 * ```ts
 * const detected = detectAgentLog(firstEvents);
 * if (detected.provider === 'unknown') return askUserWhichAgentWroteIt(); // the log is not one it knows
 * const mapper = createAgentMapper(detected.provider);
 * ```
 */
export function detectAgentLog(events: Iterable<unknown>): DetectedAgentLog {
  const votes = new Map<AgentLogFormat, number>();
  let read = 0;
  for (const event of events) {
    if (read++ >= DETECT_EVENTS) break;
    const format = formatOf(event);
    if (format !== undefined) votes.set(format, (votes.get(format) ?? 0) + 1);
  }
  let best: AgentLogFormat | undefined;
  for (const [format, count] of votes) {
    if (best === undefined || count > votes.get(best)!) best = format;
  }
  if (best === undefined) {
    return { provider: 'unknown', format: undefined, description: 'a log of no provider this version reads' };
  }
  // A Claude log mixes both shapes (stream-json carries no session fields): any session line decides.
  if (best === 'claude-stream-json' && votes.has('claude-session')) best = 'claude-session';
  const { provider, description } = AGENT_LOG_FORMATS[best];
  return { provider, format: best, description };
}
