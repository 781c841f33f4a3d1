/**
 * What `happy-media map` reads: the log's events (JSON Lines, or one JSON array), and which provider
 * wrote them when `--from` is left out (its first events decide: `detectAgentLog`), or whether a given
 * `--from` agrees with them.
 *
 * @module
 */
import { type DetectedAgentLog, detectAgentLog, readJsonLines } from '../node/index.js';
import { readJsonInput } from './json-input.js';
import { UsageError } from './usage-error.js';

/** Events the provider is told from, at most (what `detectAgentLog` reads). */
const DETECT_EVENTS = 50;
/** A log still being written: once this long passes without a new event, the events so far decide (ms). */
const DETECT_IDLE_MS = 500;

/** What was read: events, and lines that were not (counted as `unreadable`). */
export interface InputCounts {
  events: number;
  unreadable: number;
}

/**
 * The input's events: JSON Lines, or the elements of one JSON array, streamed (json-input.ts); a log that
 * grows (`linesOnly`) is JSON Lines. What is not JSON (or too long) is counted, not yielded.
 */
export async function* readEvents(
  stream: ReadableStream<Uint8Array>,
  maxLineBytes: number,
  counts: InputCounts,
  linesOnly = false,
): AsyncGenerator<unknown> {
  const entries = linesOnly
    ? readJsonLines(stream, { maxLineBytes })
    : readJsonInput(stream, { maxItemBytes: maxLineBytes });
  for await (const entry of entries) {
    if (!entry.ok) {
      counts.unreadable += 1;
      continue;
    }
    counts.events += 1;
    yield entry.value;
  }
}

/** The events again, the ones read ahead first. */
async function* replayed(
  ahead: readonly unknown[],
  rest: AsyncIterator<unknown>,
  done: boolean,
): AsyncGenerator<unknown> {
  yield* ahead;
  if (done) return;
  for (;;) {
    const step = await rest.next();
    if (step.done) return;
    yield step.value;
  }
}

/** The step `pending` resolves with, or `undefined` when `ms` pass first (the read goes on). */
async function nextWithin(
  pending: Promise<IteratorResult<unknown>>,
  ms: number,
): Promise<IteratorResult<unknown> | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([pending, waited]);
  } finally {
    clearTimeout(timer);
  }
}

/** What {@link decideProvider} found: the provider to map with and the events, none lost. */
export interface DecidedProvider {
  provider: string;
  detected: DetectedAgentLog;
  events: AsyncIterable<unknown>;
}

/**
 * Which provider maps the log: `--from` when given and the first events agree (or show nothing this
 * version recognises), else what they show. Reads at most {@link DETECT_EVENTS} events ahead (a log
 * still being written: what has come once it has been quiet for {@link DETECT_IDLE_MS} ms, as soon as
 * that is recognisable), and hands them on with the rest.
 *
 * @param name - how the input is named in messages.
 * @throws {UsageError} `ERR_USAGE` when `--from` contradicts the events (naming the likely provider), or
 *   when `--from` is left out and the events show no provider.
 */
export async function decideProvider(
  events: AsyncIterable<unknown>,
  from: string | undefined,
  name: string,
): Promise<DecidedProvider> {
  const iterator = events[Symbol.asyncIterator]();
  const ahead: unknown[] = [];
  let done = false;
  let pending: Promise<IteratorResult<unknown>> | undefined;
  let detected = detectAgentLog(ahead);
  while (ahead.length < DETECT_EVENTS) {
    pending ??= iterator.next();
    // Nothing recognised yet and no --from: wait for more; else what came while it was quiet decides.
    const patient = from === undefined && detected.provider === 'unknown';
    const step = patient ? await pending : await nextWithin(pending, DETECT_IDLE_MS);
    if (step === undefined) break;
    pending = undefined;
    if (step.done) {
      done = true;
      break;
    }
    ahead.push(step.value);
    detected = detectAgentLog(ahead);
  }
  // A read left waiting is the first one the events handed on take up.
  const rest: AsyncIterator<unknown> = {
    next: () => {
      const waiting = pending;
      pending = undefined;
      return waiting ?? iterator.next();
    },
  };
  const handOn = replayed(ahead, rest, done);
  if (from !== undefined) {
    if (detected.provider !== 'unknown' && detected.provider !== from) {
      throw new UsageError(
        `${name} looks like ${detected.description}, which --from ${detected.provider} reads, not --from ${from}: nothing was mapped; pass --from ${detected.provider} (or leave --from out)`,
      );
    }
    return { provider: from, detected, events: handOn };
  }
  if (detected.provider === 'unknown') {
    throw new UsageError(
      `cannot tell which agent wrote ${name} from its first ${ahead.length} event${ahead.length === 1 ? '' : 's'}: pass --from claude, codex or acp`,
    );
  }
  return { provider: detected.provider, detected, events: handOn };
}
