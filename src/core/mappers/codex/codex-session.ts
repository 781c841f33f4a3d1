/**
 * What every Codex input format shares while one log is read: the writer, the turn being read (Codex
 * marks where a turn begins, but v2 writes it at its first output), the errors of the turn, plans,
 * compaction notes, web searches waiting for their query, and approvals waiting for their answer. Each
 * format's reader (`exec-reader.ts`, `rollout-reader.ts`, `event-reader.ts`, `legacy-reader.ts`) writes
 * through one of these, so a log that mixes formats reads as one session.
 *
 * @module
 */
import type * as z from 'zod';
import type { PermissionOption, TurnStatus } from '../../protocol/index.js';
import { placeWith } from '../place-with.js';
import { PlanNotes } from '../plan.js';
import { isJsonObject, type JsonObject, typeName } from '../provider-json.js';
import type { CallFields, Placement, SessionWriter } from '../session-writer.js';
import { codeSpan } from '../titles.js';
import { ApprovalSubmissionSchema } from './codex-events.js';
import { webSearchCall } from './codex-tools.js';

/** The options of a command approval; ids are Codex's `ReviewDecision` names. */
export function execApprovalOptions(amendment: readonly string[] | null | undefined): PermissionOption[] {
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

/** The options of a patch approval. */
export const PATCH_APPROVAL_OPTIONS: readonly PermissionOption[] = [
  { id: 'approved', label: 'Yes, apply it', kind: 'allow-once' },
  { id: 'approved_for_session', label: "Yes, and don't ask again for these files", kind: 'allow-always' },
  { id: 'denied', label: 'No, continue without it', kind: 'reject-once' },
  { id: 'abort', label: 'No, and stop', kind: 'reject-once' },
];

/** The option id of a `ReviewDecision`: the string, or the one key of its object form. */
function decisionId(decision: unknown): string | undefined {
  if (typeof decision === 'string') return decision;
  if (isJsonObject(decision)) return Object.keys(decision)[0];
  return undefined;
}

/** The state of one Codex log shared by its format readers (see the module comment). */
export class CodexSession {
  readonly writer: SessionWriter;
  /** A turn marker was seen: user messages then no longer split turns. */
  sawTurnMarker = false;
  /** A turn boundary was read (`turn.started`, `task_started`, `turn_context`) and its turn not yet written. */
  #turnRequested = false;
  /** An error was reported in this turn: it ends `failed`. */
  #turnFailed = false;
  /** The last error text written, so `turn.failed` does not repeat the `error` before it. */
  #lastError: string | undefined;
  /** Web searches begun and not yet ended (their query comes with the end). */
  readonly #searches = new Map<string, Placement>();
  /** Calls with a pending approval (call id), for answers that name the turn instead of the call. */
  readonly #approvals = new Set<string>();
  readonly #plans = new PlanNotes();
  /** A compaction was noted and nothing written since (rollouts write `compacted` and `context_compacted`). */
  #compactionNoted = false;

  constructor(writer: SessionWriter) {
    this.writer = writer;
  }

  /**
   * `raw` parsed by the schema its `type` names in `schemas`; `undefined` after counting a skip: a type
   * not in the table is `unknown-event` (or `not-displayed` when `ignored` says so), one that does not
   * parse is `malformed-event`. `what` names the kind of record in the skip's detail. A type with a
   * reader in `readers` (one that accepts what its schema accepts, without zod) is read by it instead.
   */
  parseTagged<Schemas extends Record<string, z.ZodType>>(
    schemas: Schemas,
    raw: unknown,
    what: string,
    ignored: (type: unknown) => boolean = () => false,
    readers?: Readonly<Record<string, (raw: JsonObject) => z.infer<Schemas[keyof Schemas]> | undefined>>,
  ): z.infer<Schemas[keyof Schemas]> | undefined {
    const type = isJsonObject(raw) ? raw.type : undefined;
    if (typeof type !== 'string' || !Object.hasOwn(schemas, type)) {
      this.writer.skips.skip(ignored(type) ? 'not-displayed' : 'unknown-event', `${what} ${typeName(type)}`);
      return undefined;
    }
    let data: z.infer<Schemas[keyof Schemas]> | undefined;
    if (readers !== undefined && Object.hasOwn(readers, type)) data = readers[type]!(raw as JsonObject);
    else {
      const parsed = schemas[type as keyof Schemas]!.safeParse(raw);
      data = parsed.success ? (parsed.data as z.infer<Schemas[keyof Schemas]>) : undefined;
    }
    if (data === undefined) this.writer.skips.skip('malformed-event', `${what} ${typeName(type)}`);
    return data;
  }

  // --- turns ---

  /** A turn marker: the open turn ends, and the next output opens the new one. */
  beginTurn(place: Placement): void {
    this.sawTurnMarker = true;
    if (this.writer.openTurn !== undefined) {
      this.endTurn(this.writer.openCalls().length > 0 ? 'cancelled' : 'completed', place);
    }
    this.#turnRequested = true;
    this.#turnFailed = false;
  }

  /** A turn marker that may repeat one just read (`turn_context` and `task_started` both mark a rollout turn). */
  beginTurnOnce(place: Placement): void {
    if (this.#turnRequested && this.writer.openTurn === undefined) return;
    this.beginTurn(place);
  }

  /** The end of the turn as Codex says it: `completed` unless an error was reported in it. */
  completeTurn(place: Placement): void {
    this.endTurn(this.#turnFailed ? 'failed' : 'completed', place);
  }

  /** Ends the turn; one that wrote nothing is written empty when it did not complete, so its outcome shows. */
  endTurn(status: TurnStatus, place: Placement): void {
    const writer = this.writer;
    this.flushSearches();
    if (writer.openTurn !== undefined) writer.endTurn(status, place);
    else if (this.#turnRequested && status !== 'completed') {
      writer.startTurn(place);
      writer.endTurn(status, place);
    }
    this.#turnRequested = false;
    this.#turnFailed = false;
    this.#approvals.clear();
  }

  /** An error: a `service` note, and the turn ends `failed`. */
  error(message: string, place: Placement): void {
    this.#turnFailed = true;
    this.#lastError = message;
    this.writer.service(`Error: ${message}`, place);
  }

  /** The error a turn failed with, unless the `error` before it said the same. */
  turnFailed(message: string | undefined, place: Placement): void {
    if (message && message !== this.#lastError) this.error(message, place);
    this.endTurn('failed', place);
  }

  // --- notes ---

  /** Something other than a note was written: the next compaction is noted again. */
  wroteOutput(): void {
    this.#compactionNoted = false;
  }

  /** A compaction, noted once however many of Codex's records say it. */
  compaction(place: Placement): void {
    if (this.#compactionNoted) {
      this.writer.skips.skip('duplicate', 'a compaction noted twice');
      return;
    }
    this.#compactionNoted = true;
    this.writer.service('Context compacted', place);
  }

  /** A plan, as a checklist, when it changed. */
  plan(
    steps: readonly { text: string; status: 'done' | 'doing' | 'todo' }[],
    explanation: string | null | undefined,
    place: Placement,
  ): void {
    this.#plans.write(this.writer, steps, explanation, place);
  }

  // --- calls ---

  /** Starts a call unless an approval request already started it (Codex asks before the call begins). */
  startOnce(key: string, fields: CallFields, place: Placement): void {
    this.wroteOutput();
    if (this.writer.isCallOpen(key)) {
      this.writer.skips.skip('duplicate', 'a call begun after its approval request started it');
      return;
    }
    this.writer.startCall(key, fields, place);
  }

  /** A web search began: written at its end, which carries the query. */
  searchBegan(key: string, place: Placement): void {
    this.#searches.set(key, place);
  }

  /** A web search ended: its call, started where it began, and its end. */
  searchEnded(key: string, query: string, place: Placement): void {
    const begun = this.#searches.get(key);
    this.#searches.delete(key);
    if (this.writer.startCall(key, webSearchCall(query), begun ?? place) !== undefined) {
      this.writer.endCall(key, place);
    }
  }

  /** Searches begun and never ended: started now, so the turn's end closes them like any open call. */
  flushSearches(): void {
    for (const [key, place] of this.#searches) this.writer.startCall(key, webSearchCall(''), place);
    this.#searches.clear();
  }

  // --- approvals ---

  /** An approval request inside its (open) call. */
  requestApproval(
    key: string,
    options: readonly PermissionOption[],
    reason: string | null | undefined,
    place: Placement,
  ): void {
    if (!this.writer.isCallOpen(key)) return;
    if (
      this.writer.requestPermission(
        key,
        { options: [...options], ...(reason ? { description: reason } : {}) },
        place,
      )
    ) {
      this.#approvals.add(key);
    }
  }

  /** The call ended: its approval is no longer pending. */
  callEnded(key: string): void {
    this.#approvals.delete(key);
  }

  /**
   * An approval answer, as a submission `{ id, op: { type: 'exec_approval' | 'patch_approval', id,
   * decision } }`: the `permission-response`, and the end of a rejected call (Codex runs nothing and
   * sends no end for it).
   */
  answerApproval(event: JsonObject, place: Placement): void {
    const writer = this.writer;
    const parsed = ApprovalSubmissionSchema.safeParse(event);
    if (!parsed.success) {
      const opType = isJsonObject(event.op) ? event.op.type : undefined;
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
      writer.endCall(key, placeWith(place, { error: `Rejected by the user (${optionId})` }));
    }
  }
}
