/**
 * `happy-media validate FILE.jsonl | -`: checks a Session Protocol v2 stream stored as JSON Lines.
 *
 * Output contract: stdout carries only the violations (`index N: CODE: message`, or with `--json` one
 * JSON object per line), so it can be piped; the one-line summary goes to stderr. Exit 0 when the
 * stream is valid, 1 when it is not (`ERR_STREAM_INVALID`) or cannot be read, 2 on bad usage.
 *
 * @module
 */
import type { Command } from 'commander';
import { StreamError } from '../../errors.js';
import { createStreamValidator, readJsonLines, STREAM_RULES, type StreamViolation } from '../../index.js';
import { openInput } from '../input-file.js';
import { parseIntegerFlag } from '../integer-flag.js';
import { runAction } from '../run-action.js';

/** `--time-tolerance-ms` unless given: one minute of clock skew (the validator's own default). */
export const DEFAULT_TIME_TOLERANCE_MS = 60_000;

/** `--max-line-bytes` unless given: 8 MiB (`readJsonLines`' own default; a message's media live by ref). */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

interface ValidateOptions {
  json?: boolean;
  strict?: boolean;
  requireTurnStart?: boolean;
  timeToleranceMs: string;
  maxLineBytes: string;
}

function printViolation(violation: StreamViolation, line: number, json: boolean): void {
  if (json) {
    const { index, code, message, id } = violation;
    process.stdout.write(
      `${JSON.stringify({ index, line, code, message, ...(id === undefined ? {} : { id }) })}\n`,
    );
  } else {
    process.stdout.write(`index ${violation.index}: ${violation.code}: ${violation.message}\n`);
  }
}

/** Registers `validate` on the program. */
export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('check a Session Protocol v2 stream (JSON Lines) against the schemas and stream rules')
    .argument('<file>', 'the .jsonl file, or "-" for stdin')
    .option(
      '--json',
      'print each violation as one JSON object per line: {"index","line","code","message","id"?}',
    )
    .option('--strict', 'reject fields the protocol does not define (default: tolerant, they are ignored)')
    .option('--require-turn-start', 'do not accept a stream that begins in the middle of a turn')
    .option(
      '--time-tolerance-ms <ms>',
      'how far time may step back (clock skew between devices)',
      String(DEFAULT_TIME_TOLERANCE_MS),
    )
    .option('--max-line-bytes <bytes>', 'longest accepted line', String(DEFAULT_MAX_LINE_BYTES))
    .addHelpText(
      'after',
      [
        '',
        'Blank lines are ignored; "index" counts the other lines from 0. A valid stream exits 0 with a',
        'summary on stderr; otherwise each violation is printed on stdout ("index N: CODE: message") and the',
        'command exits 1 with ERR_STREAM_INVALID. Rule codes:',
        ...Object.entries(STREAM_RULES).map(([code, rule]) => `  ${code.padEnd(30)}${rule}`),
        '',
        'Example:',
        '  $ happy-media validate samples/streams/demo.jsonl',
        '  $ cat stream.jsonl | happy-media validate - --json',
      ].join('\n'),
    )
    .action(
      runAction(async (file: string, options: ValidateOptions) => {
        const timeToleranceMs = parseIntegerFlag(options.timeToleranceMs, '--time-tolerance-ms');
        const maxLineBytes = parseIntegerFlag(options.maxLineBytes, '--max-line-bytes');
        const json = options.json === true;
        const validator = createStreamValidator({
          mode: options.strict === true ? 'strict' : 'tolerant',
          timeToleranceMs,
          requireTurnStart: options.requireTurnStart === true,
        });
        const input = await openInput(file);
        let violationCount = 0;
        try {
          for await (const entry of readJsonLines(input.stream, { maxLineBytes })) {
            const found = entry.ok
              ? validator.push(entry.value)
              : [validator.pushUnreadable(entry.code, entry.message)];
            for (const violation of found) printViolation(violation, entry.line, json);
            violationCount += found.length;
          }
        } finally {
          await input.close();
        }
        const name = file === '-' ? 'stdin' : file;
        const messages = validator.messageCount;
        if (violationCount > 0) {
          throw new StreamError(
            `${name}: ${violationCount} violation${violationCount === 1 ? '' : 's'} in ${messages} message${messages === 1 ? '' : 's'}`,
          );
        }
        process.stderr.write(
          `${name}: valid Session Protocol v2 stream (${messages} message${messages === 1 ? '' : 's'})\n`,
        );
      }),
    );
}
