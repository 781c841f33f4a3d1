/**
 * `happy-media transcript SESSION [--after SEQ] [--records]`: a session's records read back from Happy's
 * server, opened with the account's keys. By default the Session Protocol v2 messages, one JSON line
 * each (a stream `happy-media validate` reads); records in Happy's older shapes are counted on stderr,
 * and a record that cannot be opened is reported on stderr and skipped. `--records` prints every record
 * instead: `{ seq, recordId, localId, createdAt, kind, message | record | error }`.
 *
 * Exit status 0 even when records were skipped (they are reported); 1 when the session cannot be read.
 *
 * @module
 */
import type { Command } from 'commander';
import { type HappySessionRecord, UsageError } from '../../index.js';
import { addHappyOptions, connectHappy, type HappyFlags, openHappySession } from '../happy-options.js';
import { runAction } from '../run-action.js';

interface TranscriptFlags extends HappyFlags {
  after?: string;
  records?: boolean;
}

function recordLine(record: HappySessionRecord): object {
  const { seq, recordId, localId, createdAt, kind } = record;
  const position = { seq, recordId, localId, createdAt, kind };
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
      .option('--records', 'print every record with its seq and kind (legacy and unreadable ones too)'),
  )
    .addHelpText(
      'after',
      '\nExample:\n  $ happy-media transcript cmx6k89sd00016q7dnk5axjpq --secret-file ~/.happy/access.key > session.jsonl\n' +
        '  $ happy-media validate session.jsonl',
    )
    .action(
      runAction(async (sessionId: string, flags: TranscriptFlags) => {
        let after = 0;
        if (flags.after !== undefined) {
          after = /^\d+$/.test(flags.after) ? Number(flags.after) : Number.NaN;
          if (!Number.isSafeInteger(after)) {
            throw new UsageError(
              `expected a non-negative integer for --after but received ${JSON.stringify(flags.after)}`,
            );
          }
        }
        const client = await connectHappy(flags);
        const session = await openHappySession(client, sessionId);
        const legacy: number[] = [];
        for await (const record of client.readMessages(session, { after })) {
          if (flags.records) {
            process.stdout.write(`${JSON.stringify(recordLine(record))}\n`);
          } else if (record.kind === 'message') {
            process.stdout.write(`${JSON.stringify(record.message)}\n`);
          } else if (record.kind === 'legacy') {
            legacy.push(record.seq);
          }
          if (record.kind === 'unreadable') {
            process.stderr.write(
              `happy-media transcript: warning: record seq ${record.seq} skipped: ${record.error.code}: ${record.error.message}\n`,
            );
          }
        }
        if (legacy.length > 0) {
          const shown = legacy.slice(0, 10).join(', ') + (legacy.length > 10 ? ', …' : '');
          process.stderr.write(
            `happy-media transcript: note: ${legacy.length} record(s) in Happy's older shapes are not v2 and were left out (seq ${shown}); --records prints them\n`,
          );
        }
      }),
    );
}
