/**
 * Conformance of the Claude mapper and of `mapHappyRecords` on the recorded material of the corpus
 * (`HAPPY_MEDIA_CORPUS`): every Claude Code log Happy's tests recorded, the SDK messages, session lines
 * and socket records inside the CLI debug log, and Happy's app traces map to streams with zero
 * violations, and nothing is lost: every text block, every tool_use id (start and end), every sidechain
 * message under the Task that spawned it, every image of the corpus (its blob decrypts to the original).
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptBlob, mediaBlobContext } from '../../src/core/blob/index.js';
import { toBase64 } from '../../src/envelope.js';
import {
  assertSessionMessage,
  detectAgentLog,
  foldTranscript,
  type MapHappyRecordsOptions,
  mapHappyRecords,
  type SessionMessage,
  sendMediaHandler,
} from '../../src/node/index.js';
import { LocalBlobStore } from '../../src/node/storage/index.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';
import { expectValidStream, mapValid } from '../helpers/mappers.js';
import { stripThrough } from '../helpers/strip-check.js';
import { makeTempDir } from '../helpers/tmp.js';
import { collect } from '../node/storage/store-contract.js';

type Json = Record<string, unknown>;

const CLAUDE_DIR = () => corpusPath('protocol', 'happy', 'claude-jsonl');
const DEBUG_LOG = 'utils__duplicate-assistant-response-2.jsonl';

async function jsonl(file: string): Promise<Json[]> {
  const text = await readFile(join(CLAUDE_DIR(), file), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as Json);
}

/** The debug log of Happy's CLI: `[time] header` lines, each followed by a pretty-printed JSON value. */
async function debugLogBlocks(): Promise<{ header: string; value: Json }[]> {
  const lines = (await readFile(join(CLAUDE_DIR(), DEBUG_LOG), 'utf8')).split('\n');
  const blocks: { header: string; value: Json }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const header = /^\[\d\d:\d\d:\d\d\.\d+\] (.*)$/.exec(lines[i]!);
    if (!header) continue;
    const body: string[] = [];
    for (let j = i + 1; j < lines.length && !/^\[\d\d:\d\d:\d\d\.\d+\] /.test(lines[j]!); j++)
      body.push(lines[j]!);
    if (body.length === 0) continue;
    try {
      blocks.push({ header: header[1]!.trim(), value: JSON.parse(body.join('\n')) as Json });
    } catch {
      // A header whose value was cut by the logger.
    }
  }
  return blocks;
}

/** Happy's app traces: decrypted server messages; trace_1 is cut before its closing bracket upstream. */
async function trace(file: string): Promise<Json[]> {
  let text = (await readFile(corpusPath('protocol', 'happy', 'app-traces', file), 'utf8')).trimEnd();
  if (!text.endsWith(']')) text += ']';
  return JSON.parse(text) as Json[];
}

/** The Claude lines inside a list of events: bare lines, or the `data` of legacy output records. */
function claudeLines(events: Json[]): Json[] {
  return events.flatMap((event) => {
    const record = (event.content as Json | undefined) ?? event;
    const content = record.content as Json | undefined;
    if (record.role === 'agent' && content?.type === 'output') return [content.data as Json];
    return record.role === undefined ? [event] : [];
  });
}

const blocksOf = (line: Json): Json[] => {
  const content = (line.message as Json | undefined)?.content;
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Json[]) : [];
};

/** What must survive: texts (assistant text/thinking, prompts, subagent prompts) and tool_use ids. */
function expectNothingLost(lines: Json[], messages: SessionMessage[]): void {
  const texts = new Set(
    messages
      .filter((m) => m.type === 'text' || m.type === 'service')
      .map((m) => (m as { text: string }).text),
  );
  const starts = new Set(messages.filter((m) => m.type === 'tool-call-start').map((m) => m.callId));
  const ends = new Set(messages.filter((m) => m.type === 'tool-call-end').map((m) => m.callId));
  for (const line of lines) {
    if (line.isMeta === true || line.isCompactSummary === true) continue;
    for (const block of blocksOf(line)) {
      const value =
        block.type === 'text' ? block.text : block.type === 'thinking' ? block.thinking : undefined;
      if (typeof value === 'string' && value.trim().length > 0 && !value.startsWith('[Request interrupted')) {
        expect(
          [...texts].some((t) => t === value || t.endsWith(value)),
          value.slice(0, 60),
        ).toBe(true);
      }
      if (block.type === 'tool_use') {
        expect(starts.has(block.id as string), `start of ${block.id}`).toBe(true);
        expect(ends.has(block.id as string), `end of ${block.id}`).toBe(true);
      }
    }
  }
}

/**
 * Every message from a sidechain line sits under the Task whose prompt began that sidechain (found by
 * walking parentUuid to the root), one agentId per Task.
 */
function expectSubagentsPlaced(lines: Json[], messages: SessionMessage[]): number {
  const byUuid = new Map(lines.filter((l) => typeof l.uuid === 'string').map((l) => [l.uuid as string, l]));
  const taskByPrompt = new Map<string, string>();
  for (const line of lines) {
    for (const block of blocksOf(line)) {
      if (block.type === 'tool_use' && (block.name === 'Task' || block.name === 'Agent')) {
        taskByPrompt.set(String((block.input as Json).prompt).trim(), block.id as string);
      }
    }
  }
  const agentOf = new Map<string, string>();
  let checked = 0;
  for (const line of lines) {
    if (line.isSidechain !== true) continue;
    let root = line;
    while (typeof root.parentUuid === 'string' && byUuid.has(root.parentUuid))
      root = byUuid.get(root.parentUuid)!;
    const task = taskByPrompt.get(String(blocksOf(root)[0]?.text ?? '').trim());
    expect(task, 'every sidechain belongs to a Task of the log').toBeDefined();
    for (const block of blocksOf(line)) {
      const probe =
        block.type === 'tool_use'
          ? messages.find((m) => m.type === 'tool-call-start' && m.callId === block.id)
          : block.type === 'text' && typeof block.text === 'string' && block.text.trim()
            ? messages.find((m) => m.type === 'text' && m.text === block.text)
            : block.type === 'tool_result'
              ? messages.find((m) => m.type === 'tool-call-end' && m.callId === block.tool_use_id)
              : undefined;
      if (probe === undefined) continue;
      expect(probe.parentId, `parent of a sidechain ${String(block.type)}`).toBe(task);
      expect(probe.agentId).toBeDefined();
      const known = agentOf.get(task!);
      if (known === undefined) agentOf.set(task!, probe.agentId!);
      else expect(probe.agentId).toBe(known);
      checked++;
    }
  }
  expect(new Set(agentOf.values()).size).toBe(agentOf.size);
  return checked;
}

async function readAll(records: unknown[], options: MapHappyRecordsOptions = {}) {
  const messages: SessionMessage[] = [];
  const generator = mapHappyRecords(records, { verify: true, close: true, ...options });
  let next = await generator.next();
  while (!next.done) {
    messages.push(next.value);
    next = await generator.next();
  }
  expectValidStream(messages);
  return { messages, summary: next.value };
}

describe.skipIf(!hasCorpus)('conformance: Claude Code logs (corpus protocol/happy/claude-jsonl)', () => {
  it('every JSONL log maps to a valid stream with every text and tool call, deduplicated, nothing unknown', async () => {
    const files = (await readdir(CLAUDE_DIR())).filter((f) => f !== DEBUG_LOG);
    expect(files.length).toBeGreaterThanOrEqual(11);
    for (const file of files) {
      const lines = await jsonl(file);
      expect(detectAgentLog(lines), file).toMatchObject({ provider: 'claude', format: 'claude-session' });
      const { messages, skipped } = await mapValid('claude', lines);
      expectNothingLost(lines, messages);
      expect(skipped.byReason['unknown-event'] ?? 0, file).toBe(0);
      expect(skipped.byReason['unknown-call'] ?? 0, file).toBe(0);
      expect(skipped.byReason['malformed-event'] ?? 0, file).toBe(0);
    }
  });

  it('the subagent logs (SDK and not) put every sidechain message under its Task', async () => {
    for (const file of ['utils__task_non_sdk.jsonl', 'utils__task_sdk.jsonl']) {
      const lines = await jsonl(file);
      const { messages } = await mapValid('claude', lines);
      const task = messages.find((m) => m.type === 'tool-call-start' && m.toolName === 'Task');
      expect(task).toMatchObject({ agentTitle: expect.any(String) });
      if (file === 'utils__task_non_sdk.jsonl')
        expect(expectSubagentsPlaced(lines, messages)).toBeGreaterThan(5);
    }
  });

  it('the duplicate, interrupt, API-error and goal logs keep their meaning', async () => {
    const dup = await mapValid('claude', await jsonl('utils__duplicate-assistant-response.jsonl'));
    expect(
      dup.messages
        .filter((m) => m.type === 'text' && m.role === 'agent')
        .map((m) => (m as { text: string }).text),
    ).toEqual(['lol', 'kekr']);
    expect(dup.skipped.byReason.duplicate).toBe(1);
    const interrupt = await mapValid(
      'claude',
      await jsonl('utils__permission-prompt-aborted-with-interrupt.jsonl'),
    );
    expect(interrupt.messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'cancelled' });
    expect(interrupt.messages.find((m) => m.type === 'tool-call-end')).toMatchObject({
      error: 'Permission prompt was aborted.',
    });
    const rate = await mapValid('claude', await jsonl('api-error__rate-limit.jsonl'));
    expect(rate.messages.map((m) => m.type)).toEqual(['text', 'turn-start', 'service', 'turn-end']);
    expect(rate.messages.at(-1)).toMatchObject({ status: 'failed' });
    for (const [file, prefix] of [
      ['goal-status__active.jsonl', 'Goal set: '],
      ['goal-status__completed.jsonl', 'Goal met: '],
      ['goal-status__cleared.jsonl', 'Goal cleared: '],
    ] as const) {
      const goal = await mapValid('claude', await jsonl(file));
      expect((goal.messages[0] as { text: string }).text.startsWith(prefix), file).toBe(true);
    }
  });

  it('the CLI debug log: its SDK messages, session lines and socket records each map to a valid stream with the same texts', async () => {
    const blocks = await debugLogBlocks();
    const sdk = blocks
      .filter((b) => b.header.startsWith('[CLAUDE] Message from non interactive'))
      .map((b) => b.value);
    const scanned = blocks
      .filter((b) => b.header.startsWith('[SESSION_SCANNER] Processing message'))
      .map((b) => b.value);
    const socket = blocks
      .filter((b) => b.header.startsWith('[SOCKET] Sending message through socket'))
      .map((b) => b.value);
    expect(sdk.length).toBeGreaterThan(5);
    expect(scanned.length).toBeGreaterThan(5);
    expect(socket.length).toBeGreaterThan(5);
    const fromSdk = await mapValid('claude', sdk);
    const fromLog = await mapValid('claude', scanned);
    const fromSocket = await readAll(socket);
    const agentTexts = (messages: SessionMessage[]) =>
      messages
        .filter((m) => m.type === 'text' && m.role === 'agent')
        .map((m) => (m as { text: string }).text);
    expect(agentTexts(fromSdk.messages).length).toBeGreaterThan(2);
    // Written twice by Claude Code (the duplicate this log was recorded for), mapped once.
    expect(agentTexts(fromLog.messages)).toEqual([...new Set(agentTexts(fromLog.messages))]);
    expect(agentTexts(fromSocket.messages)).toEqual(agentTexts(fromLog.messages));
    for (const texts of [agentTexts(fromLog.messages), agentTexts(fromSocket.messages)]) {
      for (const text of texts) expect(agentTexts(fromSdk.messages)).toContain(text);
    }
    // Three prompts: answered, a write the user denied (its permission trail rebuilt), a write interrupted.
    const statuses = (messages: SessionMessage[]) =>
      messages.flatMap((m) => (m.type === 'turn-end' ? [m.status] : []));
    expect(statuses(fromSdk.messages)).toEqual(['completed', 'completed', 'cancelled']);
    expect(statuses(fromLog.messages)).toEqual(['completed', 'completed', 'cancelled']);
    const calls = [...foldTranscript(fromLog.messages).calls.values()];
    expect(calls.map((call) => call.permissions[0]?.decision)).toEqual(['rejected', undefined]);
    expect(calls.map((call) => call.status)).toEqual(['failed', 'failed']);
  });
});

describe.skipIf(!hasCorpus)("conformance: Happy's app traces (legacy records)", () => {
  it('every trace maps to one valid stream with every text and tool call, subagents under their Task', async () => {
    for (const file of ['trace_0.json', 'trace_1.json', 'trace_2.json']) {
      const records = await trace(file);
      expect(detectAgentLog(records), file).toMatchObject({ provider: 'happy' });
      const { messages, summary } = await readAll(records);
      const lines = claudeLines(records);
      expectNothingLost(lines, messages);
      if (lines.some((line) => line.isSidechain === true))
        expect(expectSubagentsPlaced(lines, messages)).toBeGreaterThan(20);
      expect(summary.skipped.byReason['unknown-event'] ?? 0, file).toBe(0);
      expect(summary.skipped.byReason['unknown-call'] ?? 0, file).toBe(0);
      // The app's own prompts come through as user text.
      for (const record of records) {
        const content = record.content as Json;
        if (content.role === 'user') {
          expect(
            messages.some(
              (m) => m.type === 'text' && m.role === 'user' && m.text === (content.content as Json).text,
            ),
          ).toBe(true);
        }
      }
      const { turns } = foldTranscript(messages);
      expect(turns.size).toBeGreaterThan(0);
    }
  });

  it('the design examples pass through the Happy records reader unchanged', async () => {
    const dir = corpusPath('protocol', 'happy', 'v2-examples');
    for (const file of (await readdir(dir)).filter((f) => f.startsWith('stream-'))) {
      const stream = (await readFile(join(dir, file), 'utf8'))
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => assertSessionMessage(JSON.parse(l)));
      const messages: SessionMessage[] = [];
      for await (const message of mapHappyRecords(stream)) messages.push(message);
      // An excerpt that begins inside a turn gets the turn-start it lacks; the rest is kept as it is.
      const excerpt = stream[0]!.type !== 'turn-start' && stream[0]!.role === 'agent';
      expect(excerpt ? messages.slice(1) : messages, file).toEqual(stream);
      if (excerpt) expect(messages[0]).toMatchObject({ type: 'turn-start', turn: stream[0]!.turn });
    }
  });
});

describe.skipIf(!hasCorpus)('conformance: the corpus images through the real pipeline', () => {
  let tmp: Awaited<ReturnType<typeof makeTempDir>>;
  let store: LocalBlobStore;
  const blobKey = new Uint8Array(randomBytes(32));
  beforeAll(async () => {
    tmp = await makeTempDir('happy-media-claude-conformance-');
    store = new LocalBlobStore(join(tmp.dir, 'store'));
  });
  afterAll(async () => tmp?.cleanup());

  it('each image, in a prompt or a tool result, with or without media_type, is a photo whose blob decrypts to it', async () => {
    const files = ['fixture.png', 'fixture.jpg', 'fixture.gif', 'fixture.webp', 'fixture-itxt.png'];
    const images = await Promise.all(
      files.map(async (f) => new Uint8Array(await readFile(corpusPath('media', 'file-type', f)))),
    );
    const mediaType = ['image/png', 'image/jpeg', undefined, 'image/webp', undefined];
    const image = (i: number) => ({
      type: 'image',
      source: {
        type: 'base64',
        data: toBase64(images[i]!),
        ...(mediaType[i] ? { media_type: mediaType[i] } : {}),
      },
    });
    const events = [
      {
        type: 'user',
        uuid: 'u1',
        message: { role: 'user', content: [image(0), { type: 'text', text: 'What is this?' }] },
      },
      {
        type: 'assistant',
        uuid: 'a1',
        message: {
          id: 'm1',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/x' } }],
        },
      },
      {
        type: 'user',
        uuid: 'u2',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              content: [image(1), image(2), image(3), image(4)],
            },
          ],
        },
      },
    ];
    const { messages } = await mapValid('claude', events, { media: sendMediaHandler({ store, blobKey }) });
    const photos = messages.filter((m) => m.type === 'photo');
    expect(photos).toHaveLength(files.length);
    for (const [i, photo] of photos.entries()) {
      const ref = (photo as { ref: string }).ref;
      const blob = await collect(await store.get(ref));
      const context = mediaBlobContext(ref);
      // What a send encrypts: the image with its identifying metadata neutralised (the JPEG's EXIF).
      const sent = await stripThrough(images[i]!, images[i]!.length);
      expect(
        Buffer.from(await decryptBlob(blob, blobKey, { context })).equals(Buffer.from(sent)),
        files[i],
      ).toBe(true);
      expect(photo.parentId).toBe(i === 0 ? undefined : 'toolu_1');
    }
  });
});
