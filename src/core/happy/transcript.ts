/**
 * A session's records as one Session Protocol v2 transcript, record by record.
 *
 * Every opened record goes, in order, through one `mapHappyRecords` (the reader of what Happy's server
 * holds: v2 messages as they are, legacy user/agent records through the provider mappers, v1 session and
 * `file` events converted; `src/core/mappers/happy/`), so turns and tool calls that span
 * records come out whole, and the stream stays valid. Each record is handed on with the v2 messages it
 * contributed (`messages`, possibly none: a shape the reader skips, an unreadable record) and the v1
 * attachments those messages name (`v1Blobs`: their blobs are Happy's v1 format, play them with
 * `format: 'v1'`).
 *
 * The reader pulls one record, maps it, and yields its messages before it pulls the next, so what a
 * record contributed is known when the next record is pulled (or the input ends; the messages that
 * closing the reader adds belong to the last record). Reading starts fresh at `after`: a turn opened
 * before it is not known to the reader.
 *
 * @module
 */

import { type HappyRecordsSummary, mapHappyRecords } from '../mappers/happy/map-happy-records.js';
import type { V1Blob } from '../mappers/happy/v1-session.js';
import type { SessionMessage } from '../protocol/index.js';
import type { OpenedSessionRecord } from './session-records.js';

/** One record of a session as {@link HappyClient.readMessages} yields it. */
export type HappySessionRecord = OpenedSessionRecord & {
  /**
   * The v2 messages this record contributes to the session's transcript, in order: a v2 record's own
   * message; what the legacy reader made of a record in Happy's older shapes (none when it skipped the
   * shape); none for an unreadable record.
   */
  readonly messages: readonly SessionMessage[];
  /** Attachments named in `messages` whose blobs are in Happy's v1 format (play them with `format: 'v1'`). */
  readonly v1Blobs: readonly V1Blob[];
};

interface Pending {
  record: OpenedSessionRecord;
  messages: SessionMessage[];
  v1Blobs: V1Blob[];
}

/**
 * Passes opened records through the legacy reader and yields each with what it contributed; returns
 * the reader's summary (skipped shapes by reason, every v1 attachment).
 *
 * @throws whatever reading `records` throws (the transport); never for a record.
 */
export async function* readTranscript(
  records: AsyncIterable<OpenedSessionRecord>,
  sessionId: string,
): AsyncGenerator<HappySessionRecord, HappyRecordsSummary> {
  const ready: HappySessionRecord[] = [];
  let current: Pending | undefined;
  const finish = () => {
    if (current) ready.push({ ...current.record, messages: current.messages, v1Blobs: current.v1Blobs });
    current = undefined;
  };
  async function* source(): AsyncGenerator<OpenedSessionRecord> {
    for await (const record of records) {
      finish();
      current = { record, messages: [], v1Blobs: [] };
      yield record;
    }
  }
  const mapped = mapHappyRecords(source(), {
    sessionId,
    onV1Blob: (blob) => current?.v1Blobs.push(blob),
    // A record that names another session's attachment is unreadable as this session's.
    onInvalidRef: (error) => {
      if (!current) return;
      const { seq, recordId, localId, createdAt } = current.record;
      current.record = { seq, recordId, localId, createdAt, kind: 'unreadable', error };
    },
  });
  try {
    for (;;) {
      const step = await mapped.next();
      // Records the reader moved past while producing this step are complete.
      yield* ready.splice(0);
      if (step.done) {
        finish();
        yield* ready.splice(0);
        return step.value;
      }
      current?.messages.push(step.value);
    }
  } finally {
    await mapped.return(undefined as never);
  }
}
