import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../../src/errors.js';
import {
  foldTranscript,
  type HappyRecordsSummary,
  type MapHappyRecordsOptions,
  mapHappyRecords,
  type SessionMessage,
  textMessage,
  turnEnd,
  turnStart,
} from '../../../src/index.js';
import { expectValidStream, mapValid, steppingClock } from '../../helpers/mappers.js';
import {
  assistant,
  prompt,
  resetFixtures,
  text,
  toolResult,
  toolUse,
  userBlocks,
} from '../mappers/claude-fixtures.js';

async function read(records: unknown[], options: MapHappyRecordsOptions = {}) {
  const messages: SessionMessage[] = [];
  const generator = mapHappyRecords(records, { verify: true, clock: steppingClock(), ...options });
  let next = await generator.next();
  while (!next.done) {
    messages.push(next.value);
    next = await generator.next();
  }
  expectValidStream(messages);
  return { messages, summary: next.value as HappyRecordsSummary };
}

const user = (text: string) => ({ role: 'user', content: { type: 'text', text } });
const output = (data: unknown) => ({ role: 'agent', content: { type: 'output', data } });
const cliWrapped = (envelope: unknown) => ({ role: 'session', content: envelope, meta: { sentFrom: 'cli' } });
const appWrapped = (envelope: unknown) => ({ role: 'session', content: { type: 'session', data: envelope } });

beforeEach(resetFixtures);

describe('mapHappyRecords: legacy records', () => {
  it('maps app user text and Claude output records into turns', async () => {
    const { messages, summary } = await read([
      { id: 'rec1', seq: 1, localId: null, createdAt: 1_753_000_000_000, content: user('List files') },
      {
        id: 'rec2',
        seq: 2,
        createdAt: 1_753_000_001_000,
        content: output(assistant('msg_1', [toolUse('toolu_1', 'LS', { path: '/p' })])),
      },
      {
        id: 'rec3',
        seq: 3,
        createdAt: 1_753_000_002_000,
        content: output({ ...userBlocks([toolResult('toolu_1', 'a')]), uuid: 'u2' }),
      },
      {
        id: 'rec4',
        seq: 4,
        createdAt: 1_753_000_003_000,
        content: output(assistant('msg_2', [text('One file.')])),
      },
      {
        id: 'rec5',
        seq: 5,
        createdAt: 1_753_000_004_000,
        content: { role: 'agent', content: { type: 'event', id: 'e', data: { type: 'ready' } } },
      },
      {
        id: 'rec6',
        seq: 6,
        createdAt: 1_753_000_005_000,
        content: {
          role: 'agent',
          content: { type: 'output', data: { type: 'summary', summary: 's', leafUuid: 'x' } },
        },
      },
    ]);
    expect(messages.map((m) => `${m.id} ${m.type}`)).toEqual([
      'rec1 text',
      'rec2.1 turn-start',
      'rec2.2 tool-call-start',
      'rec3 tool-call-end',
      'rec4 text',
      'rec5 turn-end',
    ]);
    // Record ids seed the ids; the turn id too.
    expect(messages[1]).toMatchObject({ turn: 'rec2' });
    expect(summary.skipped.byReason).toEqual({ 'not-displayed': 1 });
  });

  it('reconstructs the permission trail Happy recorded on legacy tool results', async () => {
    const result = (id: string, decision: string) => ({
      ...userBlocks([
        {
          ...toolResult(id, decision === 'denied' ? 'denied' : 'ok', decision === 'denied'),
          permissions: { date: 1, result: decision === 'denied' ? 'denied' : 'approved', decision },
        },
      ]),
    });
    const { messages } = await read([
      user('Edit two files'),
      output(assistant('m', [toolUse('t1', 'Edit', { file_path: '/a' })])),
      output(assistant('m', [toolUse('t2', 'Edit', { file_path: '/b' })])),
      output(result('t1', 'approved_for_session')),
      output(result('t2', 'denied')),
    ]);
    const { calls } = foldTranscript(messages);
    expect(calls.get('t1')!.permissions[0]).toMatchObject({ decision: 'allowed', kind: 'allow-always' });
    expect(calls.get('t2')!.permissions[0]).toMatchObject({ decision: 'rejected', kind: 'reject-once' });
    expect(calls.get('t2')!.status).toBe('failed');
  });

  it('maps agent events to service messages', async () => {
    const event = (data: unknown) => ({ role: 'agent', content: { type: 'event', id: 'e', data } });
    const { messages, summary } = await read([
      event({ type: 'switch', mode: 'local' }),
      event({ type: 'message', message: 'Aborted by user' }),
      event({ type: 'limit-reached', endsAt: 1_753_000_000 }),
      event({ type: 'ready' }),
      event({ type: 'mystery' }),
    ]);
    expect(messages.map((m) => (m as { text?: string }).text)).toEqual([
      'Switched to local mode',
      'Aborted by user',
      'Usage limit reached until 2025-07-20T08:26:40.000Z',
    ]);
    expect(summary.skipped.byReason).toEqual({ 'not-displayed': 1, 'unknown-event': 1 });
  });

  it('reads codex and acp legacy records through the providers registered for them; counts unknown shapes', async () => {
    const { messages, summary } = await read([
      user('hi'),
      { role: 'agent', content: { type: 'codex', data: { type: 'message', message: 'from codex' } } },
      {
        role: 'agent',
        content: { type: 'acp', provider: 'gemini', data: { type: 'message', message: 'from gemini' } },
      },
      { role: 'robot', content: {} },
      { role: 'user', content: { type: 'image' } },
      42,
      { kind: 'unreadable', seq: 9, recordId: 'r9', createdAt: 1, error: new Error('x') },
    ]);
    expect(
      messages
        .filter((m) => m.type === 'text' && m.role === 'agent')
        .map((m) => (m as { text: string }).text),
    ).toEqual(['from codex', 'from gemini']);
    expect(summary.skipped.byReason).toEqual({ 'unknown-event': 3, unreadable: 1 });
  });
});

describe('mapHappyRecords: v1 session protocol', () => {
  it('reads both wrappers, keeps v1 ids and turns, gives hidden subagents a spawning call', async () => {
    const sub = 'ck1subagentxxxxxxxxxxxxx';
    const { messages } = await read([
      cliWrapped({ id: 'u1', time: 1000, role: 'user', ev: { t: 'text', text: 'Research' } }),
      appWrapped({ id: 'a1', time: 1001, role: 'agent', turn: 'T1', ev: { t: 'turn-start' } }),
      cliWrapped({
        id: 'a2',
        time: 1002,
        role: 'agent',
        turn: 'T1',
        subagent: sub,
        ev: { t: 'start', title: 'Auth research' },
      }),
      cliWrapped({
        id: 'a3',
        time: 1003,
        role: 'agent',
        turn: 'T1',
        subagent: sub,
        ev: { t: 'text', text: 'looking' },
      }),
      cliWrapped({
        id: 'a4',
        time: 1004,
        role: 'agent',
        turn: 'T1',
        subagent: sub,
        ev: {
          t: 'tool-call-start',
          call: 'c1',
          name: 'Grep',
          title: 'Grep',
          description: 'grep',
          args: { pattern: 'x' },
        },
      }),
      cliWrapped({
        id: 'a5',
        time: 1005,
        role: 'agent',
        turn: 'T1',
        subagent: sub,
        ev: { t: 'tool-call-end', call: 'c1' },
      }),
      cliWrapped({ id: 'a6', time: 1006, role: 'agent', turn: 'T1', subagent: sub, ev: { t: 'stop' } }),
      cliWrapped({
        id: 'a7',
        time: 1007,
        role: 'agent',
        turn: 'T1',
        ev: { t: 'text', text: 'thinking…', thinking: true },
      }),
      cliWrapped({
        id: 'a8',
        time: 1008,
        role: 'agent',
        turn: 'T1',
        ev: { t: 'service', text: 'compacted' },
      }),
      cliWrapped({
        id: 'a9',
        time: 1009,
        role: 'agent',
        turn: 'T1',
        ev: { t: 'turn-end', status: 'completed' },
      }),
    ]);
    expect(messages.map((m) => `${m.id} ${m.type}${m.parentId ? ` <${m.parentId}>` : ''}`)).toEqual([
      'u1 text',
      'a1 turn-start',
      `a2 tool-call-start`,
      `a3 text <subagent-${sub}>`,
      `a4 tool-call-start <subagent-${sub}>`,
      `a5 tool-call-end <subagent-${sub}>`,
      'a6 tool-call-end',
      'a7 text',
      'a8 service',
      'a9 turn-end',
    ]);
    expect(messages[1]).toMatchObject({ turn: 'T1' });
    expect(messages[2]).toMatchObject({ toolName: 'Task', agentTitle: 'Auth research' });
    expect(messages[3]).toMatchObject({ agentId: sub });
    const { items } = foldTranscript(messages);
    const turn = items.find((n) => n.type === 'turn')!;
    expect(turn.type === 'turn' && turn.children[0]).toMatchObject({
      type: 'tool-call',
      agentTitle: 'Auth research',
    });
  });

  it('maps v1 file events to photo/file messages with media refs and reports their v1 blobs', async () => {
    const blobs: unknown[] = [];
    const { messages, summary } = await read(
      [
        cliWrapped({
          id: 'f1',
          time: 1,
          role: 'user',
          ev: {
            t: 'file',
            ref: 'sessions/s1/attachments/abc-123.enc',
            name: 'a.jpg',
            size: 10,
            mimeType: 'image/jpeg',
            image: { width: 4, height: 3, thumbhash: '3OcRJYB4d3h/iIeHeEh3eIhw+j2w' },
          },
        }),
        appWrapped({
          id: 'f2',
          time: 2,
          role: 'user',
          ev: {
            t: 'file',
            ref: 'sessions/s1/attachments/def.enc',
            name: 'b.pdf',
            size: 20,
            image: { width: 1, height: 1 },
          },
        }),
        cliWrapped({
          id: 'f3',
          time: 3,
          role: 'user',
          ev: { t: 'file', ref: 'https://elsewhere/x', name: 'c', size: 1 },
        }),
      ],
      { onV1Blob: (blob) => blobs.push(blob) },
    );
    expect(messages).toEqual([
      expect.objectContaining({ id: 'f1', type: 'photo', ref: 'media/abc-123', width: 4, height: 3 }),
      expect.objectContaining({
        id: 'f2',
        type: 'file',
        ref: 'media/def',
        name: 'b.pdf',
        size: 20,
        mimeType: 'application/octet-stream',
      }),
    ]);
    expect(blobs).toEqual(summary.v1Blobs);
    expect(summary.v1Blobs[0]).toEqual({
      ref: 'media/abc-123',
      serverRef: 'sessions/s1/attachments/abc-123.enc',
      size: 10,
      mimeType: 'image/jpeg',
    });
    expect(summary.skipped.byReason).toEqual({ 'malformed-event': 1 });
  });
});

describe('mapHappyRecords: v2 messages and readMessages records', () => {
  it('passes v2 messages through with their ids, drops duplicates, and mixes with legacy records', async () => {
    const start = turnStart({ turn: 'v2turn' }, { id: 'v2a', time: 5000 });
    const said = textMessage({ role: 'agent', turn: 'v2turn', text: 'hello' }, { id: 'v2b', time: 5001 });
    const end = turnEnd({ turn: 'v2turn', status: 'completed' }, { id: 'v2c', time: 5002 });
    const { messages, summary } = await read([
      { kind: 'legacy', seq: 1, recordId: 'r1', localId: null, createdAt: 4000, record: user('hi') },
      { kind: 'message', seq: 2, recordId: 'r2', localId: 'v2a', createdAt: 5000, message: start },
      { kind: 'message', seq: 3, recordId: 'r3', localId: 'v2b', createdAt: 5001, message: said },
      { kind: 'message', seq: 3, recordId: 'r3', localId: 'v2b', createdAt: 5001, message: said },
      { id: 'r4', seq: 4, createdAt: 5002, content: end },
      end,
    ]);
    expect(messages.map((m) => m.id)).toEqual(['r1', 'v2a', 'v2b', 'v2c']);
    expect(messages.slice(1)).toEqual([start, said, end]);
    expect(summary.skipped.byReason).toEqual({ duplicate: 2 });
  });

  it('reads the same records into the same ids twice; close ends the open turn', async () => {
    const records = [
      { id: 'r1', createdAt: 1, content: user('go') },
      { id: 'r2', createdAt: 2, content: output(assistant('m', [text('working')])) },
    ];
    const first = await read(records);
    resetFixtures();
    const second = await read(records);
    expect(second.messages).toEqual(first.messages);
    expect(first.messages.at(-1)!.type).toBe('text');
    resetFixtures();
    const closed = await read(records, { close: true });
    expect(closed.messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'completed' });
  });

  it('is the `happy` provider of createAgentMapper too', async () => {
    const { messages } = await mapValid('happy', [
      user('hi'),
      output(prompt('ignored?', { sidechain: true })),
    ]);
    expect(messages[0]).toMatchObject({ role: 'user', text: 'hi' });
  });

  it('refuses a non-iterable input with a typed error', async () => {
    await expect(mapHappyRecords(3 as never).next()).rejects.toThrow(InvalidArgumentError);
  });
});
