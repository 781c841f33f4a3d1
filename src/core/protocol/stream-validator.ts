/**
 * The stream validator: checks that a sequence of messages obeys the rules of the immutable,
 * append-only Session Protocol v2 stream, one message at a time (for a live stream) or as a whole.
 *
 * Every problem becomes a {@link StreamViolation} with the message's index and a stable rule code
 * ({@link STREAM_RULES}); validation never throws on bad input. After a violation the validator
 * recovers in the least surprising way (documented per rule) so that one mistake is reported once,
 * not at every following message.
 *
 * Turns: at most one turn is open at a time. By default a stream may begin in the middle of a turn (an
 * excerpt, a page of history, the design's own subagent example): before the stream has shown any
 * `turn-start` or `turn-end`, the first turn id seen is taken as the open turn. `requireTurnStart`
 * turns that allowance off for streams known to be complete.
 *
 * Time: devices write messages with their own clocks (the phone writes user messages, the machine
 * writes agent messages), so `time` may step back a little; it must never be more than
 * `timeToleranceMs` (default 60 000) below the latest time seen so far.
 *
 * @module
 */
import { IdSchema } from './fields.js';
import { MESSAGE_TYPES, type PermissionRequestMessage, type SessionMessage } from './messages.js';
import { type ParseMode, parseSessionMessage } from './parse.js';

/** Default clock-skew allowance: one minute. */
export const DEFAULT_TIME_TOLERANCE_MS = 60_000;

/** Every rule, by its stable code, with what it requires. */
export const STREAM_RULES = {
  INVALID_JSON: 'each line of a JSONL stream is one JSON value',
  LINE_TOO_LONG: 'each line of a JSONL stream is at most maxLineBytes long',
  SCHEMA: 'each message matches the schema of its type and role',
  UNKNOWN_TYPE: 'each message has one of the 11 types (a newer type is skipped by readers)',
  DUPLICATE_ID: 'message ids are unique in the stream',
  TIME_WENT_BACKWARDS: 'time never drops more than the tolerance below the latest time seen',
  TURN_ALREADY_OPEN: 'turn-start only when no turn is open (turns do not nest or overlap)',
  TURN_ID_REUSED: 'a turn id is started once',
  TURN_NOT_OPEN: 'turn-end and every message carrying a turn need that turn to be open',
  TURN_MISMATCH: 'a message carrying a turn names the open turn',
  CALL_ID_REUSED: 'a callId is started once',
  CALL_NOT_OPEN: 'tool-call-end closes an open tool-call-start with the same callId, once',
  CALL_CONTEXT_MISMATCH: 'tool-call-end carries the same parentId and agentId as its tool-call-start',
  CALL_LEFT_OPEN: 'a turn that ends "completed" has ended all its tool calls',
  PERMISSION_OUTSIDE_CALL: 'permission-request sits between the start and the end of its tool call',
  PERMISSION_ALREADY_PENDING: 'a tool call has at most one unanswered permission request',
  PERMISSION_RESPONSE_UNMATCHED: 'permission-response answers an unanswered request of an open tool call',
  PERMISSION_OPTION_UNKNOWN: "permission-response's optionId is one of the request's option ids",
  PARENT_UNKNOWN: 'parentId names a callId started earlier in the stream',
} as const;

/** Stable code of a stream rule, e.g. `DUPLICATE_ID`. */
export type StreamViolationCode = keyof typeof STREAM_RULES;

/** One rule broken by one message. */
export interface StreamViolation {
  /** 0-based index of the message in the stream (blank JSONL lines are not counted). */
  index: number;
  /** Stable rule code (see {@link STREAM_RULES}). */
  code: StreamViolationCode;
  /** What is wrong and what to do, for people. */
  message: string;
  /** The offending message's id, when it has a well-formed one. */
  id?: string;
}

/** Options of {@link createStreamValidator} and {@link validateStream}. */
export interface StreamValidatorOptions {
  /** How each message is parsed: `tolerant` (default) drops unknown fields, `strict` reports them. */
  mode?: ParseMode;
  /** How far (ms) `time` may step back below the latest time seen; default 60 000. */
  timeToleranceMs?: number;
  /** When true, every turn must be opened by `turn-start`, even at the head of the stream. Default false. */
  requireTurnStart?: boolean;
}

/** An incremental validator; see {@link createStreamValidator}. */
export interface StreamValidator {
  /** Checks the next message (any value: it is parsed first) and returns the violations it caused. */
  push(message: unknown): StreamViolation[];
  /**
   * Records the next position as unreadable (a JSONL line that is not JSON or is too long) and returns
   * its violation. The stream's other rules are unaffected.
   */
  pushUnreadable(code: 'INVALID_JSON' | 'LINE_TOO_LONG', message: string): StreamViolation;
  /** Every violation so far, in order. */
  readonly violations: readonly StreamViolation[];
  /** How many messages (including unreadable ones) were pushed. */
  readonly messageCount: number;
  /** The turn open after the last message, if any. */
  readonly openTurn: string | undefined;
}

interface CallState {
  turn: string;
  parentId: string | undefined;
  agentId: string | undefined;
  pending: PermissionRequestMessage | undefined;
}

/** The message of one type. */
type MessageOf<T extends SessionMessage['type']> = Extract<SessionMessage, { type: T }>;

/** Records one violation of the message being checked. */
type Report = (code: StreamViolationCode, text: string) => void;

const quote = (value: string) => JSON.stringify(value);

function wellFormedId(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const id = (value as { id?: unknown }).id;
  return IdSchema.safeParse(id).success ? (id as string) : undefined;
}

/**
 * The stream rules applied one message at a time: the state a stream has built so far (ids, turns,
 * calls) and one method per rule family. A violation is reported, then the state recovers as the
 * module comment says.
 */
class StreamRuleChecker implements StreamValidator {
  readonly #mode: ParseMode;
  readonly #tolerance: number;
  readonly #requireTurnStart: boolean;
  readonly #violations: StreamViolation[] = [];
  readonly #idIndex = new Map<string, number>();
  readonly #seenTurns = new Set<string>();
  readonly #calls = new Map<string, CallState>();
  /**
   * The calls open now, in start order (a call is open exactly while it is here): a turn's end looks only
   * at these, not at every call of the stream (which made validating a long stream quadratic in its length).
   */
  readonly #openCalls = new Map<string, CallState>();
  #index = -1;
  #latestTime: number | undefined;
  #openTurn: string | undefined;
  /** True once the stream has shown a turn boundary (or the head turn was taken as open). */
  #framed = false;

  constructor(options: StreamValidatorOptions) {
    this.#mode = options.mode ?? 'tolerant';
    this.#tolerance = Math.max(0, options.timeToleranceMs ?? DEFAULT_TIME_TOLERANCE_MS);
    this.#requireTurnStart = options.requireTurnStart ?? false;
  }

  get violations(): readonly StreamViolation[] {
    return this.#violations;
  }

  get messageCount(): number {
    return this.#index + 1;
  }

  get openTurn(): string | undefined {
    return this.#openTurn;
  }

  push(value: unknown): StreamViolation[] {
    this.#index += 1;
    const found: StreamViolation[] = [];
    const at = this.#index;
    const id = wellFormedId(value);
    const report: Report = (code, message) => {
      found.push({ index: at, code, message, ...(id === undefined ? {} : { id }) });
    };
    const parsed = parseSessionMessage(value, { mode: this.#mode });
    if (!parsed.success) {
      const type =
        typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
      if (typeof type === 'string' && !(MESSAGE_TYPES as readonly string[]).includes(type)) {
        report(
          'UNKNOWN_TYPE',
          `type ${quote(type.slice(0, 64))} is not one of the 11 Session Protocol v2 types`,
        );
      } else {
        report('SCHEMA', parsed.error.message);
      }
    } else {
      this.#check(parsed.data, report);
    }
    this.#violations.push(...found);
    return found;
  }

  pushUnreadable(code: 'INVALID_JSON' | 'LINE_TOO_LONG', message: string): StreamViolation {
    this.#index += 1;
    const violation: StreamViolation = { index: this.#index, code, message };
    this.#violations.push(violation);
    return violation;
  }

  /** Every rule for one parsed message, in order: stream-wide rules, then the rules of its type. */
  #check(message: SessionMessage, report: Report): void {
    this.#checkUniqueId(message, report);
    this.#checkTime(message, report);
    this.#checkParent(message, report);
    if (message.type === 'turn-start') {
      this.#onTurnStart(message, report);
      return;
    }
    if (message.type === 'turn-end') {
      this.#onTurnEnd(message, report);
      return;
    }
    if (message.turn !== undefined) this.#checkTurn(message, message.turn, report);
    switch (message.type) {
      case 'tool-call-start':
        this.#onToolCallStart(message, report);
        break;
      case 'tool-call-end':
        this.#onToolCallEnd(message, report);
        break;
      case 'permission-request':
        this.#onPermissionRequest(message, report);
        break;
      case 'permission-response':
        this.#onPermissionResponse(message, report);
        break;
      default:
        break;
    }
  }

  #closeCallsOfTurn(turn: string): string[] {
    const leftOpen: string[] = [];
    for (const [callId, call] of this.#openCalls) {
      if (call.turn === turn) {
        leftOpen.push(callId);
        call.pending = undefined;
        this.#openCalls.delete(callId);
      }
    }
    return leftOpen;
  }

  /** True when a stream may still begin inside (or at the end of) a turn it never saw start: an excerpt's head. */
  #atExcerptHead(turn: string): boolean {
    return !this.#requireTurnStart && !this.#framed && !this.#seenTurns.has(turn);
  }

  /** A message carrying `turn`: TURN_NOT_OPEN, TURN_MISMATCH (or the head turn of an excerpt). */
  #checkTurn(message: SessionMessage, turn: string, report: Report): void {
    const openTurn = this.#openTurn;
    if (openTurn === undefined) {
      if (this.#atExcerptHead(turn)) {
        // The head of an excerpt: the turn began before the first message we see.
        this.#openTurn = turn;
        this.#seenTurns.add(turn);
        this.#framed = true;
        return;
      }
      report(
        'TURN_NOT_OPEN',
        `"${message.type}" names turn ${quote(turn)} but no turn is open; emit turn-start first (or drop "turn" from messages between turns)`,
      );
      if (!this.#seenTurns.has(turn)) {
        // Recover: report the missing turn-start once, then treat the turn as open.
        this.#openTurn = turn;
        this.#seenTurns.add(turn);
      }
      return;
    }
    if (openTurn !== turn) {
      report(
        'TURN_MISMATCH',
        `"${message.type}" names turn ${quote(turn)} but the open turn is ${quote(openTurn)}; messages inside a turn carry that turn's id`,
      );
    }
  }

  /** DUPLICATE_ID: ids are unique in the stream. */
  #checkUniqueId(message: SessionMessage, report: Report): void {
    const seenAt = this.#idIndex.get(message.id);
    if (seenAt !== undefined) {
      report(
        'DUPLICATE_ID',
        `id ${quote(message.id)} was already used by message ${seenAt}; give every message a fresh id`,
      );
    } else {
      this.#idIndex.set(message.id, this.#index);
    }
  }

  /** TIME_WENT_BACKWARDS: time never drops more than the tolerance below the latest time seen. */
  #checkTime(message: SessionMessage, report: Report): void {
    const latest = this.#latestTime;
    if (latest !== undefined && message.time < latest - this.#tolerance) {
      report(
        'TIME_WENT_BACKWARDS',
        `time ${message.time} is ${latest - message.time} ms before the latest time seen (${latest}); the tolerance is ${this.#tolerance} ms (is it in seconds instead of milliseconds, or out of order?)`,
      );
    }
    this.#latestTime = latest === undefined ? message.time : Math.max(latest, message.time);
  }

  /** PARENT_UNKNOWN: parentId names a tool call started earlier. */
  #checkParent(message: SessionMessage, report: Report): void {
    if (message.parentId !== undefined && !this.#calls.has(message.parentId)) {
      report(
        'PARENT_UNKNOWN',
        `parentId ${quote(message.parentId)} names no tool call started earlier in the stream; parentId is the callId of the spawning tool-call-start`,
      );
    }
  }

  /** turn-start: TURN_ALREADY_OPEN, TURN_ID_REUSED. */
  #onTurnStart(message: MessageOf<'turn-start'>, report: Report): void {
    if (this.#openTurn !== undefined) {
      report(
        'TURN_ALREADY_OPEN',
        `turn-start of ${quote(message.turn)} while turn ${quote(this.#openTurn)} is still open; end it with turn-end first`,
      );
      // Recover: the new turn replaces the unfinished one.
      this.#closeCallsOfTurn(this.#openTurn);
    } else if (this.#seenTurns.has(message.turn)) {
      report('TURN_ID_REUSED', `turn ${quote(message.turn)} was already started; each turn needs a fresh id`);
    }
    this.#openTurn = message.turn;
    this.#seenTurns.add(message.turn);
    this.#framed = true;
  }

  /** turn-end: TURN_NOT_OPEN, TURN_MISMATCH, CALL_LEFT_OPEN. */
  #onTurnEnd(message: MessageOf<'turn-end'>, report: Report): void {
    const openTurn = this.#openTurn;
    if (openTurn === undefined) {
      if (this.#atExcerptHead(message.turn)) {
        // An excerpt that begins with the end of a turn.
        this.#seenTurns.add(message.turn);
        this.#framed = true;
        return;
      }
      report('TURN_NOT_OPEN', `turn-end of ${quote(message.turn)} but no turn is open`);
      this.#framed = true;
      return;
    }
    if (openTurn !== message.turn) {
      report(
        'TURN_MISMATCH',
        `turn-end of ${quote(message.turn)} but the open turn is ${quote(openTurn)}; end the open turn`,
      );
      return;
    }
    const leftOpen = this.#closeCallsOfTurn(openTurn);
    if (message.status === 'completed') {
      for (const callId of leftOpen) {
        report(
          'CALL_LEFT_OPEN',
          `turn ${quote(message.turn)} ended "completed" but tool call ${quote(callId)} has no tool-call-end; end it first, or end the turn "failed"/"cancelled"`,
        );
      }
    }
    this.#openTurn = undefined;
    this.#framed = true;
  }

  /** tool-call-start: CALL_ID_REUSED. */
  #onToolCallStart(message: MessageOf<'tool-call-start'>, report: Report): void {
    if (this.#calls.has(message.callId)) {
      report(
        'CALL_ID_REUSED',
        `callId ${quote(message.callId)} was already started; each tool call needs a fresh callId`,
      );
      return;
    }
    const call: CallState = {
      // After a turn violation (already reported) the call joins the open turn, so its permission
      // round and end are judged on their own instead of cascading.
      turn: this.#openTurn ?? message.turn,
      parentId: message.parentId,
      agentId: message.agentId,
      pending: undefined,
    };
    this.#calls.set(message.callId, call);
    this.#openCalls.set(message.callId, call);
  }

  /** tool-call-end: CALL_NOT_OPEN, CALL_CONTEXT_MISMATCH. */
  #onToolCallEnd(message: MessageOf<'tool-call-end'>, report: Report): void {
    const call = this.#calls.get(message.callId);
    if (call === undefined || !this.#openCalls.has(message.callId)) {
      report(
        'CALL_NOT_OPEN',
        call === undefined
          ? `tool-call-end of ${quote(message.callId)} but no tool-call-start with that callId came before`
          : `tool-call-end of ${quote(message.callId)} but that call already ended (or its turn did)`,
      );
      return;
    }
    if (call.parentId !== message.parentId || call.agentId !== message.agentId) {
      report(
        'CALL_CONTEXT_MISMATCH',
        `tool-call-end of ${quote(message.callId)} carries parentId/agentId ${quote(String(message.parentId))}/${quote(String(message.agentId))} but its start carried ${quote(String(call.parentId))}/${quote(String(call.agentId))}; the end is written by the same agent as the start`,
      );
    }
    call.pending = undefined;
    this.#openCalls.delete(message.callId);
  }

  /** permission-request: PERMISSION_OUTSIDE_CALL, PERMISSION_ALREADY_PENDING. */
  #onPermissionRequest(message: MessageOf<'permission-request'>, report: Report): void {
    const call = this.#calls.get(message.callId);
    if (call === undefined || !this.#openCalls.has(message.callId)) {
      report(
        'PERMISSION_OUTSIDE_CALL',
        `permission-request for ${quote(message.callId)} but that tool call is not open; emit it between tool-call-start and tool-call-end`,
      );
      return;
    }
    if (call.pending !== undefined) {
      report(
        'PERMISSION_ALREADY_PENDING',
        `permission-request for ${quote(message.callId)} while an earlier request for that call is unanswered`,
      );
    }
    call.pending = message;
  }

  /** permission-response: PERMISSION_RESPONSE_UNMATCHED, PERMISSION_OPTION_UNKNOWN. */
  #onPermissionResponse(message: MessageOf<'permission-response'>, report: Report): void {
    const call = this.#calls.get(message.callId);
    const pending = this.#openCalls.get(message.callId)?.pending;
    if (call === undefined || pending === undefined) {
      report(
        'PERMISSION_RESPONSE_UNMATCHED',
        `permission-response for ${quote(message.callId)} but no unanswered permission-request of an open tool call has that callId`,
      );
      return;
    }
    if (!pending.options.some((option) => option.id === message.optionId)) {
      report(
        'PERMISSION_OPTION_UNKNOWN',
        `optionId ${quote(message.optionId)} is not one of the request's options (${pending.options.map((o) => quote(o.id)).join(', ')})`,
      );
      return; // the request stays unanswered
    }
    call.pending = undefined;
  }
}

/**
 * Creates an incremental stream validator for a live stream.
 *
 * @example
 * ```ts
 * const validator = createStreamValidator();
 * socket.on('message', (m) => {
 *   for (const v of validator.push(m)) console.warn(`index ${v.index}: ${v.code}: ${v.message}`);
 * });
 * ```
 */
export function createStreamValidator(options: StreamValidatorOptions = {}): StreamValidator {
  return new StreamRuleChecker(options);
}

/**
 * Validates a whole stream and returns every violation (empty when the stream is valid).
 *
 * @example
 * ```ts
 * const violations = validateStream(messages);
 * if (violations.length > 0) throw new StreamError(`${violations[0].code}: ${violations[0].message}`);
 * ```
 */
export function validateStream(
  messages: readonly unknown[],
  options: StreamValidatorOptions = {},
): StreamViolation[] {
  const validator = createStreamValidator(options);
  for (const message of messages) validator.push(message);
  return [...validator.violations];
}
