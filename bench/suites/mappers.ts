/**
 * Mapping agent output into v2: a 10,000-event Claude Code session log (prompts, thinking, text,
 * parallel tool calls, Task subagents with their own calls) read line by line and mapped by the Claude
 * mapper, in events per second, beside `JSON.parse` of the same lines (the floor: every mapper reads
 * its input at least that far). With images: one tool result in 25 carries a PNG screenshot, sent
 * through `sendMediaHandler` (probe → encrypt → a local store) before its photo is written. Peak memory
 * of each case in a child of its own.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createAgentMapper,
  decryptBlob,
  type MediaHandler,
  mediaBlobContext,
  type SessionMessage,
  validateStream,
} from 'happy-media';
import { LocalBlobStore, sendMediaHandler } from 'happy-media/node';
import sharp from 'sharp';
import { runChild } from '../harness/child.js';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { timeInterleaved } from '../harness/measure.js';
import { summarize } from '../harness/stats.js';

type Json = Record<string, unknown>;

/** A deterministic session log of about `events` lines; every 25th tool result carries `image` when given. */
export function sessionLog(
  events: number,
  image?: string,
): { lines: string[]; toolUses: number; images: number } {
  const lines: string[] = [];
  let n = 0;
  let toolUses = 0;
  let images = 0;
  let time = Date.parse('2025-08-01T10:00:00Z');
  let last: string | null = null;
  const push = (fields: Json, sidechain = false) => {
    const uuid = `u-${++n}`;
    time += 250;
    lines.push(
      JSON.stringify({
        parentUuid: last,
        isSidechain: sidechain,
        userType: 'external',
        cwd: '/home/me/project',
        sessionId: 'bench',
        version: '1.0.71',
        ...fields,
        uuid,
        timestamp: new Date(time).toISOString(),
      }),
    );
    last = uuid;
  };
  const assistant = (id: string, block: Json, sidechain = false) =>
    push(
      {
        type: 'assistant',
        message: { id, type: 'message', role: 'assistant', model: 'claude-opus-4-1', content: [block] },
      },
      sidechain,
    );
  const result = (id: string, sidechain = false) => {
    const withImage = image !== undefined && (toolUses + 1) % 25 === 0;
    if (withImage) images++;
    push(
      {
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: id,
              content: withImage
                ? [
                    { type: 'text', text: 'screenshot' },
                    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } },
                  ]
                : `     1→export function f${n}() {\n     2→  return ${n};\n     3→}\n`,
            },
          ],
        },
        toolUseResult: { stdout: 'ok' },
      },
      sidechain,
    );
  };
  let turn = 0;
  while (lines.length < events) {
    turn++;
    push({
      type: 'user',
      message: { role: 'user', content: `Step ${turn}: refactor the parser and run the tests` },
    });
    const msg = `msg_${turn}`;
    assistant(msg, {
      type: 'thinking',
      thinking: `The user wants step ${turn}. I should read the files first.`,
      signature: 'sig',
    });
    assistant(msg, { type: 'text', text: `I'll look at the code for step ${turn}.` });
    // Three parallel reads, then their results.
    const reads = [0, 1, 2].map((i) => `toolu_${turn}_r${i}`);
    for (const [i, id] of reads.entries()) {
      toolUses++;
      assistant(msg, {
        type: 'tool_use',
        id,
        name: 'Read',
        input: { file_path: `/home/me/project/src/file${i}.ts` },
      });
    }
    for (const id of reads) result(id);
    // A subagent with two calls of its own.
    if (turn % 3 === 0) {
      const task = `toolu_${turn}_task`;
      toolUses++;
      assistant(`msg_${turn}_b`, {
        type: 'tool_use',
        id: task,
        name: 'Task',
        input: {
          description: 'Search tests',
          prompt: `Find the tests of step ${turn}`,
          subagent_type: 'general-purpose',
        },
      });
      const mainLast: string | null = last;
      last = null;
      push({ type: 'user', message: { role: 'user', content: `Find the tests of step ${turn}` } }, true);
      for (let i = 0; i < 2; i++) {
        const id = `toolu_${turn}_s${i}`;
        toolUses++;
        assistant(
          `msg_${turn}_s${i}`,
          { type: 'tool_use', id, name: 'Grep', input: { pattern: `step${turn}`, path: 'test' } },
          true,
        );
        result(id, true);
      }
      assistant(`msg_${turn}_s9`, { type: 'text', text: `Found 2 test files for step ${turn}.` }, true);
      last = mainLast;
      result(task);
    }
    const bash = `toolu_${turn}_bash`;
    toolUses++;
    assistant(`msg_${turn}_c`, {
      type: 'tool_use',
      id: bash,
      name: 'Bash',
      input: { command: 'npm test', description: 'Run the tests' },
    });
    result(bash);
    assistant(`msg_${turn}_d`, { type: 'text', text: `Step ${turn} is done: the tests pass.` });
  }
  return { lines, toolUses, images };
}

/** Maps the lines as the CLI does (parse, push each, end). */
async function mapLines(lines: readonly string[], media?: MediaHandler): Promise<SessionMessage[]> {
  const mapper = createAgentMapper('claude', media ? { media } : {});
  const out: SessionMessage[] = [];
  for (const line of lines) out.push(...(await mapper.push(JSON.parse(line))));
  out.push(...(await mapper.end()));
  return out;
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
    return { messages: (await mapLines(lines, media)).length };
  },
  async parse(payload: unknown): Promise<{ events: number }> {
    const job = payload as CaseJob;
    const lines = (await readFile(job.file, 'utf8')).split('\n').filter((l) => l.length > 0);
    return { events: parseLines(lines) };
  },
};

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const events = ctx.quick ? 2000 : 10_000;
  const plan = ctx.quick ? { warmup: 1, runs: 3 } : { warmup: 1, runs: 7 };
  const png = await screenshot();
  const blobKey = new Uint8Array(randomBytes(32));
  const storeDir = join(ctx.scratchDir, 'mappers-store');
  const store = new LocalBlobStore(storeDir);
  const media = sendMediaHandler({ store, blobKey });

  for (const withImages of [false, true]) {
    const log = sessionLog(events, withImages ? Buffer.from(png).toString('base64') : undefined);
    const tag = `${log.lines.length.toLocaleString('en-US')} events${withImages ? `, ${log.images} images` : ''}`;
    // Check before timing: a valid stream, every tool call started and ended, every image a photo whose blob is the PNG.
    const messages = await mapLines(log.lines, withImages ? media : undefined);
    const violations = validateStream(messages, { mode: 'strict', requireTurnStart: true });
    if (violations.length > 0)
      throw new Error(`the mapped stream has ${violations.length} violations: ${violations[0]!.code}`);
    const starts = messages.filter((m) => m.type === 'tool-call-start').length;
    const ends = messages.filter((m) => m.type === 'tool-call-end' && m.error === undefined).length;
    if (starts !== log.toolUses || ends !== log.toolUses)
      throw new Error(`${starts} starts, ${ends} ends for ${log.toolUses} tool calls`);
    rec.check(
      `${tag}: valid stream (strict, every turn opened), ${log.toolUses} tool calls each started and ended by its result`,
    );
    if (withImages) {
      const photos = messages.filter(
        (m): m is Extract<SessionMessage, { type: 'photo' }> => m.type === 'photo',
      );
      if (photos.length !== log.images) throw new Error(`${photos.length} photos for ${log.images} images`);
      const body = new Uint8Array(await new Response(await store.get(photos[0]!.ref)).arrayBuffer());
      if (
        !Buffer.from(await decryptBlob(body, blobKey, { context: mediaBlobContext(photos[0]!.ref) })).equals(
          Buffer.from(png),
        )
      )
        throw new Error('the uploaded image does not decrypt to the PNG');
      rec.check(`${tag}: every image is a photo (320×200) after its upload; the blob decrypts to the PNG`);
    }

    const [ourMs, parseMs] = await timeInterleaved(
      [() => mapLines(log.lines, withImages ? media : undefined), () => parseLines(log.lines)],
      plan,
    );
    const perSecond = (ms: number[]) => ms.map((m) => (log.lines.length * 1000) / m);

    const file = join(ctx.scratchDir, `mappers-${withImages ? 'images' : 'plain'}.jsonl`);
    await writeFile(file, `${log.lines.join('\n')}\n`, { mode: 0o600 });
    const job: CaseJob = { file, images: withImages, storeDir, keyHex: Buffer.from(blobKey).toString('hex') };
    const ourChild = await runChild<{ messages: number }>('mappers:map', job);
    const parseChild = await runChild<{ events: number }>('mappers:parse', job);
    if (ourChild.result.messages !== messages.length) throw new Error('the child mapped a different stream');

    const id = withImages ? 'images' : 'plain';
    const ours = rec.add({
      id: `mappers.claude.${id}`,
      suite: 'mappers',
      label: `Claude log → v2 (parse + map${withImages ? ' + upload' : ''}), ${tag}`,
      unit: 'events/s',
      summary: summarize(perSecond(ourMs!)),
      peakRssBytes: ourChild.maxRssBytes,
    });
    const reference = rec.add({
      id: `ref.mappers.parse.${id}`,
      suite: 'mappers',
      label: `JSON.parse of the same lines, ${tag}`,
      unit: 'events/s',
      reference: true,
      summary: summarize(perSecond(parseMs!)),
      peakRssBytes: parseChild.maxRssBytes,
    });
    rec.compare(ours, reference);
  }
}

/** The mappers suite. */
export const mappersSuite: Suite = {
  name: 'mappers',
  description:
    'a 10,000-event Claude Code log mapped to v2 (with and without images uploaded), events/s, vs JSON.parse of the same lines',
  run,
};
