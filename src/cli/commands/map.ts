/**
 * `happy-media map [--from claude|codex|acp|happy] FILE|-`: maps an agent's output (or Happy's stored
 * records) into Session Protocol v2. Input: JSON Lines, or one JSON array (Happy's app traces). Without
 * `--from`, the log's first events decide which provider wrote it; a `--from` they contradict is bad
 * usage, naming the provider they show, before anything is written.
 *
 * Into a Happy session (`--happy URL`, `--secret-file`, or `--session ID` alone; the settings of every
 * Happy command): `appendAgentLog`: every message appended in order, in posts of at most 100, each image
 * uploaded into the session's attachments (with the session's blob key) before the message naming it;
 * idempotent (the ids follow from the log, and the server keeps one record per id), so running it again
 * appends nothing and a stopped run continues where it stopped.
 *
 * To stdout (otherwise): one message per line, a stream `happy-media validate` accepts (each message is
 * checked by its builder's schema, and the mapper's state keeps the stream's rules). Images: with `--store` (and the blob key from
 * `--key-file`, `HAPPY_MEDIA_KEY` or `--key`) each image is probed, encrypted and uploaded before the
 * `photo` that refers to it; without, each image becomes a `service` note. `--seal-key-file` prints each
 * message sealed as a Happy envelope instead.
 *
 * `--follow` reads a log that is still being written, as `tail -F` (follow-file.ts), until SIGINT or
 * SIGTERM; stopping writes nothing more (the open turn and calls stay open) and exits 0.
 *
 * stderr: a progress line every 2 s for long logs, then a summary (events, messages, uploads, skips by
 * reason). Exit 0 when the input was read (skips are reported, not failures), 1 when it cannot be read,
 * 2 on bad usage.
 *
 * @module
 */
import type { Command } from 'commander';
import { type SessionKey, sealMessage, sessionKey } from '../../envelope.js';
import { AbortedError, StreamError } from '../../errors.js';
import { MAPPER_PROVIDERS, SKIP_REASONS, type SkipCounts } from '../../mappers.js';
import {
  type AppendAgentLogResult,
  appendAgentLog,
  createAgentMapper,
  getMapperProvider,
  type MediaHandler,
  mapHappyRecords,
  type SessionMessage,
  sendMediaHandler,
} from '../../node/index.js';
import { FOLLOW_POLL_MS, followFile } from '../follow-file.js';
import {
  addHappyOptions,
  connectHappy,
  type HappyFlags,
  openHappySession,
  talksToHappyAccount,
} from '../happy-options.js';
import { openInput } from '../input-file.js';
import { parseIntegerFlag } from '../integer-flag.js';
import { interruptible } from '../interrupt.js';
import { jsonLine } from '../json-line.js';
import { resolveKey } from '../key-source.js';
import { LineOutput } from '../line-output.js';
import { decideProvider, type InputCounts, readEvents } from '../map-input.js';
import { runAction, withHint } from '../run-action.js';
import { openCliStore } from '../store-options.js';
import { UsageError } from '../usage-error.js';
import { resolveSealKey, SEAL_KEY_ENV_VARIABLE } from './send.js';

/** Longest input line `map` reads by default: 64 MiB (a Claude log line can carry a large base64 screenshot). */
export const MAP_MAX_LINE_BYTES = 64 * 1024 * 1024;

interface MapCliOptions extends HappyFlags {
  from?: string;
  store?: string;
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
  follow?: boolean;
}

/** The flags of the stdout mode: a store for the images, keys, envelopes. */
const STORE_FLAGS = [
  ['store', '--store'],
  ['key', '--key'],
  ['keyFile', '--key-file'],
  ['token', '--token'],
  ['tokenFile', '--token-file'],
  ['sealKey', '--seal-key'],
  ['sealKeyFile', '--seal-key-file'],
  ['variant', '--variant'],
] as const;

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

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** A progress line on stderr at most every 2 s, the first 2 s after the first step. */
function progressLine(): (line: () => string) => void {
  let last: number | undefined;
  return (line) => {
    const now = Date.now();
    last ??= now;
    if (now - last < 2000) return;
    last = now;
    process.stderr.write(`happy-media map: ${line()}\n`);
  };
}

/** The log's events (FILE, `-`, or FILE as it grows), whichever provider reads them, decided. */
async function openEvents(
  file: string,
  options: MapCliOptions,
  signal: AbortSignal,
  counts: InputCounts,
): Promise<{ provider: string; events: AsyncIterable<unknown>; close: () => Promise<void> }> {
  const maxLineBytes = parseIntegerFlag(options.maxLineBytes, '--max-line-bytes', { min: 1 });
  const name = file === '-' ? 'stdin' : file;
  let stream: ReadableStream<Uint8Array>;
  let close: () => Promise<void>;
  if (options.follow) {
    stream = await followFile(file, {
      signal,
      onNote: (note) => process.stderr.write(`happy-media map: ${note}\n`),
    });
    close = () => stream.cancel().catch(() => {});
  } else {
    const input = await openInput(file);
    stream = input.stream;
    close = input.close;
  }
  const events = readEvents(stream, maxLineBytes, counts, options.follow === true);
  try {
    const decided = await decideProvider(events, options.from, name);
    if (options.from === undefined) {
      process.stderr.write(
        `happy-media map: ${name} is ${decided.detected.description}: read with --from ${decided.provider}\n`,
      );
    }
    return { provider: decided.provider, events: decided.events, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Runs `work` with the input it opens; SIGINT or SIGTERM ends that input (stdin, or FILE) at once. Under
 * `--follow` an interrupt is how the run ends, not a failure: resolves `true` then.
 */
async function untilStopped(
  file: string,
  follow: boolean | undefined,
  work: (signal: AbortSignal, opened: (close: () => Promise<void>) => void) => Promise<void>,
): Promise<boolean> {
  let close = async () => {};
  const endInput = () => {
    if (file === '-') process.stdin.destroy();
    else void close();
  };
  try {
    await interruptible(
      (signal) =>
        work(signal, (closeInput) => {
          close = closeInput;
        }),
      endInput,
    );
    return false;
  } catch (error) {
    if (follow && error instanceof AbortedError) return true;
    throw error;
  }
}

/** How the command line says what `appendAgentLog`'s refusal of a grown log asks for. */
const GROWN_LOG_HINT =
  'map a log that is still being written with --follow (or --keep-open), which leaves its last turn open; ' +
  'a whole log that grew after an earlier map goes into a new session';

/**
 * `map … --happy URL --session ID`: appends the log into the session (`appendAgentLog`), images uploaded
 * into its attachments first.
 */
async function mapIntoSession(file: string, options: MapCliOptions): Promise<void> {
  const given = STORE_FLAGS.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
  if (given.length > 0) {
    throw new UsageError(
      `${given.join(', ')} cannot go with a session (--happy, --secret-file or --session): the session gives the store and the keys`,
    );
  }
  if (options.from === 'happy') {
    throw new UsageError(
      "--from happy reads a session's stored records: map them to stdout (happy-media transcript shows a session as it is)",
    );
  }
  const client = await connectHappy(options);
  const session = await openHappySession(client, options.session);
  const counts: InputCounts = { events: 0, unreadable: 0 };
  let uploads = 0;
  let appended = 0;
  let lastSeq: number | undefined;
  let result: AppendAgentLogResult | undefined;
  const media: MediaHandler = sendMediaHandler({
    store: client.attachmentStore(session),
    blobKey: session.blobKey,
    onUpload: () => (uploads += 1),
  });
  const progress = progressLine();
  const stopped = await untilStopped(file, options.follow, async (signal, opened) => {
    const input = await openEvents(file, options, signal, counts);
    opened(input.close);
    try {
      result = await appendAgentLog(client, session, input.events, {
        provider: input.provider,
        media,
        close: options.keepOpen !== true,
        // A followed log: each message posted as soon as the file has nothing more for now.
        ...(options.follow ? { flushAfterMs: FOLLOW_POLL_MS } : {}),
        signal,
        onAppended: (messages) => {
          appended += messages.length;
          lastSeq = messages.at(-1)?.seq ?? lastSeq;
          progress(() => `${counts.events} events → ${appended} messages appended…`);
        },
      }).catch((error: unknown) => {
        // appendAgentLog's one StreamError: the session ended a turn this log, grown since, continues.
        throw withHint(error, error instanceof StreamError ? GROWN_LOG_HINT : undefined);
      });
    } finally {
      await input.close();
    }
  });
  const name = file === '-' ? 'stdin' : file;
  const notes = [
    `${plural(counts.events, 'event')} → ${plural(appended, 'message')} appended to session ${session.id}${lastSeq === undefined ? '' : ` (last seq ${lastSeq})`}`,
    ...(result && result.alreadyStored > 0 ? [`${result.alreadyStored} already there`] : []),
    plural(uploads, 'upload'),
    ...(result ? [formatSkips(result.skipped, counts.unreadable)] : []),
  ];
  process.stderr.write(`${name}: ${notes.join('; ')}\n`);
  if (stopped) {
    process.stderr.write(
      `happy-media map: stopped; the open turn stays open: run the same command again to continue where it stopped\n`,
    );
  }
}

/** `map FILE`: the v2 stream on stdout. */
async function mapToStdout(file: string, options: MapCliOptions): Promise<void> {
  const seal = await resolveSealKey(options);
  if (!seal && options.variant !== undefined) {
    throw new UsageError('--variant needs a session key: pass --seal-key-file (or HAPPY_MEDIA_SEAL_KEY)');
  }
  const key: SessionKey | undefined = seal ? sessionKey(options.variant ?? 'datakey', seal) : undefined;
  if (options.store === undefined && (options.key !== undefined || options.keyFile !== undefined)) {
    throw new UsageError('--key/--key-file name the key of uploaded images: give --store too');
  }
  let uploads = 0;
  let media: MediaHandler | undefined;
  if (options.store !== undefined) {
    const blobKey = await resolveKey(options);
    const { store } = await openCliStore(options, { blobKey, ...(key ? { sealKey: key } : {}) });
    media = sendMediaHandler({ store, blobKey, onUpload: () => (uploads += 1) });
  }

  const counts: InputCounts = { events: 0, unreadable: 0 };
  let written = 0;
  let skipped: SkipCounts = { total: 0, byReason: {} };
  let v1Blobs = 0;
  const closeTurn = options.keepOpen !== true;
  const progress = progressLine();
  // Every message written reaches stdout, also when the run fails or is interrupted after it.
  const out = new LineOutput();
  const stopped = await untilStopped(file, options.follow, async (signal, opened) => {
    const input = await openEvents(file, options, signal, counts);
    opened(input.close);
    // No `verify`: each builder checks its message and the writer's state keeps the stream's rules; the
    // stream validator would check every message a second time and remember every id of the stream.
    const writerOptions = { ...(media ? { media } : {}), signal };
    const interrupted = () => new AbortedError('interrupted: the output stops mid-stream');
    const emit = async (messages: SessionMessage[]) => {
      // Ctrl-C stops the run (the signal also cancels an upload under way).
      if (signal.aborted) throw interrupted();
      if (messages.length === 0) return;
      let text = '';
      for (const message of messages) text += jsonLine(key ? sealMessage(message, key) : message);
      written += messages.length;
      await out.write(text);
      progress(() => `${counts.events} events → ${written} messages…`);
    };
    try {
      if (input.provider === 'happy') {
        const generator = mapHappyRecords(input.events, {
          ...writerOptions,
          close: closeTurn,
          onV1Blob: () => (v1Blobs += 1),
        });
        let next = await generator.next();
        while (!next.done) {
          if (signal.aborted) throw interrupted();
          await emit([next.value]);
          next = await generator.next();
        }
        skipped = next.value.skipped;
      } else {
        const mapper = createAgentMapper(input.provider, writerOptions);
        try {
          for await (const event of input.events) {
            if (signal.aborted) throw interrupted();
            await emit(await mapper.push(event));
          }
          // A follow ends only by an interrupt: the open turn stays open.
          if (signal.aborted) throw interrupted();
          await emit(await mapper.end({ close: closeTurn }));
        } finally {
          skipped = mapper.skipped();
        }
      }
    } catch (error) {
      if (signal.aborted)
        throw new AbortedError('interrupted: the output stops mid-stream', { cause: error });
      throw error;
    } finally {
      await out.flush();
      await input.close();
    }
  });
  const notes = [
    `${plural(counts.events, 'event')} → ${plural(written, 'message')}`,
    ...(media ? [plural(uploads, 'upload')] : []),
    formatSkips(skipped, counts.unreadable),
    ...(v1Blobs > 0
      ? [`${v1Blobs} attachment${v1Blobs === 1 ? ' is a' : 's are'} Happy v1 blob${v1Blobs === 1 ? '' : 's'}`]
      : []),
  ];
  process.stderr.write(`${file === '-' ? 'stdin' : file}: ${notes.join('; ')}\n`);
  if (stopped) process.stderr.write('happy-media map: stopped; the open turn stays open\n');
}

/** Registers `map` on the program. */
export function registerMap(program: Command): void {
  const providers = MAPPER_PROVIDERS.map((provider) => provider.name);
  const command = program
    .command('map')
    .description(
      "map an agent's output (or Happy's stored records) into v2: appended into a Happy session, or printed as JSON Lines",
    )
    .argument('<file>', 'the log (JSON Lines, or one JSON array), or "-" for stdin')
    .addOption(
      program
        .createOption('--from <provider>', "what the input is (default: the log's first events tell)")
        .choices(providers),
    )
    .option(
      '--session <id>',
      'the Happy session to append into (or set HAPPY_MEDIA_SESSION); with --store happy+https://host, the session the uploads belong to',
    )
    .option(
      '--follow',
      'keep reading FILE as it grows (as tail -F), until interrupted; the open turn stays open',
    )
    .option('--keep-open', 'leave the last turn open at the end of the input (a session still running)')
    .option(
      '--store <spec>',
      'to stdout: upload images to this store (directory, http(s)://server, s3://bucket/prefix, happy+https://host)',
    )
    .option('--key <base64>', 'the 32-byte blob key (visible in the process list: prefer --key-file)')
    .option('--key-file <path>', 'file holding the base64 blob key (or set HAPPY_MEDIA_KEY)')
    .option('--token <token>', 'bearer token of an http(s) store (prefer --token-file or HAPPY_MEDIA_TOKEN)')
    .option('--token-file <path>', 'file holding the bearer token (or set HAPPY_MEDIA_TOKEN)')
    .option('--seal-key <base64>', 'print each message sealed with this session key (prefer --seal-key-file)')
    .option('--seal-key-file <path>', `file holding the base64 session key (or set ${SEAL_KEY_ENV_VARIABLE})`)
    .addOption(
      program
        .createOption('--variant <variant>', 'envelope variant for --seal-key')
        .choices(['legacy', 'datakey']),
    )
    .option(
      '--max-line-bytes <bytes>',
      'longest input line read; longer ones are skipped',
      String(MAP_MAX_LINE_BYTES),
    )
    .addHelpText(
      'after',
      [
        '',
        'Providers:',
        ...providers.map((name) => `  ${name.padEnd(8)}${getMapperProvider(name).summary}`),
        '',
        'Examples:',
        '  happy-media map ~/.claude/projects/-home-me-app/SESSION.jsonl --session ID     # into a Happy session',
        '  happy-media map ~/.codex/sessions/2026/…/rollout-….jsonl --session ID --follow # as the agent writes it',
        '  claude -p "fix it" --output-format stream-json --verbose | happy-media map - --session ID',
        '  happy-media map --from claude SESSION.jsonl > session.v2.jsonl                # to stdout',
        '  happy-media map log.jsonl --store ./blobs --key-file blob.key --seal-key-file session.key',
        '  happy-media transcript SESSION --records | happy-media map --from happy -',
      ].join('\n'),
    );
  addHappyOptions(command).action(
    runAction(async (file: string, options: MapCliOptions) => {
      if (options.follow && file === '-') {
        throw new UsageError(
          '--follow reads a file as it grows; stdin is read to its end anyway, each message written as its line comes',
        );
      }
      if (talksToHappyAccount(options, STORE_FLAGS, false)) await mapIntoSession(file, options);
      else await mapToStdout(file, options);
    }),
  );
}
