/**
 * Mapping agent output into v2: a 10,000-event log of each provider (a Claude Code session, a Codex
 * rollout, an ACP session; see `mappers-logs.ts`) read line by line and mapped by its mapper, in events
 * per second, beside `JSON.parse` of the same lines (the floor: every mapper reads its input at least
 * that far). With images: one tool result in 25 carries a PNG screenshot, sent through
 * `sendMediaHandler` (probe → encrypt → a local store) before its photo is written. With the external
 * corpus named by `HAPPY_MEDIA_CORPUS`, Happy's recorded Claude Code sessions too (`mappers-recorded.ts`):
 * real lines, at a real session's sizes. Each log is mapped and checked whole first; the timed rounds let
 * each push's messages go, as the CLI does once it has written them. Peak memory of each case in a child
 * of its own. Memory in the log's length: `happy-media map` (the package's bin, as users run it) over a
 * Claude log of 1 and 4 million lines (quick: 100,000 and 400,000), its peak RSS beside a streaming
 * `JSON.parse` of the same file's lines.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import {
  createAgentMapper,
  type MediaHandler,
  readJsonLines,
  type SessionMessage,
  validateStream,
} from 'happy-media';
import { decryptBlob, mediaBlobContext } from 'happy-media/blob';
import { LocalBlobStore, sendMediaHandler } from 'happy-media/node';
import sharp from 'sharp';
import { happyMediaBin, runChild, runProgram } from '../harness/child.js';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { timeInterleaved } from '../harness/measure.js';
import { summarize } from '../harness/stats.js';
import {
  acpSessionLog,
  claudeSessionLog,
  claudeSessionTurns,
  codexRolloutLog,
  type GeneratedLog,
  withLongPayloads,
} from './mappers-logs.js';
import { type RecordedLog, recordedClaudeLog } from './mappers-recorded.js';

/** The providers measured, each with its log. */
const PROVIDERS: readonly {
  provider: 'claude' | 'codex' | 'acp';
  log: string;
  make: (events: number, image?: string) => GeneratedLog;
}[] = [
  { provider: 'claude', log: 'Claude log', make: claudeSessionLog },
  { provider: 'codex', log: 'Codex rollout', make: codexRolloutLog },
  { provider: 'acp', log: 'ACP session', make: acpSessionLog },
];

/**
 * The logs of each provider: as generated (the goal's figure), with an image in one tool result of 25,
 * and with payloads as long as a real session's (`withLongPayloads`).
 */
const VARIANTS = ['plain', 'images', 'long'] as const;
/** How long the payloads of the `long` variant are. */
const LONG_PAYLOAD_BYTES = 4096;

/** A message in brief: what it is and where it goes, not its text or ids. */
function messageShape(m: SessionMessage): string {
  const error = m.type === 'tool-call-end' && m.error !== undefined;
  return `${m.type} ${m.role} ${m.parentId === undefined ? '' : 'P'}${m.agentId === undefined ? '' : 'A'}${error ? 'E' : ''}`;
}

/** Whether two streams in brief ({@link messageShape}) are the same messages in the same order. */
function sameShapes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((shape, i) => shape === b[i]);
}

/** Throws unless `messages` is a valid stream (strict, every turn opened); `what` names it in the error. */
function assertValidStream(messages: readonly SessionMessage[], what: string): void {
  const violations = validateStream(messages, { mode: 'strict', requireTurnStart: true });
  if (violations.length > 0)
    throw new Error(`${what} has ${violations.length} violations: ${violations[0]!.code}`);
}

/** Maps the lines (parse, push each, end) and keeps every message: the stream the checks read. */
async function mapLines(
  provider: string,
  lines: readonly string[],
  media?: MediaHandler,
): Promise<SessionMessage[]> {
  const mapper = createAgentMapper(provider, media ? { media } : {});
  const out: SessionMessage[] = [];
  for (const line of lines) out.push(...(await mapper.push(JSON.parse(line))));
  out.push(...(await mapper.end()));
  return out;
}

/**
 * Maps the lines as the CLI does (parse, push each, end), letting each push's messages go once counted,
 * as `happy-media map` does once it has written them: the timed side, like the parse beside it, keeps
 * nothing. Keeping the whole stream alive instead made the mapper 2–16 % slower against the parse
 * (medians of four processes each on these logs: Claude 0.281 against 0.275×, Codex 0.219 against 0.201×,
 * ACP 0.331 against 0.284×), a cost of whoever keeps 10,000 messages, not of mapping them.
 */
async function countMapped(
  provider: string,
  lines: readonly string[],
  media?: MediaHandler,
): Promise<number> {
  const mapper = createAgentMapper(provider, media ? { media } : {});
  let messages = 0;
  for (const line of lines) messages += (await mapper.push(JSON.parse(line))).length;
  return messages + (await mapper.end()).length;
}

function parseLines(lines: readonly string[]): number {
  let n = 0;
  for (const line of lines) if (JSON.parse(line) !== null) n++;
  return n;
}

async function screenshot(): Promise<Uint8Array> {
  // A 320×200 screenshot-like PNG (flat areas and some noise), about 30 KiB.
  const raw = Buffer.alloc(320 * 200 * 3, 0xee);
  const noise = randomBytes(320 * 40 * 3);
  noise.copy(raw, 320 * 80 * 3);
  return new Uint8Array(
    await sharp(raw, { raw: { width: 320, height: 200, channels: 3 } })
      .png()
      .toBuffer(),
  );
}

interface CaseJob {
  provider: string;
  file: string;
  images: boolean;
  storeDir?: string;
  keyHex?: string;
}

/** Cases run in a child of their own, for their peak memory. */
export const childCases = {
  async map(payload: unknown): Promise<{ messages: number }> {
    const job = payload as CaseJob;
    const lines = (await readFile(job.file, 'utf8')).split('\n').filter((l) => l.length > 0);
    const media =
      job.images && job.storeDir && job.keyHex
        ? sendMediaHandler({
            store: new LocalBlobStore(job.storeDir),
            blobKey: new Uint8Array(Buffer.from(job.keyHex, 'hex')),
          })
        : undefined;
    return { messages: await countMapped(job.provider, lines, media) };
  },
  /** Every line of a file parsed as it streams by (the floor of reading a log of any length). */
  async parseStream(payload: unknown): Promise<{ events: number; ms: number }> {
    const { file } = payload as { file: string };
    const start = performance.now();
    let events = 0;
    const stream = Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>;
    for await (const entry of readJsonLines(stream, { maxLineBytes: 64 * 1024 * 1024 }))
      if (entry.ok) events++;
    return { events, ms: performance.now() - start };
  },
  async parse(payload: unknown): Promise<{ events: number }> {
    const job = payload as CaseJob;
    const lines = (await readFile(job.file, 'utf8')).split('\n').filter((l) => l.length > 0);
    return { events: parseLines(lines) };
  },
};

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const events = ctx.quick ? 2000 : 10_000;
  // A round without images takes 30-60 ms and its ratio to the parse wanders by half from round to round
  // (the collector's work falls on one side or the other): 21 rounds for a steadier median. With images a
  // round takes seconds.
  const plainPlan = ctx.quick ? { warmup: 1, runs: 3 } : { warmup: 3, runs: 21 };
  const imagesPlan = ctx.quick ? { warmup: 1, runs: 3 } : { warmup: 1, runs: 7 };
  const png = await screenshot();
  const blobKey = new Uint8Array(randomBytes(32));
  const storeDir = join(ctx.scratchDir, 'mappers-store');
  const store = new LocalBlobStore(storeDir);
  const media = sendMediaHandler({ store, blobKey });

  for (const { provider, log: logName, make } of PROVIDERS) {
    /** The generated log's messages in brief: the long payloads' must be the same. */
    let plainShape: string[] = [];
    for (const variant of VARIANTS) {
      const withImages = variant === 'images';
      const made = make(events, withImages ? Buffer.from(png).toString('base64') : undefined);
      const log = variant === 'long' ? withLongPayloads(made, LONG_PAYLOAD_BYTES) : made;
      const tag = `${logName}, ${log.lines.length.toLocaleString('en-US')} events${withImages ? `, ${log.images} images` : ''}${variant === 'long' ? `, texts and tool output of ${LONG_PAYLOAD_BYTES / 1024} KiB` : ''}`;
      // Checked before timing, in a function of its own: the checked stream is not alive while timing.
      const checked = await checkGenerated(rec, {
        provider,
        variant,
        log,
        tag,
        plainShape,
        ...(withImages ? { images: { media, store, blobKey, png } } : {}),
      });
      if (variant === 'plain') plainShape = checked.shape;

      await measureCase(ctx, rec, {
        id: `${provider}.${variant}`,
        provider,
        lines: log.lines,
        tag: tag.slice(logName.length + 2),
        label: `${logName} → v2 (parse + map${withImages ? ' + upload' : ''})`,
        messages: checked.messages,
        plan: withImages ? imagesPlan : plainPlan,
        ...(withImages ? { images: { media, storeDir, blobKey } } : {}),
      });
    }
  }
  await runRecorded(ctx, rec, events, plainPlan);
  await runLongLogs(ctx, rec);
}

/** A generated case to check: its log, and where its images went. */
interface GeneratedCase {
  provider: string;
  variant: (typeof VARIANTS)[number];
  log: GeneratedLog;
  tag: string;
  /** The plain variant's messages in brief (the long variant's must be the same). */
  plainShape: readonly string[];
  images?: { media: MediaHandler; store: LocalBlobStore; blobKey: Uint8Array; png: Uint8Array };
}

/**
 * Maps a generated log and checks it: a valid stream, every tool call started and ended, the long
 * variant the same messages as the plain one, every image a photo whose blob is the PNG. Returns how many
 * messages it holds and their shapes in brief.
 */
async function checkGenerated(
  rec: SuiteRecorder,
  c: GeneratedCase,
): Promise<{ messages: number; shape: string[] }> {
  const messages = await mapLines(c.provider, c.log.lines, c.images?.media);
  assertValidStream(messages, 'the mapped stream');
  const starts = messages.filter((m) => m.type === 'tool-call-start').length;
  const ends = messages.filter((m) => m.type === 'tool-call-end' && m.error === undefined).length;
  if (starts !== c.log.toolCalls || ends !== c.log.toolCalls)
    throw new Error(`${starts} starts, ${ends} ends for ${c.log.toolCalls} tool calls`);
  rec.check(
    `${c.tag}: valid stream (strict, every turn opened), ${c.log.toolCalls} tool calls each started and ended by its result`,
  );
  const shape = messages.map(messageShape);
  if (c.variant === 'long') {
    if (!sameShapes(shape, c.plainShape))
      throw new Error('the log with long payloads maps to other messages than the generated log');
    rec.check(`${c.tag}: the same messages as the generated log (type, role, placement, error), longer`);
  }
  if (c.images) {
    const photos = messages.filter(
      (m): m is Extract<SessionMessage, { type: 'photo' }> => m.type === 'photo',
    );
    if (photos.length !== c.log.images) throw new Error(`${photos.length} photos for ${c.log.images} images`);
    const body = new Uint8Array(await new Response(await c.images.store.get(photos[0]!.ref)).arrayBuffer());
    if (
      !Buffer.from(
        await decryptBlob(body, c.images.blobKey, { context: mediaBlobContext(photos[0]!.ref) }),
      ).equals(Buffer.from(c.images.png))
    )
      throw new Error('the uploaded image does not decrypt to the PNG');
    rec.check(`${c.tag}: every image is a photo (320×200) after its upload; the blob decrypts to the PNG`);
  }
  return { messages: messages.length, shape };
}

/** One case of the suite: a log already checked, timed beside the parse and run in children for peak memory. */
interface MeasuredCase {
  /** The rows' id after `mappers.`: the provider and the log's variant. */
  id: string;
  provider: string;
  lines: readonly string[];
  /** The first part of the case's row label (what is done). */
  label: string;
  /** What the log is, after the label (both rows carry it). */
  tag: string;
  /** How many messages the checked mapping wrote: the child's must be the same. */
  messages: number;
  plan: { warmup: number; runs: number };
  /** Where a log with images uploads them. */
  images?: { media: MediaHandler; storeDir: string; blobKey: Uint8Array };
}

async function measureCase(ctx: BenchContext, rec: SuiteRecorder, c: MeasuredCase): Promise<void> {
  const [ourMs, parseMs] = await timeInterleaved(
    [() => countMapped(c.provider, c.lines, c.images?.media), () => parseLines(c.lines)],
    c.plan,
  );
  const perSecond = (ms: number[]) => ms.map((m) => (c.lines.length * 1000) / m);

  const file = join(ctx.scratchDir, `mappers-${c.id.replace('.', '-')}.jsonl`);
  await writeFile(file, `${c.lines.join('\n')}\n`, { mode: 0o600 });
  const job: CaseJob = {
    provider: c.provider,
    file,
    images: c.images !== undefined,
    ...(c.images
      ? { storeDir: c.images.storeDir, keyHex: Buffer.from(c.images.blobKey).toString('hex') }
      : {}),
  };
  const ourChild = await runChild<{ messages: number }>('mappers:map', job);
  const parseChild = await runChild<{ events: number }>('mappers:parse', job);
  if (ourChild.result.messages !== c.messages) throw new Error('the child mapped a different stream');
  await rm(file, { force: true });

  const ours = rec.add({
    id: `mappers.${c.id}`,
    suite: 'mappers',
    label: `${c.label}, ${c.tag}`,
    unit: 'events/s',
    summary: summarize(perSecond(ourMs!)),
    peakRssBytes: ourChild.maxRssBytes,
  });
  const reference = rec.add({
    id: `ref.mappers.parse.${c.id}`,
    suite: 'mappers',
    label: `JSON.parse of the same lines, ${c.tag}`,
    unit: 'events/s',
    reference: true,
    summary: summarize(perSecond(parseMs!)),
    peakRssBytes: parseChild.maxRssBytes,
  });
  rec.compare(ours, reference);
}

/**
 * Maps the recorded log and checks it: a valid stream, and every round mapped to the same messages (each
 * round is the same material with ids of its own: a round mapped otherwise than the others would be state
 * leaking). Returns how many messages it holds.
 */
async function checkRecorded(rec: SuiteRecorder, log: RecordedLog, tag: string): Promise<number> {
  const mapper = createAgentMapper('claude', {});
  const rounds: string[][] = Array.from({ length: log.rounds }, () => []);
  const messages: SessionMessage[] = [];
  for (let i = 0; i < log.lines.length; i++) {
    const out = await mapper.push(JSON.parse(log.lines[i]!));
    messages.push(...out);
    rounds[Math.floor(i / log.perRound)]!.push(...out.map(messageShape));
  }
  messages.push(...(await mapper.end()));
  assertValidStream(messages, "the recorded log's stream");
  const first = rounds[0]!;
  if (rounds.some((round) => !sameShapes(round, first)))
    throw new Error('the rounds of the recorded log map to different messages');
  rec.check(
    `Claude, ${tag}: valid stream (strict, every turn opened), every round maps to the same ${first.length} messages`,
  );
  return messages.length;
}

/**
 * Happy's recorded Claude Code sessions (`mappers-recorded.ts`), when the external corpus is named by
 * `HAPPY_MEDIA_CORPUS`: the goal's ratio on real lines, beside the generated logs'.
 */
async function runRecorded(
  ctx: BenchContext,
  rec: SuiteRecorder,
  events: number,
  plan: MeasuredCase['plan'],
): Promise<void> {
  const corpus = process.env.HAPPY_MEDIA_CORPUS;
  if (!corpus) {
    ctx.log(
      '  recorded Claude Code logs skipped: HAPPY_MEDIA_CORPUS is not set (HAPPY_MEDIA_CORPUS=../shared/corpus)',
    );
    return;
  }
  const log = await recordedClaudeLog(resolve(corpus), events);
  const tag = `Happy's recorded sessions, ${log.lines.length.toLocaleString('en-US')} events (${log.perRound} lines of ${log.sessions} sessions × ${log.rounds} rounds, ids of their own)`;
  const messages = await checkRecorded(rec, log, tag);
  await measureCase(ctx, rec, {
    id: 'claude.recorded',
    provider: 'claude',
    lines: log.lines,
    label: 'Claude log → v2 (parse + map)',
    tag,
    messages,
    plan,
  });
}

/** Writes about `lines` lines of the generated Claude log to `file`, a turn at a time (never whole in memory). */
async function writeLongLog(file: string, lines: number): Promise<number> {
  const out = createWriteStream(file, { mode: 0o600 });
  const turns = claudeSessionTurns();
  let written = 0;
  while (written < lines) {
    const turn = turns.next().value;
    written += turn.lines.length;
    if (!out.write(`${turn.lines.join('\n')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return written;
}

/** Peak RSS of `happy-media map` over long logs, beside a streaming parse of the same lines. */
async function runLongLogs(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const sizes = ctx.quick ? [100_000, 400_000] : [1_000_000, 4_000_000];
  for (const size of sizes) {
    const file = join(ctx.scratchDir, 'mappers-long.jsonl');
    const lines = await writeLongLog(file, size);
    const tag = `${(lines / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })}M lines`;
    const mapped = await runProgram(happyMediaBin(), ['map', '--from', 'claude', file], {
      timeoutMs: 3_600_000,
    });
    const parsed = await runChild<{ events: number; ms: number }>('mappers:parseStream', { file });
    if (parsed.result.events !== lines) throw new Error(`parsed ${parsed.result.events} of ${lines} lines`);
    rec.check(`happy-media map of a ${tag} Claude log exits 0`);
    const ours = rec.add({
      id: `mappers.long.${size}`,
      suite: 'mappers',
      label: `happy-media map --from claude, a ${tag} log (peak RSS: memory flat in the log's length)`,
      unit: 'events/s',
      summary: summarize([(lines * 1000) / mapped.ms]),
      peakRssBytes: mapped.maxRssBytes,
    });
    const reference = rec.add({
      id: `ref.mappers.long.${size}`,
      suite: 'mappers',
      label: `JSON.parse of the same file's lines as they stream by, ${tag}`,
      unit: 'events/s',
      reference: true,
      summary: summarize([(lines * 1000) / parsed.result.ms]),
      peakRssBytes: parsed.maxRssBytes,
    });
    rec.compare(ours, reference);
    await rm(file, { force: true });
  }
}

/** The mappers suite. */
export const mappersSuite: Suite = {
  name: 'mappers',
  description:
    "a 10,000-event Claude Code log, Codex rollout and ACP session mapped to v2 (with and without images uploaded, with 4 KiB payloads; Happy's recorded Claude Code sessions with HAPPY_MEDIA_CORPUS), events/s, vs JSON.parse of the same lines; happy-media map's peak RSS over 1 and 4 million lines",
  run,
};
