/**
 * An agent's output appended to a Happy session as Session Protocol v2: what `happy-media map --happy`
 * does, for a process that already has the events (universal: it runs wherever {@link HappyClient} runs).
 *
 * The events go through a mapper (`createAgentMapper`), whose ids follow from the log's content and the
 * provider's own ids (docs/mappers.md), and the messages are appended in order, in posts of at most 100,
 * each message under its own id as `localId`: the server keeps the first copy of a `localId`. Images are
 * uploaded by the caller's `media` handler while their event is mapped, so a blob is stored before the
 * message that names it is posted.
 *
 * **Resuming.** The session's `localId`s are read first. While an event's messages are all there, the
 * event is replayed (`AgentMapper.replay`: the mapper's state, no upload, nothing posted) instead of
 * pushed, so mapping the same log again uploads and appends nothing, and a run stopped half way (a
 * `--follow` interrupted, a crash) continues with no duplicate and no gap. A second mapper one event
 * ahead tells whether an event's messages are all there before the first one commits to replaying it. A
 * session that holds the end of the log's last turn (an earlier run took the log as complete) while the
 * log has grown since is refused: the new events would continue a turn the session has ended.
 *
 * **Stopping.** When `signal` aborts, nothing more is posted: the messages of the event being mapped
 * (whose upload the abort cut short) are dropped, and so is the batch not yet posted; the open turn and
 * calls stay open, as a run that read the log up to there without ending it would have left them. A new
 * run continues from what the session holds.
 *
 * @module
 */
import { describeValue } from '../bytes.js';
import { AbortedError, InvalidArgumentError, StreamError } from '../errors.js';
import {
  type AgentMapper,
  type AgentMapperOptions,
  createAgentMapper,
  type MapperClock,
  type MapperProvider,
  type MapperSkip,
  type MediaHandler,
  type SkipCounts,
} from '../mappers/index.js';
import type { SessionMessage } from '../protocol/index.js';
import { waitOrAbort } from '../wait-or-abort.js';
import type { AppendedMessage, HappyClient, HappySession } from './client.js';

/** Happy's limit of messages per `POST /v3/sessions/:sid/messages`. */
const MAX_BATCH = 100;
/** Default longest wait of a mapped message for its batch to fill (ms). */
const DEFAULT_FLUSH_AFTER_MS = 250;

/** Options of {@link appendAgentLog}. */
export interface AppendAgentLogOptions {
  /** What wrote the events: `claude`, `codex`, `acp` (see `MAPPER_PROVIDERS`), or a provider object. */
  provider: string | MapperProvider;
  /**
   * Uploads each image (and embedded file) into the session's attachments before its message is posted.
   * In Node: `sendMediaHandler({ store: client.attachmentStore(session), blobKey: session.blobKey })`.
   * Without it, media become `service` notes.
   */
  media?: MediaHandler;
  /**
   * Ends the stream when the events end: open calls and the open turn are closed (default `true`). `false`
   * for a log that goes on (the turn stays open; a later call continues it).
   */
  close?: boolean;
  /** Most messages per post, 1-100 (default 100). */
  batchSize?: number;
  /**
   * Longest a mapped message waits for more events to fill its batch, in ms (default 250): a log that is
   * still being written gets each message posted about this long after its event arrived.
   */
  flushAfterMs?: number;
  /** Stops reading, uploading and posting (see the module notes); the call rejects with `ERR_ABORTED`. */
  signal?: AbortSignal;
  /** Largest decoded media handed to `media` (default 32 MiB). */
  maxMediaBytes?: number;
  /** Where times come from when the provider gives none (default the system clock). */
  clock?: MapperClock;
  /** Told about every event part that was read and not written. */
  onSkip?: (skip: MapperSkip) => void;
  /** Told after each post, with what it appended (in order). */
  onAppended?: (appended: readonly AppendedMessage[]) => void;
}

/** What {@link appendAgentLog} did. */
export interface AppendAgentLogResult {
  /** Events read. */
  events: number;
  /** Events whose messages the session already held: replayed, nothing uploaded or posted. */
  resumedEvents: number;
  /** Messages this call appended. */
  appended: number;
  /** Messages mapped whose id the session already held (not posted again). */
  alreadyStored: number;
  /** The session's `seq` of the last message appended, if any. */
  lastSeq?: number;
  /** What the mapper read and did not write, by reason. */
  skipped: SkipCounts;
}

function checkedOptions(options: AppendAgentLogOptions): { batchSize: number; flushAfterMs: number } {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError(
      `expected \`{ provider, media?, ... }\` for \`options\` but received ${describeValue(options)}`,
    );
  }
  const batchSize = options.batchSize ?? MAX_BATCH;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH) {
    throw new InvalidArgumentError(
      `expected an integer from 1 to ${MAX_BATCH} for \`batchSize\` (Happy's limit per post) but received ${describeValue(batchSize)}`,
    );
  }
  const flushAfterMs = options.flushAfterMs ?? DEFAULT_FLUSH_AFTER_MS;
  if (!Number.isSafeInteger(flushAfterMs) || flushAfterMs < 0 || flushAfterMs > 60_000) {
    throw new InvalidArgumentError(
      `expected an integer from 0 to 60000 (ms) for \`flushAfterMs\` but received ${describeValue(flushAfterMs)}`,
    );
  }
  return { batchSize, flushAfterMs };
}

/**
 * An iterator over `events`, sync or async.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `events` is not iterable.
 */
function eventIterator(
  events: Iterable<unknown> | AsyncIterable<unknown>,
): Iterator<unknown> | AsyncIterator<unknown> {
  if (events !== null && typeof events === 'object') {
    if (Symbol.asyncIterator in events) return events[Symbol.asyncIterator]();
    if (Symbol.iterator in events) return events[Symbol.iterator]();
  }
  throw new InvalidArgumentError(
    `expected an iterable of events for \`events\` but received ${describeValue(events)}`,
  );
}

/** The `localId` of every record the session holds (the ids a message of ours was posted under). */
async function storedIds(
  client: HappyClient,
  session: HappySession,
  signal?: AbortSignal,
): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const record of client.readMessages(session, signal ? { signal } : {})) {
    if (record.localId) ids.add(record.localId);
  }
  return ids;
}

/** A step of the event source, or the end of a wait for it. */
type Step = IteratorResult<unknown> | 'waited';

/**
 * The source's next step, or `'waited'` when `ms` pass first (never, without `ms`) or `signal` aborts;
 * the timer and the listener are removed either way, so nothing is left to keep a process alive.
 */
function nextOrWait(
  pending: Promise<IteratorResult<unknown>>,
  ms: number | undefined,
  signal: AbortSignal | undefined,
): Promise<Step> {
  return new Promise<Step>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = () => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', waited);
    };
    const waited = () => {
      settle();
      resolve('waited');
    };
    if (ms !== undefined) timer = setTimeout(waited, ms);
    signal?.addEventListener('abort', waited, { once: true });
    pending.then(
      (step) => {
        settle();
        resolve(step);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

/** The mapper options every mapper of one call shares (the main one takes media and the rest too). */
type SharedMapperOptions = Pick<AgentMapperOptions, 'maxMediaBytes' | 'clock'>;

/**
 * The replay of what the session already holds of the log (see the module notes): while it holds every
 * message mapped so far, a mapper one event ahead tells whether the next event's messages are all there
 * too, and one beside the main mapper tells what ending the log here would write.
 */
class StoredReplay {
  #ahead: AgentMapper | undefined;
  #beside: AgentMapper | undefined;
  readonly #stored: ReadonlySet<string>;
  readonly #sessionId: string;

  constructor(
    provider: string | MapperProvider,
    shared: SharedMapperOptions,
    stored: ReadonlySet<string>,
    sessionId: string,
  ) {
    this.#ahead = createAgentMapper(provider, shared);
    this.#beside = createAgentMapper(provider, shared);
    this.#stored = stored;
    this.#sessionId = sessionId;
  }

  /**
   * Replays `event` into `mapper` when the session holds all of its messages, and returns how many; once
   * an event's are not all there, replaying stops for good (undefined, then and after).
   *
   * @throws {StreamError} `ERR_STREAM_INVALID` when the session holds the end of the log's last turn.
   */
  async replay(event: unknown, mapper: AgentMapper): Promise<number | undefined> {
    if (!this.#ahead) return undefined;
    const ids = await this.#ahead.replay(event);
    if (ids.every((id) => this.#stored.has(id))) {
      await mapper.replay(event);
      await this.#beside?.replay(event);
      return ids.length;
    }
    await this.#stop();
    return undefined;
  }

  /** Switches from replaying to pushing: refuses a log that grew past an end the session holds. */
  async #stop(): Promise<void> {
    const endIds = ((await this.#beside?.end()) ?? []).map((message) => message.id);
    this.#ahead = undefined;
    this.#beside = undefined;
    if (endIds.some((id) => this.#stored.has(id))) {
      throw new StreamError(
        `session ${this.#sessionId} holds the end of this log's last turn, written by an earlier run that took the log as complete; the log has grown since, and its new events would continue a turn the session has ended. Append the whole log to a new session, or append a log that is still being written without ending it (close: false)`,
      );
    }
  }
}

/**
 * The messages of one call, posted in order, at most `batchSize` at a time; the ones the session already
 * holds are counted in `result`, not posted again.
 */
class MessagePoster {
  #batch: SessionMessage[] = [];
  #oldest = 0;
  readonly #client: HappyClient;
  readonly #session: HappySession;
  readonly #stored: ReadonlySet<string>;
  readonly #batchSize: number;
  readonly #result: AppendAgentLogResult;
  readonly #options: Pick<AppendAgentLogOptions, 'signal' | 'onAppended'>;

  constructor(
    client: HappyClient,
    session: HappySession,
    stored: ReadonlySet<string>,
    batchSize: number,
    result: AppendAgentLogResult,
    options: Pick<AppendAgentLogOptions, 'signal' | 'onAppended'>,
  ) {
    this.#client = client;
    this.#session = session;
    this.#stored = stored;
    this.#batchSize = batchSize;
    this.#result = result;
    this.#options = options;
  }

  /** When the oldest message waiting to be posted was queued (`Date.now()`), or undefined when none waits. */
  get waitingSince(): number | undefined {
    return this.#batch.length > 0 ? this.#oldest : undefined;
  }

  /** Queues the messages the session does not hold, posting each batch as it fills. */
  async queue(messages: readonly SessionMessage[]): Promise<void> {
    for (const message of messages) {
      if (this.#stored.has(message.id)) {
        this.#result.alreadyStored += 1;
        continue;
      }
      if (this.#batch.length === 0) this.#oldest = Date.now();
      this.#batch.push(message);
      if (this.#batch.length >= this.#batchSize) await this.post();
    }
  }

  /** Posts what waits. */
  async post(): Promise<void> {
    if (this.#batch.length === 0) return;
    const sending = this.#batch;
    this.#batch = [];
    const { signal, onAppended } = this.#options;
    const appended = await this.#client.appendMessages(this.#session, sending, signal ? { signal } : {});
    this.#result.appended += appended.length;
    const last = appended.at(-1);
    if (last) this.#result.lastSeq = last.seq;
    onAppended?.(appended);
  }
}

/**
 * Maps an agent's events and appends the messages to a Happy session, resuming after what the session
 * already holds of the same log (see the module notes). Resolves when the events end (and, with `close`,
 * the stream is ended).
 *
 * @param client - a signed-in client whose account owns `session`.
 * @param session - the session, from `openSession` or `createSession`.
 * @param events - the provider's events in order (an array, a generator, an async iterable: a log read
 *   as it grows).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for bad options or an unknown provider.
 * @throws {StreamError} `ERR_STREAM_INVALID` when the session holds the end of this log's last turn and
 *   the log has grown since; nothing of the new events is posted.
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts; what was posted before stays.
 * @throws {StorageError} `ERR_UPLOAD_FAILED` (and the client's other errors) when a post fails after the
 *   retries; what was posted before stays, and a new call continues from there.
 * @example
 * ```ts
 * const media = sendMediaHandler({ store: client.attachmentStore(session), blobKey: session.blobKey });
 * const { appended } = await appendAgentLog(client, session, events, { provider: 'claude', media });
 * ```
 */
export async function appendAgentLog(
  client: HappyClient,
  session: HappySession,
  events: Iterable<unknown> | AsyncIterable<unknown>,
  options: AppendAgentLogOptions,
): Promise<AppendAgentLogResult> {
  const { batchSize, flushAfterMs } = checkedOptions(options);
  const { provider, media, signal, maxMediaBytes, clock, onSkip } = options;
  const shared: SharedMapperOptions = {
    ...(maxMediaBytes === undefined ? {} : { maxMediaBytes }),
    ...(clock === undefined ? {} : { clock }),
  };
  const mapper = createAgentMapper(provider, {
    ...shared,
    ...(media ? { media } : {}),
    ...(signal ? { signal } : {}),
    ...(onSkip ? { onSkip } : {}),
  });
  const iterator = eventIterator(events);
  const stored = await storedIds(client, session, signal);
  const replay = stored.size > 0 ? new StoredReplay(provider, shared, stored, session.id) : undefined;
  const result: AppendAgentLogResult = {
    events: 0,
    resumedEvents: 0,
    appended: 0,
    alreadyStored: 0,
    skipped: { total: 0, byReason: {} },
  };
  const poster = new MessagePoster(client, session, stored, batchSize, result, options);
  const aborted = () => {
    if (signal?.aborted)
      throw new AbortedError('appending the agent log was interrupted', { cause: signal.reason });
  };

  let pending: Promise<IteratorResult<unknown>> | undefined;
  let finished = false;
  try {
    for (;;) {
      aborted();
      pending ??= Promise.resolve(iterator.next());
      // Messages waiting: posted when no event comes for a while (a log still being written).
      const since = poster.waitingSince;
      const step = await nextOrWait(
        pending,
        since === undefined ? undefined : Math.max(0, since + flushAfterMs - Date.now()),
        signal,
      );
      if (step === 'waited') {
        aborted();
        await poster.post();
        continue;
      }
      pending = undefined;
      if (step.done) break;
      const event = step.value;
      result.events += 1;
      const held = await replay?.replay(event, mapper);
      if (held !== undefined) {
        result.resumedEvents += 1;
        result.alreadyStored += held;
        continue;
      }
      // A media handler that does not heed the signal does not hold the call: the abort ends it.
      const messages = await waitOrAbort(mapper.push(event), signal, () => {}, 'mapping an event');
      // An upload the abort cut short became a note: none of this event's messages are posted.
      aborted();
      await poster.queue(messages);
    }
    finished = true;
    if (options.close !== false) {
      aborted();
      await poster.queue(await mapper.end());
    }
    aborted();
    await poster.post();
  } finally {
    if (!finished) {
      // Left early (an abort, an error): the source is told, without waiting on a read it may be blocked in.
      void pending?.catch(() => {});
      void Promise.resolve(iterator.return?.()).catch(() => {});
    }
  }
  result.skipped = mapper.skipped();
  return result;
}
