/**
 * The one way to run a provider mapper: {@link createAgentMapper} gives a mapper for a provider (by
 * name, from the registry in `providers.ts`, or a provider object; what a provider is:
 * `mapper-provider.ts`), and {@link mapAgentOutput} maps a whole sequence of events at once.
 *
 * @module
 */
import { describeValue } from '../bytes.js';
import { InvalidArgumentError } from '../errors.js';
import type { SessionMessage, TurnStatus } from '../protocol/index.js';
import { ContentIds } from './content-ids.js';
import type { EventContext, MapperProvider } from './mapper-provider.js';
import { getMapperProvider } from './providers.js';
import { SessionWriter, type SessionWriterOptions } from './session-writer.js';
import type { SkipCounts } from './skips.js';

/**
 * Options of {@link createAgentMapper}: the writer's. Without `createId`, every id follows from the
 * events read so far (`content-ids.ts`): the same log maps to the same ids, whoever maps it, however
 * it is read, and however often.
 */
export type AgentMapperOptions = SessionWriterOptions;

/** A running mapper: feed provider events in order, get v2 messages out. */
export interface AgentMapper {
  /** The provider's name. */
  readonly provider: string;
  /** The writer underneath (its state: `openTurn`, `messageCount`). */
  readonly writer: SessionWriter;
  /**
   * Maps one provider event and resolves with the messages it produced, in stream order (often none,
   * sometimes several). Calls are serialised: a second `push` waits for the first.
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` after {@link AgentMapper.end}.
   * @throws {StreamError} `ERR_STREAM_INVALID` only with `verify: true`, when a mapper bug would write an invalid stream.
   */
  push(event: unknown, context?: EventContext): Promise<SessionMessage[]>;
  /**
   * Reads one provider event as {@link AgentMapper.push} would, changing the mapper's state exactly as
   * push does, but uploads nothing and returns only the ids of the messages push would have returned.
   * A mapper restarted on a log it has partly mapped replays the events it already wrote, then pushes
   * the rest: the messages it writes then are the ones (ids included) a single run writes from there.
   *
   * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` after {@link AgentMapper.end}.
   */
  replay(event: unknown, context?: EventContext): Promise<string[]>;
  /**
   * Input ended: flushes buffered events, ends every open call and the open turn (`status`, default
   * `completed` when no call was left open and `cancelled` otherwise), and resolves with the last
   * messages. The stream is then complete. With `close: false` the open turn stays open (a page of a
   * session that may still be running).
   */
  end(options?: { status?: TurnStatus; close?: boolean }): Promise<SessionMessage[]>;
  /** What was read and not written, by reason. */
  skipped(): SkipCounts;
}

/**
 * Creates a mapper for `provider`: a registered name (`claude`, `happy`, …; see
 * {@link MAPPER_PROVIDERS}) or a provider object.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for an unknown provider name or bad options.
 * @example
 * ```ts
 * const mapper = createAgentMapper('claude', { media });
 * for await (const event of sdkMessages) send(await mapper.push(event));
 * send(await mapper.end());
 * ```
 */
export function createAgentMapper(
  provider: string | MapperProvider,
  options: AgentMapperOptions = {},
): AgentMapper {
  if (typeof provider === 'string') provider = getMapperProvider(provider);
  if (
    provider === null ||
    typeof provider !== 'object' ||
    typeof provider.name !== 'string' ||
    typeof provider.create !== 'function'
  ) {
    throw new InvalidArgumentError(
      `expected a MapperProvider { name, summary, create } for \`provider\` but received ${describeValue(provider)}`,
    );
  }
  // Ids follow from the events read (content-ids.ts) unless the caller brings its own id seam.
  const ids = options.createId === undefined ? new ContentIds() : undefined;
  const writer = new SessionWriter(
    ids === undefined ? options : { ...options, createId: () => ids.createId() },
  );
  const handler = provider.create(writer);
  let ended = false;
  // Calls are serialised; one that finds nothing in flight runs at once, and only one whose handler
  // really waits (an upload) is chained, so the common event costs no promise hops.
  let inFlight = 0;
  let tail: Promise<unknown> = Promise.resolve();
  const follow = <T>(run: Promise<T>): Promise<T> => {
    inFlight += 1;
    const settled = () => {
      inFlight -= 1;
    };
    tail = run.then(settled, settled);
    return run;
  };
  const serialised = <T>(task: () => T | Promise<T>): Promise<T> => {
    if (inFlight > 0) return follow(tail.then(task, task));
    let result: T | Promise<T>;
    try {
      result = task();
    } catch (error) {
      return Promise.reject(error);
    }
    return isThenable(result) ? follow(Promise.resolve(result)) : Promise.resolve(result);
  };
  /** Reads `event`, then `after()`: at once when the handler did not wait, else once it is done. */
  const read = <T>(event: unknown, context: EventContext, after: () => T): T | Promise<T> => {
    ids?.nextEvent(event, context.recordId);
    const pushed = handler.push(event, context);
    return isThenable(pushed) ? Promise.resolve(pushed).then(after) : after();
  };
  const refuseEnded = () =>
    Promise.reject(new InvalidArgumentError('the mapper has ended: create a new one for a new stream'));

  return {
    provider: provider.name,
    writer,
    push(event, context = {}) {
      if (ended) return refuseEnded();
      return serialised(() => read(event, context, () => writer.take()));
    },
    replay(event, context = {}) {
      if (ended) return refuseEnded();
      return serialised(async () => {
        await writer.replay(() => Promise.resolve(read(event, context, () => undefined)));
        return writer.take().map((message) => message.id);
      });
    },
    end(options = {}) {
      if (ended) return Promise.resolve([]);
      ended = true;
      return serialised(async () => {
        ids?.nextEnd();
        await handler.end?.();
        if (options.close !== false) {
          writer.endTurn(options.status ?? (writer.openCalls().length > 0 ? 'cancelled' : 'completed'));
        }
        return writer.take();
      });
    },
    skipped: () => writer.skips.counts(),
  };
}

/** True for a promise or any other thenable (a provider's handler may return either, or nothing). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** What {@link mapAgentOutput} produced. */
export interface MappedOutput {
  /** The whole v2 stream, complete (every turn ended). */
  messages: SessionMessage[];
  /** What was read and not written, by reason. */
  skipped: SkipCounts;
}

/**
 * Maps a whole sequence of provider events (an array, a generator, an async iterable) and ends the
 * stream.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for bad options or `events` that are not iterable.
 * @example
 * ```ts
 * const { messages, skipped } = await mapAgentOutput('claude', lines.map((line) => JSON.parse(line)));
 * ```
 */
export async function mapAgentOutput(
  provider: string | MapperProvider,
  events: Iterable<unknown> | AsyncIterable<unknown>,
  options: AgentMapperOptions = {},
): Promise<MappedOutput> {
  if (
    events === null ||
    typeof events !== 'object' ||
    (typeof (events as Iterable<unknown>)[Symbol.iterator] !== 'function' &&
      typeof (events as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function')
  ) {
    throw new InvalidArgumentError(
      `expected an iterable of events for \`events\` but received ${describeValue(events)}`,
    );
  }
  const mapper = createAgentMapper(provider, options);
  const messages: SessionMessage[] = [];
  for await (const event of events) messages.push(...(await mapper.push(event)));
  messages.push(...(await mapper.end()));
  return { messages, skipped: mapper.skipped() };
}
