/**
 * `happy-media map --from claude|codex|acp|happy FILE.jsonl|-`: maps an agent's output (or Happy's
 * stored records) into Session Protocol v2 and prints the stream as JSON Lines on stdout, one message
 * per line, a stream `happy-media validate` accepts (each message is checked by its builder's schema, and
 * the mapper's state keeps the stream's rules). Input: JSON Lines, or one JSON array (Happy's app
 * traces), streamed either way: memory stays flat in the input's length.
 *
 * Images: with `--store` (and the blob key from `--key-file`, `HAPPY_MEDIA_KEY` or `--key`) each image is
 * probed, encrypted and uploaded before the `photo` that refers to it; without, each image becomes a
 * `service` note. `--seal-key-file` prints each message sealed as a Happy envelope instead.
 *
 * stderr: a progress line every 2 s for long logs, then a summary (events, messages, uploads, skips by
 * reason). Exit 0 when the input was read (skips are reported, not failures), 1 when it cannot be read,
 * 2 on bad usage.
 *
 * @module
 */
import { type Command, Option } from 'commander';
import {
  AbortedError,
  createAgentMapper,
  getMapperProvider,
  MAPPER_PROVIDERS,
  type MediaHandler,
  mapHappyRecords,
  type SessionKey,
  type SessionMessage,
  SKIP_REASONS,
  type SkipCounts,
  sealMessage,
  sendMediaHandler,
  sessionKey,
  UsageError,
} from '../../index.js';
import { INSECURE_HTTP_HELP } from '../happy-options.js';
import { openInput } from '../input-file.js';
import { parseIntegerFlag } from '../integer-flag.js';
import { interruptible } from '../interrupt.js';
import { readJsonInput } from '../json-input.js';
import { jsonLine } from '../json-line.js';
import { resolveKey } from '../key-source.js';
import { runAction } from '../run-action.js';
import { openCliStore } from '../store-options.js';
import { resolveSealKey, SEAL_KEY_ENV_VARIABLE } from './send.js';

/** Longest input line `map` reads by default: 64 MiB (a Claude log line can carry a large base64 screenshot). */
export const MAP_MAX_LINE_BYTES = 64 * 1024 * 1024;

interface MapCliOptions {
  from: string;
  store?: string;
  insecureHttp?: boolean;
  key?: string;
  keyFile?: string;
  token?: string;
  tokenFile?: string;
  session?: string;
  sealKey?: string;
  sealKeyFile?: string;
  variant?: 'legacy' | 'datakey';
  maxLineBytes: string;
  keepOpen?: boolean;
}

/** What was read: events, and lines that were not (counted as `unreadable`). */
interface InputCounts {
  events: number;
  unreadable: number;
}

/** The input's events (JSON Lines, or the elements of one JSON array, streamed); what is not JSON is counted. */
async function* readEvents(
  stream: ReadableStream<Uint8Array>,
  maxLineBytes: number,
  counts: InputCounts,
): AsyncGenerator<unknown> {
  for await (const entry of readJsonInput(stream, { maxItemBytes: maxLineBytes })) {
    if (!entry.ok) {
      counts.unreadable += 1;
      continue;
    }
    counts.events += 1;
    yield entry.value;
  }
}

function formatSkips(skipped: SkipCounts, unreadable: number): string {
  const byReason: Record<string, number> = { ...skipped.byReason };
  if (unreadable > 0) byReason.unreadable = (byReason.unreadable ?? 0) + unreadable;
  const total = skipped.total + unreadable;
  if (total === 0) return 'nothing skipped';
  const parts = SKIP_REASONS.filter((reason) => byReason[reason] !== undefined).map(
    (reason) => `${reason} ${byReason[reason]}`,
  );
  return `skipped ${total} (${parts.join(', ')})`;
}

/** Writes to stdout, waiting when the pipe is full. */
async function writeOut(text: string): Promise<void> {
  if (!process.stdout.write(text))
    await new Promise<void>((resolve) => process.stdout.once('drain', resolve));
}

/** Registers `map` on the program. */
export function registerMap(program: Command): void {
  const providers = MAPPER_PROVIDERS.map((provider) => provider.name);
  program
    .command('map')
    .description("map an agent's output (or Happy's stored records) into a v2 stream, printed as JSON Lines")
    .argument('<file>', 'the log (JSON Lines, or one JSON array), or "-" for stdin')
    .addOption(new Option('--from <provider>', 'what the input is').choices(providers).makeOptionMandatory())
    .option(
      '--store <spec>',
      'upload images to this store (directory, http(s)://server, s3://bucket/prefix, happy+https://host)',
    )
    .option('--key <base64>', 'the 32-byte blob key (visible in the process list: prefer --key-file)')
    .option('--key-file <path>', 'file holding the base64 blob key (or set HAPPY_MEDIA_KEY)')
    .option('--token <token>', 'bearer token of an http(s) store (prefer --token-file or HAPPY_MEDIA_TOKEN)')
    .option('--token-file <path>', 'file holding the bearer token (or set HAPPY_MEDIA_TOKEN)')
    .option(
      '--session <id>',
      'Happy session the uploads belong to, with --store happy+https://host (or set HAPPY_MEDIA_SESSION)',
    )
    .option('--insecure-http', INSECURE_HTTP_HELP)
    .option('--seal-key <base64>', 'print each message sealed with this session key (prefer --seal-key-file)')
    .option('--seal-key-file <path>', `file holding the base64 session key (or set ${SEAL_KEY_ENV_VARIABLE})`)
    .addOption(
      new Option('--variant <variant>', 'envelope variant for --seal-key').choices(['legacy', 'datakey']),
    )
    .option(
      '--max-line-bytes <bytes>',
      'longest input line read; longer ones are skipped',
      String(MAP_MAX_LINE_BYTES),
    )
    .option('--keep-open', 'leave the last turn open at the end of the input (a session still running)')
    .addHelpText(
      'after',
      [
        '',
        'Providers:',
        ...providers.map((name) => `  ${name.padEnd(8)}${getMapperProvider(name).summary}`),
        '',
        'Examples:',
        '  happy-media map --from claude ~/.claude/projects/-home-me-app/SESSION.jsonl > session.v2.jsonl',
        '  claude -p "fix it" --output-format stream-json --verbose | happy-media map --from claude - | happy-media validate -',
        '  happy-media map --from claude log.jsonl --store ./blobs --key-file blob.key --seal-key-file session.key',
        '  happy-media transcript SESSION --records | happy-media map --from happy -',
      ].join('\n'),
    )
    .action(
      runAction(async (file: string, options: MapCliOptions) => {
        const maxLineBytes = parseIntegerFlag(options.maxLineBytes, '--max-line-bytes', { min: 1 });
        const seal = await resolveSealKey(options);
        if (!seal && options.variant !== undefined) {
          throw new UsageError(
            '--variant needs a session key: pass --seal-key-file (or HAPPY_MEDIA_SEAL_KEY)',
          );
        }
        const key: SessionKey | undefined = seal ? sessionKey(options.variant ?? 'datakey', seal) : undefined;
        if (options.store === undefined && (options.key !== undefined || options.keyFile !== undefined)) {
          throw new UsageError('--key/--key-file name the key of uploaded images: give --store too');
        }
        let uploads = 0;
        let media: MediaHandler | undefined;
        if (options.store !== undefined) {
          const blobKey = await resolveKey(options);
          const { store } = await openCliStore(options);
          media = sendMediaHandler({ store, blobKey, onUpload: () => (uploads += 1) });
        }

        const input = await openInput(file);
        const name = file === '-' ? 'stdin' : file;
        const counts: InputCounts = { events: 0, unreadable: 0 };
        let written = 0;
        let skipped: SkipCounts = { total: 0, byReason: {} };
        let v1Blobs = 0;
        const close = options.keepOpen !== true;
        // Ctrl-C (or SIGTERM) cancels an upload under way, and ends the input so a read waiting on it returns.
        const endInput = () => {
          if (file === '-') process.stdin.destroy();
          else void input.close().catch(() => {});
        };
        await interruptible(async (signal) => {
          const started = Date.now();
          let lastProgress = started;
          const writerOptions = { ...(media ? { media } : {}), signal };

          const emit = async (messages: SessionMessage[]) => {
            // Ctrl-C stops the run (the signal also cancels an upload under way).
            if (signal.aborted) throw new AbortedError('interrupted: the output stops mid-stream');
            if (messages.length === 0) return;
            let text = '';
            for (const message of messages) text += jsonLine(key ? sealMessage(message, key) : message);
            written += messages.length;
            await writeOut(text);
            const now = Date.now();
            if (now - lastProgress >= 2000) {
              lastProgress = now;
              process.stderr.write(`happy-media map: ${counts.events} events → ${written} messages…\n`);
            }
          };

          try {
            const events = readEvents(input.stream, maxLineBytes, counts);
            if (options.from === 'happy') {
              const generator = mapHappyRecords(events, {
                ...writerOptions,
                close,
                onV1Blob: () => (v1Blobs += 1),
              });
              let next = await generator.next();
              while (!next.done) {
                if (signal.aborted) throw new AbortedError('interrupted: the output stops mid-stream');
                await emit([next.value]);
                next = await generator.next();
              }
              skipped = next.value.skipped;
            } else {
              const mapper = createAgentMapper(options.from, writerOptions);
              for await (const event of events) {
                if (signal.aborted) throw new AbortedError('interrupted: the output stops mid-stream');
                await emit(await mapper.push(event));
              }
              await emit(await mapper.end({ close }));
              skipped = mapper.skipped();
            }
          } catch (error) {
            if (signal.aborted)
              throw new AbortedError('interrupted: the output stops mid-stream', { cause: error });
            throw error;
          } finally {
            await input.close().catch(() => {});
          }
        }, endInput);
        const notes = [
          `${counts.events} event${counts.events === 1 ? '' : 's'} → ${written} message${written === 1 ? '' : 's'}`,
          ...(media ? [`${uploads} upload${uploads === 1 ? '' : 's'}`] : []),
          formatSkips(skipped, counts.unreadable),
          ...(v1Blobs > 0
            ? [
                `${v1Blobs} attachment${v1Blobs === 1 ? ' is a' : 's are'} Happy v1 blob${v1Blobs === 1 ? '' : 's'}`,
              ]
            : []),
        ];
        process.stderr.write(`${name}: ${notes.join('; ')}\n`);
      }),
    );
}
