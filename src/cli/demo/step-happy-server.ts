/**
 * Demo step 8 (optional, when a Happy server is configured): the whole loop through Happy's own server,
 * as a Happy user would run it. A throwaway account (a fresh secret, never the user's) signs in and
 * makes a session as Happy's CLI does; the samples go into it as v2 media messages inside a turn, and the
 * PDF also as v1 (what Happy's released app opens); posting a message again stores it once; the transcript read
 * back holds exactly what was sent and validates; every media message plays back to what was sent.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import {
  decryptV1Blob,
  type HappyFileEvent,
  type HappySessionRecord,
  type MediaMessage,
  openMedia,
  sendToSession,
  turnEnd,
  turnStart,
  validateStream,
} from '../../node/index.js';
import type { DemoItem, DemoTurn } from './demo-state.js';
import { kib } from './describe.js';
import { createHappyAccount, type HappyAccount } from './happy-account.js';
import { readAll, sha256File } from './read-all.js';
import type { DemoRecorder, StepHandle } from './report.js';

/** A running Happy server to send through (a throwaway account is made on it). */
export interface HappyServerTarget {
  url: string;
}

/** The Happy server named by `HAPPY_MEDIA_HAPPY_SERVER_URL`, if any. */
export function happyServerFromEnv(): HappyServerTarget | undefined {
  const url = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
  return url ? { url } : undefined;
}

/** A message the demo sent into the session, with the sample it carries. */
interface SentSample {
  item: DemoItem;
  message: MediaMessage | HappyFileEvent;
  seq: number;
}

/**
 * Sends the samples into `session` as v2 media messages inside a turn, and the PDF also as v1; checks
 * the records were appended in order and that posting a message again stores it once. Returns what was
 * sent, and the ids of every record (the turn's start and end around the samples).
 */
async function sendSamplesIntoSession(
  s: StepHandle,
  { client, session }: Pick<HappyAccount, 'client' | 'session'>,
  items: DemoItem[],
  turn: string,
): Promise<{ sent: SentSample[]; ids: string[] }> {
  const sent: SentSample[] = [];
  const opening = turnStart({ turn });
  const seqs = [(await client.appendMessages(session, [opening]))[0]?.seq];
  for (const item of items) {
    const result = await sendToSession(item.path, { client, session, role: 'agent', turn });
    sent.push({ item, message: result.message, seq: result.seq });
    seqs.push(result.seq);
    s.info(
      `${item.label}: v2 ${result.message.id} at seq ${result.seq} (${kib(result.ciphertextSize)} ciphertext)`,
    );
  }
  const pdf = items.find((i) => i.probe?.kind === 'file') ?? items.at(-1);
  if (pdf) {
    const v1 = await sendToSession(pdf.path, { client, session, format: 'v1' });
    sent.push({ item: pdf, message: v1.message, seq: v1.seq });
    seqs.push(v1.seq);
    s.info(`${pdf.label}: v1 file event ${v1.message.id} at seq ${v1.seq} (what Happy's released app opens)`);
  }
  const closing = turnEnd({ turn, status: 'completed' });
  seqs.push((await client.appendMessages(session, [closing]))[0]?.seq);
  s.check(
    `${seqs.length} records appended in order (seq ${seqs.join(', ')})`,
    seqs.every((seq, i) => seq === i + 1),
  );
  const first = sent[0];
  if (first) {
    const [again] = await client.appendMessages(session, [first.message]);
    s.check(
      `posting the ${first.item.label} message again (same localId) finds the first copy at seq ${first.seq}`,
      again?.seq === first.seq,
    );
  }
  return { sent, ids: [opening.id, ...sent.map(({ message }) => message.id), closing.id] };
}

/**
 * Reads the session back and checks it holds the records `ids`, in order, and nothing else, as a valid
 * v2 stream. Returns the transcript and the v1 blobs its legacy records name.
 */
async function readBackTranscript(
  s: StepHandle,
  { client, session }: Pick<HappyAccount, 'client' | 'session'>,
  ids: string[],
) {
  const records: HappySessionRecord[] = [];
  for await (const record of client.readMessages(session)) records.push(record);
  const transcript = records.flatMap((r) => r.messages);
  const v1Blobs = records.flatMap((r) => r.v1Blobs);
  s.check(
    `the transcript read back is the ${ids.length} messages sent, in order (the v1 event through the legacy reader), and nothing else`,
    records.length === ids.length && JSON.stringify(transcript.map((m) => m.id)) === JSON.stringify(ids),
  );
  s.check('the transcript is a valid Session Protocol v2 stream', validateStream(transcript).length === 0);
  return { transcript, v1Blobs };
}

/**
 * Runs the loop through `target` (or the server named by the environment). Without a server it only
 * says how to start one: it is not part of the offline mission, so it is not counted as a skipped part.
 */
export async function sendThroughHappyServer(
  rec: DemoRecorder,
  target: HappyServerTarget | undefined,
  items: DemoItem[],
  { turn }: DemoTurn,
  tempRoot: string,
): Promise<void> {
  await rec.step(
    "Happy's own server: send into a session, read the transcript back, play every message",
    async (s) => {
      const configured = target ?? happyServerFromEnv();
      if (!configured) {
        s.info(
          'no Happy server configured: start one with scripts/happy-server.sh install DIR && scripts/happy-server.sh start DIR, then `. DIR/env` (sets HAPPY_MEDIA_HAPPY_SERVER_URL) and run the demo again',
        );
        return true;
      }
      const { client, session } = await createHappyAccount(configured.url, { name: 'happy-media demo' });
      s.info(
        `${client.url}: a throwaway account (a fresh secret) and session ${session.id}, made as Happy's CLI makes one (data-key bundle, sealed metadata)`,
      );
      const store = client.attachmentStore(session);
      const { sent, ids } = await sendSamplesIntoSession(s, { client, session }, items, turn);
      const { transcript, v1Blobs } = await readBackTranscript(s, { client, session }, ids);
      for (const { item, message } of sent) {
        const read = transcript.find((m) => m.id === message.id);
        const v1 = read && 'ref' in read ? v1Blobs.find((b) => b.ref === read.ref) : undefined;
        const format = v1 ? 'v1' : 'v2';
        if (!read || !('ref' in read)) {
          s.check(`${item.label} (${format}) is in the transcript`, false);
          continue;
        }
        const media = await openMedia(v1 ? { ref: read.ref, format: 'v1', size: v1.size } : read, {
          store,
          blobKey: session.blobKey,
          tempRoot,
        });
        try {
          s.check(
            `${item.label} (${format}, read from the transcript) plays back with the SHA-256 of what was sent`,
            (await sha256File(media.path)) === item.sha256,
          );
        } finally {
          await media.dispose();
        }
        if (v1) {
          // And as Happy's app opens it: the whole blob, secretbox under the session blob key.
          const blob = await readAll(await store.get(read.ref));
          s.check(
            `${item.label} (v1) opens with the session blob key as Happy's app opens it (decryptBlob), with the SHA-256 of what was sent`,
            createHash('sha256').update(decryptV1Blob(blob, session.blobKey)).digest('hex') === item.sha256,
          );
        }
      }
      return true;
    },
  );
}
