/**
 * `happy-media transcript SESSION [--after SEQ] [--records]`: a session read back from Happy's server,
 * opened with the account's keys, as one Session Protocol v2 stream, one JSON line per message (what
 * `happy-media validate` reads). Records in Happy's older shapes (legacy user/agent records, v1 events)
 * come out as what the legacy reader (`mapHappyRecords`) makes of them; shapes it skips are counted on
 * stderr, and a record that cannot be opened is reported on stderr and skipped. `--records` prints every
 * record instead: `{ seq, recordId, localId, createdAt, kind, messages, message | record | error }`.
 *
 * Exit status 0 even when records were skipped (they are reported); 1 when the session cannot be read.
 *
 * @module
 */
import type { Command } from 'commander';
import type { HappySessionRecord } from '../../node/index.js';
import { addHappyOptions, connectHappy, type HappyFlags, openHappySession } from '../happy-options.js';
import { optionalIntegerFlag } from '../integer-flag.js';
import { jsonLine } from '../json-line.js';
import { runAction } from '../run-action.js';
import { terminalText } from '../terminal-text.js';

interface TranscriptFlags extends HappyFlags {
  after?: string;
  records?: boolean;
}

function recordLine(record: HappySessionRecord): object {
  const { seq, recordId, localId, createdAt, kind, messages } = record;
  const position = { seq, recordId, localId, createdAt, kind, messages };
  if (record.kind === 'message') return { ...position, message: record.message };
  if (record.kind === 'legacy') return { ...position, record: record.record };
  return { ...position, error: { code: record.error.code, message: record.error.message } };
}

/** Registers `transcript` on the program. */
export function registerTranscript(program: Command): void {
  addHappyOptions(
    program
      .command('transcript')
      .description("read a session back from Happy's server: its v2 messages as JSON lines")
      .argument('<session>', 'the session id (see: happy-media sessions)')
      .option('--after <seq>', 'only records after this sequence number (resume a read)')
      .option('--records', 'print every record with its seq, kind and the v2 messages it became'),
  )
    .addHelpText(
      'after',
      '\nExample:\n  $ happy-media transcript cmx6k89sd00016q7dnk5axjpq --secret-file ~/.happy/access.key > session.jsonl\n' +
        '  $ happy-media validate session.jsonl',
    )
    .action(
      runAction(async (sessionId: string, flags: TranscriptFlags) => {
        const after = optionalIntegerFlag(flags.after, '--after') ?? 0;
        const client = await connectHappy(flags);
        const session = await openHappySession(client, sessionId, 'the SESSION argument');
        const records = client.readMessages(session, { after });
        let legacy = 0;
        for (;;) {
          const next = await records.next();
          if (next.done) {
            const { skipped } = next.value;
            if (legacy > 0 || skipped.total > 0) {
              const reasons = Object.entries(skipped.byReason)
                .map(([reason, count]) => `${count} ${reason}`)
                .join(', ');
              process.stderr.write(
                `happy-media transcript: note: ${legacy} record(s) in Happy's older shapes read through the legacy reader` +
                  `${skipped.total > 0 ? `; ${skipped.total} event(s) not written (${reasons})` : ''}\n`,
              );
            }
            break;
          }
          const record = next.value;
          if (record.kind === 'legacy') legacy += 1;
          if (flags.records) {
            process.stdout.write(jsonLine(recordLine(record)));
          } else {
            for (const message of record.messages) process.stdout.write(jsonLine(message));
          }
          if (record.kind === 'unreadable') {
            process.stderr.write(
              `happy-media transcript: warning: record seq ${record.seq} skipped: ${record.error.code}: ${terminalText(record.error.message)}\n`,
            );
          }
        }
      }),
    );
}
