/**
 * Conformance: every Session Protocol v2 example of the design (extracted into the corpus as
 * protocol/happy/v2-examples) parses strictly, every example stream validates, and the design's own
 * field notes hold. Skipped unless HAPPY_MEDIA_CORPUS is set.
 */
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  assertSessionMessage,
  foldTranscript,
  parseSessionMessage,
  type SessionMessage,
  validateStream,
} from '../../src/core/protocol/index.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';

const DIR = ['protocol', 'happy', 'v2-examples'];

async function readStream(name: string): Promise<unknown[]> {
  const text = await readFile(corpusPath(...DIR, name), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

describe.skipIf(!hasCorpus)('Session Protocol v2 design examples (corpus)', () => {
  it('has the 11 single-message examples and 4 streams', async () => {
    const files = await readdir(corpusPath(...DIR));
    expect(files.filter((f) => f.endsWith('.json')).length).toBeGreaterThanOrEqual(11);
    expect(files.filter((f) => f.endsWith('.jsonl')).sort()).toEqual([
      'stream-simple-tool-call.jsonl',
      'stream-subagent-nested-via-parentid-agentid.jsonl',
      'stream-tool-call-with-permission.jsonl',
      'stream-user-sends-a-photo.jsonl',
    ]);
  });

  it('parses every single-message example in strict mode, keeping every field', async () => {
    const files = (await readdir(corpusPath(...DIR))).filter((f) => f.endsWith('.json'));
    const types = new Set<string>();
    for (const file of files) {
      const value = JSON.parse(await readFile(corpusPath(...DIR, file), 'utf8')) as Record<string, unknown>;
      const result = parseSessionMessage(value, { mode: 'strict' });
      expect(result.success, `${file}: ${result.success ? '' : result.error.message}`).toBe(true);
      // Nothing was dropped or added.
      if (result.success) expect(result.data).toEqual(value);
      types.add(String(value.type));
    }
    // The single-message examples cover every type but "text" by the user, which the streams cover.
    expect(types.size).toBe(11);
  });

  it('parses every message of every stream strictly and validates each stream with no violation', async () => {
    const files = (await readdir(corpusPath(...DIR))).filter((f) => f.endsWith('.jsonl'));
    for (const file of files) {
      const messages = await readStream(file);
      for (const message of messages) assertSessionMessage(message, { mode: 'strict' });
      expect(validateStream(messages, { mode: 'strict' }), file).toEqual([]);
    }
  });

  it('needs turn-start only where the design shows one: the subagent stream is an excerpt that begins mid-turn', async () => {
    const subagent = await readStream('stream-subagent-nested-via-parentid-agentid.jsonl');
    expect(validateStream(subagent, { requireTurnStart: true }).map((v) => v.code)).toEqual([
      'TURN_NOT_OPEN',
    ]);
    for (const file of ['stream-simple-tool-call.jsonl', 'stream-tool-call-with-permission.jsonl']) {
      expect(validateStream(await readStream(file), { requireTurnStart: true })).toEqual([]);
    }
  });

  it('holds the field notes of the subagent example', async () => {
    const messages = (await readStream('stream-subagent-nested-via-parentid-agentid.jsonl')).map((m) =>
      assertSessionMessage(m),
    );
    const spawn = messages.find((m) => m.type === 'tool-call-start' && m.callId === 'task1');
    expect(spawn).toMatchObject({ agentTitle: 'Auth research' });
    expect(spawn?.agentId).toBeUndefined();
    // The tool-call-end of the parent carries no agentId: the parent agent closes the call.
    const parentEnd = messages.find((m) => m.type === 'tool-call-end' && m.callId === 'task1');
    expect(parentEnd).toBeDefined();
    expect(parentEnd?.agentId).toBeUndefined();
    expect(parentEnd?.parentId).toBeUndefined();
    // Every other message is a child of task1 written by agent_sub1.
    for (const m of messages.filter((m) => m !== spawn && m !== parentEnd)) {
      expect(m).toMatchObject({ parentId: 'task1', agentId: 'agent_sub1' });
    }

    const { items } = foldTranscript(messages);
    expect(items).toHaveLength(1);
    const turn = items[0]!;
    if (turn.type !== 'turn') throw new Error('expected a turn');
    expect(turn.start).toBeUndefined();
    const task = turn.children[0]!;
    if (task.type !== 'tool-call') throw new Error('expected the task call');
    expect(task.status).toBe('completed');
    expect(task.children).toHaveLength(1);
    const group = task.children[0]!;
    if (group.type !== 'agent') throw new Error('expected a subagent group');
    expect(group).toMatchObject({ agentId: 'agent_sub1', title: 'Auth research', parentCallId: 'task1' });
    expect(group.children.map((n) => n.type)).toEqual(['text', 'tool-call', 'text']);
  });

  it('folds the permission example into an audit trail on the call', async () => {
    const messages = (await readStream('stream-tool-call-with-permission.jsonl')).map((m) =>
      assertSessionMessage(m),
    ) as SessionMessage[];
    const { calls } = foldTranscript(messages);
    const call = calls.get('c2')!;
    expect(call.permissions).toHaveLength(1);
    expect(call.permissions[0]).toMatchObject({
      decision: 'allowed',
      kind: 'allow-once',
      requestedAt: 2003,
      respondedAt: 2010,
      chosen: { id: 'allow-once', label: 'Allow once' },
    });
  });

  it('tells v2 apart from the legacy format by shape: no legacy app-trace message parses as v2', async () => {
    let checked = 0;
    for (const file of ['trace_0.json', 'trace_2.json']) {
      const records = JSON.parse(
        await readFile(corpusPath('protocol', 'happy', 'app-traces', file), 'utf8'),
      ) as {
        content: unknown;
      }[];
      for (const record of records) {
        expect(parseSessionMessage(record.content).success).toBe(false);
        expect(parseSessionMessage(record).success).toBe(false);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(80);
  });

  it('accepts provider tool-call ids from real Claude Code logs as callIds', async () => {
    const dir = corpusPath('protocol', 'happy', 'claude-jsonl');
    const ids = new Set<string>();
    for (const file of await readdir(dir)) {
      const text = await readFile(`${dir}/${file}`, 'utf8');
      for (const match of text.matchAll(/"(?:id|tool_use_id)":"(toolu_[^"]+)"/g)) ids.add(match[1]!);
    }
    expect(ids.size).toBeGreaterThan(3);
    for (const callId of ids) {
      const start = {
        id: callId,
        time: 1,
        role: 'agent',
        type: 'tool-call-start',
        turn: 't',
        callId,
        toolName: 'Bash',
        title: 'Run',
        description: '',
        args: {},
      };
      expect(parseSessionMessage(start, { mode: 'strict' }).success, callId).toBe(true);
    }
  });
});
