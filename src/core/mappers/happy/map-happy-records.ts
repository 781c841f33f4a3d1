/**
 * `mapHappyRecords`: the one function that reads a session as Happy's server holds it (legacy
 * records, v1 session events, v2 messages, in any mix) and yields v2 messages, so an app renders old
 * and new sessions with one `foldTranscript`. See `happy-records.ts` for the table.
 *
 * @module
 */
import { describeValue } from '../../bytes.js';
import { InvalidArgumentError } from '../../errors.js';
import { createMessageId, type SessionMessage } from '../../protocol/index.js';
import { type AgentMapperOptions, createAgentMapper } from '../agent-mapper.js';
import { legacyProviderFor } from '../providers.js';
import type { SkipCounts } from '../skips.js';
import { createHappyRecordsProvider } from './happy-records.js';
import type { V1Blob, V1SessionOptions } from './v1-session.js';

/** Options of {@link mapHappyRecords}. */
export interface MapHappyRecordsOptions extends AgentMapperOptions, Omit<V1SessionOptions, 'onV1Blob'> {
  /** Told about each attachment whose blob is in Happy's v1 format, before the message naming it is yielded. */
  onV1Blob?: (blob: V1Blob) => void;
  /** End the last turn when the records end (default false: the session may still be running). */
  close?: boolean;
}

/** What {@link mapHappyRecords} returns when it is done (the generator's return value). */
export interface HappyRecordsSummary {
  /** What was read and not written, by reason (unknown shapes are `unknown-event`). */
  skipped: SkipCounts;
  /** Every v1 attachment met: these refs name blobs in Happy's v1 format (`format: 'v1'` when playing). */
  v1Blobs: V1Blob[];
}

/**
 * Reads a session's records in order and yields v2 messages. Never throws on a record: unknown shapes
 * are counted and skipped. Ids are stable: a message keeps its v2 id; what a legacy record becomes
 * takes the record's server id (`<id>`, `<id>.1`, …), so reading the same records again yields the same
 * ids (unless `createId` is given).
 *
 * Inputs: what `HappyClient.readMessages` yields, decrypted server messages `{ id, content, createdAt }`,
 * or bare records `{ role, content }` and v2 messages.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `records` is not iterable or an option is malformed.
 * @example
 * ```ts
 * const messages: SessionMessage[] = [];
 * for await (const message of mapHappyRecords(client.readMessages(session))) messages.push(message);
 * render(foldTranscript(messages));
 * ```
 */
export async function* mapHappyRecords(
  records: Iterable<unknown> | AsyncIterable<unknown>,
  options: MapHappyRecordsOptions = {},
): AsyncGenerator<SessionMessage, HappyRecordsSummary> {
  if (
    records === null ||
    typeof records !== 'object' ||
    (typeof (records as Iterable<unknown>)[Symbol.iterator] !== 'function' &&
      typeof (records as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function')
  ) {
    throw new InvalidArgumentError(
      `expected an iterable of records for \`records\` but received ${describeValue(records)}`,
    );
  }
  const { onV1Blob, close, sessionId, onInvalidRef, ...mapperOptions } = options;
  for (const [name, value] of [
    ['onV1Blob', onV1Blob],
    ['onInvalidRef', onInvalidRef],
  ] as const) {
    if (value !== undefined && typeof value !== 'function') {
      throw new InvalidArgumentError(
        `expected a function for \`options.${name}\` but received ${describeValue(value)}`,
      );
    }
  }
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === '')) {
    throw new InvalidArgumentError(
      `expected a session id for \`options.sessionId\` but received ${describeValue(sessionId)}`,
    );
  }
  let recordId: string | undefined;
  let count = 0;
  const stableId = (): string => {
    if (recordId === undefined) return createMessageId();
    count += 1;
    return count === 1 ? recordId : `${recordId}.${count - 1}`;
  };
  const v1Blobs: V1Blob[] = [];
  const provider = createHappyRecordsProvider({
    legacyProvider: legacyProviderFor,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(onInvalidRef === undefined ? {} : { onInvalidRef }),
    onV1Blob: (blob) => {
      v1Blobs.push(blob);
      onV1Blob?.(blob);
    },
    onRecord: (id) => {
      recordId = id;
      count = 0;
    },
  });
  const mapper = createAgentMapper(provider, { createId: stableId, ...mapperOptions });
  for await (const item of records) yield* await mapper.push(item);
  yield* await mapper.end({ close: close === true });
  return { skipped: mapper.skipped(), v1Blobs };
}
