/**
 * The session writer: the one stateful emitter every provider mapper writes through. A mapper says
 * what happened in provider terms (a tool call with the provider's id started, a result for it came,
 * an image appeared inside it); the writer turns that into validated v2 messages that always form a
 * valid stream:
 *
 * - ids (cuid2, or the caller's id seam) and times (the provider's, never going backwards; the clock's
 *   for streams whose events carry no time);
 * - turns: agent messages open one when none is open; {@link SessionWriter.endTurn} closes every call
 *   still open (with an `error`) before `turn-end`, so even `completed` turns validate;
 * - tool calls by provider key: the provider's id is the `callId` when it is a valid id not used yet,
 *   a fresh id otherwise; ends, permissions and children find their call by that key;
 * - permission requests only inside their open call, one pending at a time, answers only to a pending request;
 * - `parentId`/`agentId`: a message names its spawning call by key; a call's end repeats its start's placement;
 * - media upload-first: {@link SessionWriter.media} decodes and bounds the bytes, awaits the caller's
 *   handler, and emits the `photo`/`video`/`file` message only after the upload resolved; a failure
 *   becomes a `service` message saying so.
 *
 * What the state does not allow (the end of a call never started, an answer without request, a second
 * start of the same call) is not written: it is counted as a skip ({@link SkipCounter}).
 *
 * @module
 */
import { describeValue } from '../bytes.js';
import { HappyMediaError, InvalidArgumentError, StreamError } from '../errors.js';
import { isId } from '../protocol/fields.js';
import {
  createMessageId,
  createStreamValidator,
  fileMessage,
  type MediaMessage,
  type PermissionOption,
  parseSessionMessage,
  permissionRequest,
  permissionResponse,
  photoMessage,
  type SessionMessage,
  type StreamValidator,
  serviceMessage,
  type TextMessage,
  type TurnStatus,
  textMessage,
  toolCallEnd,
  toolCallStart,
  turnEnd,
  turnStart,
  videoMessage,
} from '../protocol/index.js';
import { type MapperClock, systemClock } from './clock.js';
import {
  DEFAULT_MAX_MEDIA_BYTES,
  decodeMediaData,
  type MediaData,
  type MediaDescription,
  type MediaHandler,
  type MediaUpload,
  mediaFileName,
  sniffInlineMimeType,
} from './media.js';
import { placeWith } from './place-with.js';
import { isJsonObject, nestsDeeperThan } from './provider-json.js';
import { IdFilter, RecentMap, RecentSet } from './recent.js';
import { type MapperSkip, SkipCounter } from './skips.js';

/** Options of a {@link SessionWriter} (and of every mapper, which passes them on). */
export interface SessionWriterOptions {
  /** Where times come from when the provider gives none; default the system clock (`Date.now()`). */
  clock?: MapperClock;
  /**
   * Creates message, turn, call and agent ids. A writer on its own defaults to fresh random ids
   * (`createMessageId`); a mapper (`createAgentMapper`) defaults to ids derived from the events
   * it reads, so the same log always maps to the same ids.
   */
  createId?: () => string;
  /** Uploads media (images in prompts and tool results). Without it, media become a `service` note. */
  media?: MediaHandler;
  /** Largest decoded media handed to `media`, in bytes; default 32 MiB. */
  maxMediaBytes?: number;
  /** Passed to the media handler: cancels uploads. */
  signal?: AbortSignal;
  /** Told about every skip (for logs); the counts are kept either way. */
  onSkip?: (skip: MapperSkip) => void;
  /**
   * Check every emitted message with the stream validator and throw `StreamError` on a violation. A
   * safety net for tests and new mappers: the writer's own state already keeps the stream valid.
   */
  verify?: boolean;
}

/** Where a message goes and when it happened. Every field is optional. */
export interface Placement {
  /** Provider key of the tool call that spawned this message; its `callId` becomes `parentId`. */
  parent?: string;
  /** Stream id of the subagent writing this message ({@link SessionWriter.agentIdFor}). */
  agentId?: string;
  /** Provider time of the event, Unix ms (see the writer's time rule when absent). Never written below the last time. */
  time?: number;
  /** Preferred message id: kept when it is a valid id not used yet, else a fresh one. */
  id?: string;
  /** Preferred turn id, used when this message has to open a turn. */
  turn?: string;
}

/** Fields of a tool call start; the writer fills what is missing (`args: {}`, `title` = toolName). */
export interface CallFields {
  toolName: string;
  title?: string;
  description?: string;
  /** Tool input; a non-object value is wrapped as `{ input: value }`. */
  args?: unknown;
  /** Label of the subagent this call spawns. */
  agentTitle?: string;
}

/**
 * A permission request for an open call; a field that is absent is taken from the call's start (a
 * `description` or `args` key present with `undefined` means none).
 */
export interface PermissionFields {
  options: PermissionOption[];
  toolName?: string;
  title?: string;
  description?: string | undefined;
  args?: Record<string, unknown> | undefined;
}

/** What a piece of media is, for {@link SessionWriter.media}. */
export interface MediaInfo {
  /** `user` for a prompt's image, `agent` for what the model or a tool produced. */
  role: 'user' | 'agent';
  /** MIME type the provider declared (the bytes win when they are recognisable). */
  mimeType?: string;
  /** Display name; `image-N.ext` when absent. */
  name?: string;
  /** How to call it in a `service` note when it cannot be uploaded: `image` (default) or `document`. */
  noun?: 'image' | 'document' | 'file';
}

/** What is kept of a call once it ended: enough to place its children and answer for it. */
interface EndedCall {
  callId: string;
  parentId: string | undefined;
  agentId: string | undefined;
  asked: boolean;
}

/** An open call. */
interface CallRecord extends EndedCall {
  toolName: string;
  title: string;
  description: string;
  args: Record<string, unknown>;
  pending: PermissionOption[] | undefined;
}

/**
 * Deepest nesting of objects and arrays kept in a tool call's `args`: deeper input (a hostile log can
 * nest 200,000 levels) is left out with a note, since it could not be serialised, sent or rendered.
 */
export const MAX_ARGS_DEPTH = 100;

/** The placement of a message written outside any call by the main agent: shared, never written to. */
const NO_CONTEXT: { parentId?: string; agentId?: string } = Object.freeze({});

/** Error text of a call its turn ended before it returned. */
export const CALL_UNFINISHED_ERROR = 'the turn ended before this tool call returned a result';

function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${Math.round(size / 1024)} KiB`;
  return `${(size / (1024 * 1024)).toFixed(1)} MiB`;
}

/** What a replayed upload is described as: a file (the state it leaves is a successful upload's; nothing is uploaded). */
function replayedUpload(upload: MediaUpload): MediaDescription {
  return {
    type: 'file',
    ref: 'media/replayed',
    name: upload.name,
    size: upload.bytes.length,
    mimeType: upload.mimeType ?? 'application/octet-stream',
  };
}

/**
 * The stateful emitter of v2 messages that every provider mapper writes through (see the module
 * comment). Not re-entrant: one mapper feeds one writer, one event at a time (`createAgentMapper`
 * serialises `push`).
 *
 * @example
 * ```ts
 * const writer = new SessionWriter({ media });
 * writer.userText('Find TODOs');
 * writer.startCall('toolu_1', { toolName: 'Grep', title: 'Search for `TODO`', args: { pattern: 'TODO' } });
 * writer.endCall('toolu_1');
 * writer.endTurn('completed');
 * send(writer.take());
 * ```
 */
export class SessionWriter {
  /** What was read and not written, by reason. */
  readonly skips: SkipCounter;

  readonly #clock: MapperClock;
  readonly #createId: () => string;
  readonly #media: MediaHandler | undefined;
  readonly #maxMediaBytes: number;
  readonly #signal: AbortSignal | undefined;
  readonly #validator: StreamValidator | undefined;

  #out: SessionMessage[] = [];
  #written = 0;
  #lastTime = 0;
  #providerTimes = false;
  // Every id used, in bounded memory (a log may hold millions of messages): message ids, turn ids and
  // callIds each in a filter that never forgets an id (and may answer "used" for one that was not: a
  // fresh id is taken then), and the recent ones exactly, to tell a repeated message from a new one.
  readonly #messageIds = new IdFilter();
  readonly #turnIds = new IdFilter();
  readonly #callIds = new IdFilter();
  // Kept only for a stream that adopts v2 messages (see {@link SessionWriter.keepRecentIds}): the agent
  // mappers never ask, and a set per message was a good part of their time.
  #recentMessageIds: RecentSet<string> | undefined;
  #recentTurns: RecentSet<string> | undefined;
  #turn: string | undefined;
  /** The calls open now, by key, in start order: a call is open exactly while its key is here. */
  readonly #open = new Map<string, CallRecord>();
  /** The calls that ended, by key, the recent ones. */
  readonly #ended = new RecentMap<string, EndedCall>();
  readonly #agents = new RecentMap<string, string>();
  #mediaCount = 0;
  /** Replaying: media is described as uploaded without calling the handler (see {@link SessionWriter.replay}). */
  #replaying = false;

  constructor(options: SessionWriterOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new InvalidArgumentError(
        `expected an options object for \`options\` but received ${describeValue(options)}`,
      );
    }
    const { clock, createId, media, maxMediaBytes, onSkip } = options;
    if (clock !== undefined && (clock === null || typeof clock.now !== 'function')) {
      throw new InvalidArgumentError('expected `{ now(): number }` for `options.clock`');
    }
    if (createId !== undefined && typeof createId !== 'function') {
      throw new InvalidArgumentError(
        `expected a function for \`options.createId\` but received ${describeValue(createId)}`,
      );
    }
    if (media !== undefined && typeof media !== 'function') {
      throw new InvalidArgumentError(
        `expected a MediaHandler function for \`options.media\` but received ${describeValue(media)}`,
      );
    }
    if (
      maxMediaBytes !== undefined &&
      (typeof maxMediaBytes !== 'number' || !Number.isSafeInteger(maxMediaBytes) || maxMediaBytes < 0)
    ) {
      throw new InvalidArgumentError(
        `expected a non-negative integer for \`options.maxMediaBytes\` but received ${describeValue(maxMediaBytes)}`,
      );
    }
    if (onSkip !== undefined && typeof onSkip !== 'function') {
      throw new InvalidArgumentError(
        `expected a function for \`options.onSkip\` but received ${describeValue(onSkip)}`,
      );
    }
    this.#clock = clock ?? systemClock;
    this.#createId = createId ?? createMessageId;
    this.#media = media;
    this.#maxMediaBytes = maxMediaBytes ?? DEFAULT_MAX_MEDIA_BYTES;
    this.#signal = options.signal;
    this.#validator = options.verify === true ? createStreamValidator({ requireTurnStart: true }) : undefined;
    this.skips = new SkipCounter(onSkip);
  }

  /** The turn open now, if any. */
  get openTurn(): string | undefined {
    return this.#turn;
  }

  /** How many messages were written so far (taken or not). */
  get messageCount(): number {
    return this.#written;
  }

  /** Returns the messages written since the last call, in stream order, and forgets them. */
  take(): SessionMessage[] {
    const out = this.#out;
    this.#out = [];
    return out;
  }

  // --- ids, times, emission ---

  /** A fresh id from the id seam, never one already used in this stream. */
  #freshId(): string {
    for (let attempt = 0; attempt < 8; attempt++) {
      const id = this.#createId();
      if (
        isId(id) &&
        !this.#messageIds.mayHave(id) &&
        !this.#turnIds.mayHave(id) &&
        !this.#callIds.mayHave(id)
      )
        return id;
    }
    // The seam keeps returning used or invalid ids: fall back to cuid2, which does not collide.
    return createMessageId();
  }

  #messageId(preferred: string | undefined): string {
    return preferred !== undefined && isId(preferred) && !this.#messageIds.mayHave(preferred)
      ? preferred
      : this.#freshId();
  }

  /**
   * The time of the next message: the provider's hint; without one, the last time written once the
   * events have carried their own times (a recorded log keeps its timeline), else the clock's.
   */
  #time(hint: number | undefined): number {
    let time: number;
    if (typeof hint === 'number' && Number.isFinite(hint) && hint >= 0 && hint <= Number.MAX_SAFE_INTEGER) {
      time = Math.floor(hint);
      this.#providerTimes = true;
    } else if (this.#providerTimes) {
      time = this.#lastTime;
    } else {
      time = Math.floor(this.#clock.now());
    }
    return Math.max(time, this.#lastTime);
  }

  /** Build options for the next message: its id and time. */
  #at(place: Placement): { id: string; time: number } {
    return { id: this.#messageId(place.id), time: this.#time(place.time) };
  }

  #emit<M extends SessionMessage>(message: M): M {
    if (this.#validator) {
      const violations = this.#validator.push(message);
      if (violations.length > 0) {
        const first = violations[0]!;
        throw new StreamError(
          `the mapper wrote an invalid stream at message ${first.index}: ${first.code}: ${first.message}`,
        );
      }
    }
    this.#messageIds.add(message.id);
    this.#recentMessageIds?.add(message.id);
    this.#lastTime = message.time;
    this.#out.push(message);
    this.#written += 1;
    return message;
  }

  /** `parentId`/`agentId` of a placement: the parent key resolved to its callId (dropped, and counted, when unknown). */
  #context(place: Placement): { parentId?: string; agentId?: string } {
    if (place.parent === undefined && place.agentId === undefined) return NO_CONTEXT;
    const context: { parentId?: string; agentId?: string } = {};
    if (place.parent !== undefined) {
      const parent = this.#call(place.parent);
      if (parent) context.parentId = parent.callId;
      else this.skips.skip('unknown-parent', 'a message named a spawning call that was never started');
    }
    if (place.agentId !== undefined && isId(place.agentId)) context.agentId = place.agentId;
    return context;
  }

  // --- turns ---

  /** Opens a turn (ending the open one first, `completed`) and returns its id. */
  startTurn(place: Placement = {}): string {
    if (this.#turn !== undefined) this.endTurn('completed', { time: place.time });
    const turn =
      place.turn !== undefined && isId(place.turn) && !this.#turnIds.mayHave(place.turn)
        ? place.turn
        : this.#freshId();
    this.#turnIds.add(turn);
    this.#recentTurns?.add(turn);
    this.#turn = turn;
    this.#emit(turnStart({ turn }, this.#at(place)));
    return turn;
  }

  /** The open turn's id, opening one when none is open (its `turn-start` never takes `place.id`: that is the caller's message's). */
  ensureTurn(place: Placement = {}): string {
    if (this.#turn !== undefined) return this.#turn;
    const { id: _messageId, ...rest } = place;
    return this.startTurn(rest);
  }

  /**
   * Ends the open turn with `status`: first every call still open gets its `tool-call-end` (with
   * {@link CALL_UNFINISHED_ERROR}, children before their parents), then `turn-end`. Returns false
   * when no turn is open (nothing is written).
   */
  endTurn(status: TurnStatus, place: Placement = {}): boolean {
    const turn = this.#turn;
    if (turn === undefined) return false;
    for (const key of [...this.#open.keys()].reverse())
      this.endCall(key, { time: place.time, error: CALL_UNFINISHED_ERROR });
    this.#turn = undefined;
    this.#emit(turnEnd({ turn, status }, this.#at(place)));
    return true;
  }

  // --- text ---

  /** Writes a user `text` (never carries a turn; a turn stays open around it). */
  userText(text: string, place: Placement = {}): TextMessage {
    return this.#emit(textMessage({ role: 'user', text, ...this.#context(place) }, this.#at(place)));
  }

  /** Writes an agent `text` (`thinking: true` for reasoning; `thinking` is written only when given), opening a turn if none is open. */
  agentText(text: string, place: Placement & { thinking?: boolean } = {}): TextMessage {
    const turn = this.ensureTurn(place);
    return this.#emit(
      textMessage(
        {
          role: 'agent',
          turn,
          text,
          ...(place.thinking === undefined ? {} : { thinking: place.thinking }),
          ...this.#context(place),
        },
        this.#at(place),
      ),
    );
  }

  /** Writes a `service` message: inside the open turn when there is one, else between turns. */
  service(text: string, place: Placement = {}): SessionMessage {
    const turn = this.#turn;
    return this.#emit(
      serviceMessage(
        { text, ...(turn === undefined ? {} : { turn }), ...this.#context(place) },
        this.#at(place),
      ),
    );
  }

  // --- tool calls ---

  /**
   * Starts a tool call known by the provider's `key` (its tool-use id) and returns its `callId`.
   * Returns `undefined` (and counts a `duplicate`) when the key is open, or when it has ended and
   * `ifEnded` is `duplicate` (the default: providers whose ids are unique); with `new-call` an ended
   * key starts a new call (providers that reuse ids, e.g. per-run counters).
   */
  startCall(
    key: string,
    fields: CallFields,
    place: Placement & { ifEnded?: 'duplicate' | 'new-call' } = {},
  ): string | undefined {
    const existing = this.#call(key);
    if (existing && (this.#open.has(key) || (place.ifEnded ?? 'duplicate') === 'duplicate')) {
      this.skips.skip('duplicate', `tool call ${key.slice(0, 64)} started twice`);
      return undefined;
    }
    const turn = this.ensureTurn(place);
    const callId =
      isId(key) && !this.#callIds.mayHave(key) && !this.#messageIds.mayHave(key) ? key : this.#freshId();
    const toolName =
      typeof fields.toolName === 'string' && fields.toolName.length > 0 ? fields.toolName : 'unknown';
    let args = isJsonObject(fields.args)
      ? fields.args
      : fields.args === undefined
        ? {}
        : { input: fields.args };
    const tooDeep = nestsDeeperThan(args, MAX_ARGS_DEPTH);
    if (tooDeep) {
      this.skips.skip('malformed-event', `the input of tool call ${key.slice(0, 64)} nests too deep`);
      args = {};
    }
    const title = typeof fields.title === 'string' && fields.title.length > 0 ? fields.title : toolName;
    const description = typeof fields.description === 'string' ? fields.description : '';
    const context = this.#context(place);
    const message = toolCallStart(
      {
        turn,
        callId,
        toolName,
        title,
        description,
        args,
        ...(typeof fields.agentTitle === 'string' && fields.agentTitle.length > 0
          ? { agentTitle: fields.agentTitle }
          : {}),
        ...context,
      },
      this.#at(place),
    );
    this.#callIds.add(callId);
    this.#open.set(key, {
      callId,
      parentId: context.parentId,
      agentId: context.agentId,
      toolName,
      title,
      description,
      args,
      pending: undefined,
      asked: false,
    });
    this.#emit(message);
    if (tooDeep) {
      this.service(
        `The input of this tool call nests more than ${MAX_ARGS_DEPTH} levels deep; it is left out`,
        {
          ...(place.time === undefined ? {} : { time: place.time }),
          parent: key,
        },
      );
    }
    return callId;
  }

  /** The call known by `key`: open, else ended (if it ended recently enough to be remembered). */
  #call(key: string): EndedCall | undefined {
    return this.#open.get(key) ?? this.#ended.get(key);
  }

  /** The `callId` the call known by `key` has in the stream, if it was started (and, if it ended, recently). */
  callIdOf(key: string): string | undefined {
    return this.#call(key)?.callId;
  }

  /** The `toolName` of the open call known by `key` (to match a request that names only its tool). */
  toolNameOf(key: string): string | undefined {
    return this.#open.get(key)?.toolName;
  }

  /** True when the call known by `key` was started and has not ended. */
  isCallOpen(key: string): boolean {
    return this.#open.has(key);
  }

  /** The keys of the calls open now, oldest first. */
  openCalls(): string[] {
    return [...this.#open.keys()];
  }

  /**
   * Ends the call known by `key` (with `error` when it failed), with its start's `parentId`/`agentId`.
   * Returns false, counting `duplicate` (already ended) or `unknown-call` (never started), otherwise.
   */
  endCall(key: string, place: Placement & { error?: string } = {}): boolean {
    const call = this.#open.get(key);
    if (call === undefined) {
      const ended = this.#ended.has(key);
      this.skips.skip(
        ended ? 'duplicate' : 'unknown-call',
        ended
          ? `tool call ${key.slice(0, 64)} ended twice`
          : `result for tool call ${key.slice(0, 64)} that never started`,
      );
      return false;
    }
    const turn = this.#turn!;
    this.#open.delete(key);
    this.#ended.set(key, {
      callId: call.callId,
      parentId: call.parentId,
      agentId: call.agentId,
      asked: call.asked,
    });
    this.#emit(
      toolCallEnd(
        {
          turn,
          callId: call.callId,
          ...(place.error !== undefined ? { error: place.error } : {}),
          ...(call.parentId === undefined ? {} : { parentId: call.parentId }),
          ...(call.agentId === undefined ? {} : { agentId: call.agentId }),
        },
        this.#at(place),
      ),
    );
    return true;
  }

  // --- permissions ---

  /** True when the call known by `key` has a permission request without an answer. */
  hasPendingPermission(key: string): boolean {
    return this.#open.get(key)?.pending !== undefined;
  }

  /** True when a permission request was written for the call known by `key` (answered or not). */
  wasPermissionAsked(key: string): boolean {
    return this.#call(key)?.asked === true;
  }

  /**
   * Writes a `permission-request` for the open call known by `key` (toolName, title, description and
   * args default to the call's). Returns false, counting `unmatched-permission`, when the call is not
   * open or already has an unanswered request.
   */
  requestPermission(key: string, fields: PermissionFields, place: Placement = {}): boolean {
    const call = this.#open.get(key);
    if (call === undefined || call.pending !== undefined) {
      this.skips.skip(
        'unmatched-permission',
        call !== undefined
          ? 'a second permission request while one is unanswered'
          : 'a permission request outside its tool call',
      );
      return false;
    }
    const description = 'description' in fields ? fields.description : call.description;
    let args = 'args' in fields ? fields.args : call.args;
    if (nestsDeeperThan(args, MAX_ARGS_DEPTH)) {
      this.skips.skip(
        'malformed-event',
        `the input of a permission request of ${key.slice(0, 64)} nests too deep`,
      );
      args = undefined;
    }
    const message = permissionRequest(
      {
        turn: this.#turn!,
        callId: call.callId,
        toolName: fields.toolName ?? call.toolName,
        title: fields.title ?? call.title,
        ...(description ? { description } : {}),
        ...(args === undefined ? {} : { args }),
        options: fields.options,
        ...(call.parentId === undefined ? {} : { parentId: call.parentId }),
        ...(call.agentId === undefined ? {} : { agentId: call.agentId }),
      },
      this.#at(place),
    );
    call.pending = message.options;
    call.asked = true;
    this.#emit(message);
    return true;
  }

  /**
   * Writes the user's `permission-response` choosing `optionId` for the pending request of the call
   * known by `key`. Returns false, counting `unmatched-permission`, when there is no such request or
   * the option is not one of its options.
   */
  respondPermission(key: string, optionId: string, place: Placement = {}): boolean {
    const call = this.#open.get(key);
    if (
      call === undefined ||
      call.pending === undefined ||
      !call.pending.some((option) => option.id === optionId)
    ) {
      this.skips.skip('unmatched-permission', 'a permission answer without its pending request or option');
      return false;
    }
    call.pending = undefined;
    this.#emit(permissionResponse({ callId: call.callId, optionId }, this.#at(place)));
    return true;
  }

  // --- subagents ---

  /** The stream's `agentId` for the subagent known by the provider as `key`; created on first use. */
  agentIdFor(key: string): string {
    let agentId = this.#agents.get(key);
    if (agentId === undefined) {
      agentId = this.#freshId();
      this.#agents.set(key, agentId);
    }
    return agentId;
  }

  // --- media ---

  /**
   * Uploads media through the `media` handler and, once it resolved, writes the `photo`/`video`/`file`
   * message describing it (agent media inside the open turn, or a new one). Media that cannot be
   * decoded, is over `maxMediaBytes`, has no handler to go to, or whose upload fails becomes a `service`
   * message saying so (and a counted skip). Resolves with the media message, or `undefined`.
   */
  async media(data: MediaData, info: MediaInfo, place: Placement = {}): Promise<MediaMessage | undefined> {
    this.#mediaCount += 1;
    const index = this.#mediaCount;
    const noun = info.noun ?? 'image';
    const decoded = decodeMediaData(data, this.#maxMediaBytes);
    if (!decoded.ok) {
      if (decoded.reason === 'media-too-large') {
        this.skips.skip('media-too-large', `${noun} ${index} of ${decoded.size ?? '?'} bytes`);
        this.service(
          `An ${noun === 'image' ? 'image' : noun} of about ${formatBytes(decoded.size ?? 0)} was not uploaded: it is larger than the ${formatBytes(this.#maxMediaBytes)} limit`,
          place,
        );
      } else {
        this.skips.skip('invalid-media', `${noun} ${index} is not valid base64`);
        this.service(
          `An ${noun} could not be read (its data is not valid base64); it was not uploaded`,
          place,
        );
      }
      return undefined;
    }
    const { bytes } = decoded;
    const mimeType = sniffInlineMimeType(bytes) ?? info.mimeType ?? decoded.declaredMimeType;
    const what = `${mimeType ?? 'unknown type'}, ${formatBytes(bytes.length)}`;
    if (this.#media === undefined) {
      this.skips.skip('media-not-uploaded', `${noun} ${index} (${what})`);
      this.service(`An ${noun} (${what}) was not uploaded: no media handler is configured`, place);
      return undefined;
    }
    let description: MediaDescription;
    try {
      const upload: MediaUpload = {
        bytes,
        ...(mimeType === undefined ? {} : { mimeType }),
        name: info.name ?? mediaFileName(mimeType, index),
        role: info.role,
      };
      description = this.#replaying
        ? replayedUpload(upload)
        : await this.#media(upload, this.#signal === undefined ? {} : { signal: this.#signal });
    } catch (error) {
      const code = error instanceof HappyMediaError ? error.code : 'an error';
      this.skips.skip('media-upload-failed', `${noun} ${index}: ${code}`);
      this.service(
        `An ${noun} (${what}) could not be uploaded (${code}); it is not in the transcript`,
        place,
      );
      return undefined;
    }
    const message = this.mediaMessage(info.role, description, place);
    if (message === undefined) {
      this.skips.skip('media-upload-failed', `${noun} ${index}: the handler's description does not validate`);
      this.service(
        `An ${noun} (${what}) was uploaded but could not be described; it is not in the transcript`,
        place,
      );
    }
    return message;
  }

  /**
   * Writes the message describing media already uploaded (a `photo`, `video` or `file`). Returns
   * `undefined` when `description` does not validate (nothing is written).
   */
  mediaMessage(
    role: 'user' | 'agent',
    description: MediaDescription,
    place: Placement = {},
  ): MediaMessage | undefined {
    if (!isJsonObject(description)) return undefined;
    const { type, ...fields } = description as MediaDescription & Record<string, unknown>;
    const build =
      type === 'photo'
        ? photoMessage
        : type === 'video'
          ? videoMessage
          : type === 'file'
            ? fileMessage
            : undefined;
    if (build === undefined) return undefined;
    const context = this.#context(place);
    const who = role === 'agent' ? { role, turn: this.ensureTurn(place) } : { role };
    let message: MediaMessage;
    try {
      message = (build as (fields: object, options: { id: string; time: number }) => MediaMessage)(
        { ...fields, ...who, ...context },
        this.#at(place),
      );
    } catch (error) {
      if (error instanceof HappyMediaError && error.code === 'ERR_SCHEMA') return undefined;
      throw error;
    }
    return this.#emit(message);
  }

  /**
   * Runs `task` (provider events written again to rebuild the state of an earlier run) with media
   * described as uploaded, without calling the media handler: every message, id and state change is
   * what the earlier run made, except that a media message describes no real upload. A mapper resumed
   * on a log replays what it already wrote this way ({@link AgentMapper.replay}).
   */
  async replay<T>(task: () => Promise<T>): Promise<T> {
    this.#replaying = true;
    try {
      return await task();
    } finally {
      this.#replaying = false;
    }
  }

  // --- v2 input ---

  /**
   * From now on, remembers the recent message and turn ids exactly, so {@link SessionWriter.adopt} can
   * tell a message or turn written twice from a new one (the id filters may answer "used" for an id never
   * written). A provider that adopts v2 messages calls it before writing anything; `adopt` calls it too.
   */
  keepRecentIds(): void {
    this.#recentMessageIds ??= new RecentSet<string>();
    this.#recentTurns ??= new RecentSet<string>();
  }

  /**
   * Writes a v2 message read from elsewhere (a stored transcript) through the same state: its id,
   * time, callId and turn are kept where the stream allows them, a message whose id was already written
   * is a `duplicate`, one that does not parse is `malformed-event`. Returns true when it was written.
   * Ids are remembered from the first `adopt` (or {@link SessionWriter.keepRecentIds}) on: a writer that
   * writes messages of its own before adopting others calls `keepRecentIds` first.
   */
  adopt(value: unknown): boolean {
    const parsed = parseSessionMessage(value);
    if (!parsed.success) {
      this.skips.skip('malformed-event', parsed.error.message.slice(0, 120));
      return false;
    }
    const m = parsed.data;
    this.keepRecentIds();
    if (this.#recentMessageIds!.has(m.id)) {
      this.skips.skip('duplicate', `message ${m.id.slice(0, 64)} written twice`);
      return false;
    }
    const place: Placement = {
      id: m.id,
      time: m.time,
      ...(m.turn === undefined ? {} : { turn: m.turn }),
      ...(m.parentId === undefined ? {} : { parent: m.parentId }),
      ...(m.agentId === undefined ? {} : { agentId: m.agentId }),
    };
    switch (m.type) {
      case 'turn-start':
        if (this.#recentTurns!.has(m.turn)) {
          this.skips.skip('duplicate', `turn ${m.turn.slice(0, 64)} started twice`);
          return false;
        }
        this.startTurn(place);
        return true;
      case 'turn-end':
        if (this.#turn === undefined || this.#turn !== m.turn) {
          this.skips.skip('out-of-order', `turn-end of turn ${m.turn.slice(0, 64)}, which is not open`);
          return false;
        }
        return this.endTurn(m.status, place);
      case 'text':
        if (m.role === 'user') this.userText(m.text, place);
        else
          this.agentText(m.text, placeWith(place, m.thinking === undefined ? {} : { thinking: m.thinking }));
        return true;
      case 'tool-call-start':
        return (
          this.startCall(
            m.callId,
            {
              toolName: m.toolName,
              title: m.title,
              description: m.description,
              args: m.args,
              ...(m.agentTitle === undefined ? {} : { agentTitle: m.agentTitle }),
            },
            place,
          ) !== undefined
        );
      case 'tool-call-end':
        return this.endCall(m.callId, placeWith(place, m.error === undefined ? {} : { error: m.error }));
      case 'permission-request':
        return this.requestPermission(
          m.callId,
          {
            options: m.options,
            toolName: m.toolName,
            title: m.title,
            description: m.description,
            args: m.args,
          },
          place,
        );
      case 'permission-response':
        return this.respondPermission(m.callId, m.optionId, place);
      case 'photo':
      case 'video':
      case 'file': {
        const {
          id: _id,
          time: _time,
          role,
          turn: _turn,
          parentId: _parent,
          agentId: _agent,
          ...description
        } = m;
        return this.mediaMessage(role, description as MediaDescription, place) !== undefined;
      }
      case 'service':
        this.service(m.text, place);
        return true;
    }
  }
}
