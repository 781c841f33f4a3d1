import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toBase64 } from '../../../src/envelope.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import type { PermissionOption, SessionMessage } from '../../../src/index.js';
import { CALL_UNFINISHED_ERROR, SessionWriter } from '../../../src/mappers.js';
import {
  expectValidStream,
  FAKE_THUMBHASH,
  failingMediaHandler,
  recordingMediaHandler,
  sequentialIds,
  steppingClock,
} from '../../helpers/mappers.js';

const OPTIONS: PermissionOption[] = [
  { id: 'yes', label: 'Allow once', kind: 'allow-once' },
  { id: 'no', label: 'Deny', kind: 'reject-once' },
];
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

function writer(options: ConstructorParameters<typeof SessionWriter>[0] = {}) {
  return new SessionWriter({
    clock: steppingClock(1000),
    createId: sequentialIds(),
    verify: true,
    ...options,
  });
}

const shape = (messages: SessionMessage[]) =>
  messages.map((m) => {
    const extra = 'callId' in m ? ` ${m.callId}` : m.type === 'turn-end' ? ` ${m.status}` : '';
    return `${m.role}:${m.type}${extra}`;
  });

describe('SessionWriter: turns', () => {
  it('opens a turn for the first agent message and keeps user text outside it', () => {
    const w = writer();
    w.userText('Find TODOs');
    w.agentText('Searching', {});
    w.agentText('hmm', { thinking: true });
    w.endTurn('completed');
    const messages = w.take();
    expect(shape(messages)).toEqual([
      'user:text',
      'agent:turn-start',
      'agent:text',
      'agent:text',
      'agent:turn-end completed',
    ]);
    expect(messages[0]).not.toHaveProperty('turn');
    expect(messages[2]).not.toHaveProperty('thinking');
    expect(messages[3]).toMatchObject({ thinking: true, turn: messages[1]!.turn });
    expectValidStream(messages);
    expect(w.take()).toEqual([]);
  });

  it('ends every open call, children first, with an error before turn-end', () => {
    const w = writer();
    w.startCall('task', { toolName: 'Task', agentTitle: 'Research' });
    const agentId = w.agentIdFor('task');
    w.startCall('grep', { toolName: 'Grep' }, { parent: 'task', agentId });
    expect(w.endTurn('completed')).toBe(true);
    const messages = w.take();
    expect(shape(messages)).toEqual([
      'agent:turn-start',
      'agent:tool-call-start task',
      'agent:tool-call-start grep',
      'agent:tool-call-end grep',
      'agent:tool-call-end task',
      'agent:turn-end completed',
    ]);
    expect(messages[3]).toMatchObject({ parentId: 'task', agentId, error: CALL_UNFINISHED_ERROR });
    expect(messages[4]).not.toHaveProperty('agentId');
    expectValidStream(messages);
    expect(w.endTurn('completed')).toBe(false);
  });

  it('a new turn ends the open one; preferred turn ids are kept once', () => {
    const w = writer();
    expect(w.startTurn({ turn: 't1' })).toBe('t1');
    expect(w.startTurn({ turn: 't1' })).not.toBe('t1');
    const messages = w.take();
    expect(shape(messages)).toEqual(['agent:turn-start', 'agent:turn-end completed', 'agent:turn-start']);
  });
});

describe('SessionWriter: calls by provider key', () => {
  it('uses the key as callId when it can, a fresh id otherwise', () => {
    const w = writer();
    expect(w.startCall('toolu_1', { toolName: 'Bash', args: { command: 'ls' } })).toBe('toolu_1');
    expect(w.startCall('', { toolName: '' })).toMatch(/^id-/);
    expect(w.startCall('x'.repeat(300), { toolName: 'Read', args: 'raw' })).toMatch(/^id-/);
    const starts = w.take().filter((m) => m.type === 'tool-call-start');
    expect(starts[1]).toMatchObject({ toolName: 'unknown', title: 'unknown', description: '', args: {} });
    expect(starts[2]).toMatchObject({ args: { input: 'raw' } });
  });

  it('counts a second start as duplicate, an end without start as unknown-call, a second end as duplicate', () => {
    const w = writer();
    w.startCall('a', { toolName: 'Bash' });
    expect(w.startCall('a', { toolName: 'Bash' })).toBeUndefined();
    expect(w.endCall('nope')).toBe(false);
    expect(w.endCall('a', { error: 'exit 1' })).toBe(true);
    expect(w.endCall('a')).toBe(false);
    expect(w.startCall('a', { toolName: 'Bash' })).toBeUndefined();
    expect(w.skips.counts()).toEqual({ total: 4, byReason: { duplicate: 3, 'unknown-call': 1 } });
  });

  it('starts a new call for an ended key when the provider reuses ids', () => {
    const w = writer();
    w.startCall('item_0', { toolName: 'exec' });
    w.endCall('item_0');
    const second = w.startCall('item_0', { toolName: 'exec' }, { ifEnded: 'new-call' });
    expect(second).toBeDefined();
    expect(second).not.toBe('item_0');
    expect(w.callIdOf('item_0')).toBe(second);
    w.endCall('item_0');
    w.endTurn('completed');
    expectValidStream(w.take());
  });

  it('drops a parentId naming an unknown call and counts it', () => {
    const w = writer();
    w.agentText('orphan', { parent: 'missing', agentId: 'a1' });
    const [, text] = w.take();
    expect(text).not.toHaveProperty('parentId');
    expect(text).toMatchObject({ agentId: 'a1' });
    expect(w.skips.count('unknown-parent')).toBe(1);
  });
});

describe('SessionWriter: permissions', () => {
  it('writes a request inside its call and the matching answer', () => {
    const w = writer();
    w.startCall('c', { toolName: 'Bash', title: 'Run `rm`', description: 'Delete', args: { command: 'rm' } });
    expect(w.requestPermission('c', { options: OPTIONS })).toBe(true);
    expect(w.hasPendingPermission('c')).toBe(true);
    expect(w.requestPermission('c', { options: OPTIONS })).toBe(false);
    expect(w.respondPermission('c', 'maybe')).toBe(false);
    expect(w.respondPermission('c', 'yes')).toBe(true);
    expect(w.respondPermission('c', 'yes')).toBe(false);
    w.endCall('c');
    expect(w.requestPermission('c', { options: OPTIONS })).toBe(false);
    w.endTurn('completed');
    const messages = w.take();
    expect(messages.find((m) => m.type === 'permission-request')).toMatchObject({
      toolName: 'Bash',
      title: 'Run `rm`',
      description: 'Delete',
      args: { command: 'rm' },
    });
    expect(messages.find((m) => m.type === 'permission-response')).not.toHaveProperty('turn');
    expect(w.skips.count('unmatched-permission')).toBe(4);
    expectValidStream(messages);
  });
});

describe('SessionWriter: ids and times', () => {
  it('keeps provider times, never goes backwards, uses the clock for bad hints', () => {
    const w = writer({ clock: { now: () => 5 } });
    w.userText('a', { time: 100 });
    w.userText('b', { time: 50 });
    w.userText('c', { time: Number.NaN });
    w.userText('d', { time: 200.7 });
    expect(w.take().map((m) => m.time)).toEqual([100, 100, 100, 200]);
  });

  it('keeps a preferred id once', () => {
    const w = writer();
    w.userText('a', { id: 'm1' });
    w.userText('b', { id: 'm1' });
    w.userText('c', { id: 'bad\u0000id' });
    expect(w.take().map((m) => m.id)).toEqual(['m1', 'id-1', 'id-2']);
  });

  it('falls back to cuid2 when the id seam keeps repeating itself', () => {
    const w = new SessionWriter({ createId: () => 'same' });
    w.userText('a');
    w.userText('b');
    const [a, b] = w.take();
    expect(a!.id).toBe('same');
    expect(b!.id).toMatch(/^[a-z0-9]{24}$/);
  });

  it('rejects bad options with a typed error', () => {
    expect(() => new SessionWriter({ clock: {} as never })).toThrow(InvalidArgumentError);
    expect(() => new SessionWriter({ media: 'x' as never })).toThrow(/options\.media/);
    expect(() => new SessionWriter({ maxMediaBytes: -1 })).toThrow(/maxMediaBytes/);
    expect(() => new SessionWriter(null as never)).toThrow(InvalidArgumentError);
  });
});

describe('SessionWriter: media upload-first', () => {
  it('emits the photo after the upload resolved, inside the producing call', async () => {
    const { handler, uploads } = recordingMediaHandler();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const w = writer({
      media: async (upload, options) => {
        await gate;
        return handler(upload, options);
      },
    });
    w.startCall('shot', { toolName: 'Screenshot' });
    const pending = w.media(toBase64(PNG), { role: 'agent' }, { parent: 'shot' });
    const before = w.take();
    expect(shape(before)).toEqual(['agent:turn-start', 'agent:tool-call-start shot']);
    release();
    const photo = await pending;
    expect(photo).toMatchObject({ type: 'photo', ref: 'media/upload-1', parentId: 'shot', role: 'agent' });
    expect(uploads[0]).toMatchObject({ mimeType: 'image/png', name: 'image-1.png', role: 'agent' });
    expect(uploads[0]!.bytes).toEqual(PNG);
    w.endCall('shot');
    w.endTurn('completed');
    expectValidStream([...before, ...w.take()]);
  });

  it('sniffs the type when the provider gave none or a wrong one, and reads data: URIs', async () => {
    const { handler, uploads } = recordingMediaHandler();
    const w = writer({ media: handler });
    await w.media(`data:image/jpeg;base64,${toBase64(PNG)}`, { role: 'user' });
    await w.media(toBase64(new Uint8Array([1, 2, 3])), { role: 'user', mimeType: 'image/gif' });
    await w.media(new Uint8Array([9, 9]), { role: 'user' });
    expect(uploads.map((u) => [u.mimeType, u.name])).toEqual([
      ['image/png', 'image-1.png'],
      ['image/gif', 'image-2.gif'],
      [undefined, 'attachment-3'],
    ]);
    const messages = w.take();
    expect(messages.map((m) => m.type)).toEqual(['photo', 'photo', 'file']);
    expect(messages[0]).not.toHaveProperty('turn');
  });

  it('turns bad base64, oversize media, a missing handler and a failed upload into service notes', async () => {
    const w = writer({ maxMediaBytes: 8 });
    await w.media('!!!!', { role: 'agent' });
    await w.media(toBase64(new Uint8Array(9)), { role: 'agent' });
    await w.media('A'.repeat(1_000_000), { role: 'agent' });
    await w.media(toBase64(PNG.subarray(0, 8)), { role: 'agent' });
    const failing = writer({ media: failingMediaHandler });
    await failing.media(toBase64(PNG), { role: 'user' });
    const invalid = writer({
      media: async () => ({ type: 'photo', ref: 'nope', thumbhash: FAKE_THUMBHASH, width: 1, height: 1 }),
    });
    await invalid.media(toBase64(PNG), { role: 'user' });
    const texts = [...w.take(), ...failing.take(), ...invalid.take()]
      .filter((m) => m.type === 'service')
      .map((m) => (m as { text: string }).text);
    expect(texts).toEqual([
      'An image could not be read (its data is not valid base64); it was not uploaded',
      'An image of about 9 B was not uploaded: it is larger than the 8 B limit',
      'An image of about 732 KiB was not uploaded: it is larger than the 8 B limit',
      'An image (image/png, 8 B) was not uploaded: no media handler is configured',
      'An image (image/png, 12 B) could not be uploaded (ERR_UPLOAD_FAILED); it is not in the transcript',
      'An image (image/png, 12 B) was uploaded but could not be described; it is not in the transcript',
    ]);
    expect(w.skips.counts().byReason).toEqual({
      'invalid-media': 1,
      'media-too-large': 2,
      'media-not-uploaded': 1,
    });
    expect(failing.skips.count('media-upload-failed')).toBe(1);
    expect(invalid.skips.count('media-upload-failed')).toBe(1);
  });
});

describe('SessionWriter: adopting v2 messages', () => {
  it('keeps ids, turns and calls of a valid stream and skips duplicates', () => {
    const source = writer({ createId: sequentialIds('src') });
    source.userText('go');
    source.startCall('c1', { toolName: 'Bash' });
    source.requestPermission('c1', { options: OPTIONS });
    source.respondPermission('c1', 'yes');
    source.endCall('c1');
    source.service('compacted');
    source.endTurn('completed');
    const stream = source.take();
    const w = writer();
    for (const message of [...stream, ...stream]) w.adopt(message);
    const adopted = w.take();
    expect(adopted).toEqual(stream);
    expect(w.skips.counts()).toEqual({ total: stream.length, byReason: { duplicate: stream.length } });
    expect(w.adopt({ type: 'text', role: 'agent' })).toBe(false);
    expect(
      w.adopt({ id: 'x', time: 1, role: 'agent', type: 'turn-end', turn: 'zz', status: 'completed' }),
    ).toBe(false);
    expect(w.skips.count('malformed-event')).toBe(1);
    expect(w.skips.count('out-of-order')).toBe(1);
  });
});

describe('SessionWriter: adopting excerpts', () => {
  it('an excerpt that begins inside a turn gets its turn-start, which never takes the message id', () => {
    const w = writer();
    expect(
      w.adopt({ id: 'c1', time: 3000, role: 'agent', type: 'text', turn: 't1', text: 'x', thinking: false }),
    ).toBe(true);
    const [start, text] = w.take();
    expect(start).toMatchObject({ type: 'turn-start', turn: 't1', id: 'id-1' });
    expect(text).toEqual({
      id: 'c1',
      time: 3000,
      role: 'agent',
      type: 'text',
      turn: 't1',
      text: 'x',
      thinking: false,
    });
  });

  it('a request adopted without description or args stays without them', () => {
    const w = writer();
    w.startCall('c', { toolName: 'Bash', description: 'Delete', args: { command: 'rm' } });
    w.adopt({
      id: 'r',
      time: 1,
      role: 'agent',
      type: 'permission-request',
      turn: w.openTurn,
      callId: 'c',
      toolName: 'Bash',
      title: 'Run',
      options: OPTIONS,
    });
    const request = w.take().find((m) => m.type === 'permission-request')!;
    expect(request).not.toHaveProperty('description');
    expect(request).not.toHaveProperty('args');
  });
});

describe('SessionWriter: property', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('text' as const), thinking: fc.boolean() }),
    fc.record({ kind: fc.constant('user' as const) }),
    fc.record({
      kind: fc.constant('start' as const),
      key: fc.integer({ min: 0, max: 6 }),
      parent: fc.integer({ min: -1, max: 6 }),
    }),
    fc.record({
      kind: fc.constant('end' as const),
      key: fc.integer({ min: 0, max: 6 }),
      error: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('ask' as const), key: fc.integer({ min: 0, max: 6 }) }),
    fc.record({
      kind: fc.constant('answer' as const),
      key: fc.integer({ min: 0, max: 6 }),
      option: fc.constantFrom('yes', 'no', 'other'),
    }),
    fc.record({ kind: fc.constant('service' as const), parent: fc.integer({ min: -1, max: 6 }) }),
    fc.record({
      kind: fc.constant('turn-end' as const),
      status: fc.constantFrom('completed', 'failed', 'cancelled') as fc.Arbitrary<
        'completed' | 'failed' | 'cancelled'
      >,
    }),
    fc.record({ kind: fc.constant('reuse' as const), key: fc.integer({ min: 0, max: 6 }) }),
    fc.record({ kind: fc.constant('time' as const), delta: fc.integer({ min: -5000, max: 5000 }) }),
  );

  it('any sequence of writer calls gives a valid stream', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const w = new SessionWriter({ clock: steppingClock(), verify: true });
        let time = 2_000_000_000_000;
        const place = (parent: number) =>
          parent < 0 ? {} : { parent: `k${parent}`, agentId: w.agentIdFor(`k${parent}`) };
        for (const o of ops) {
          switch (o.kind) {
            case 'text':
              w.agentText('t', { thinking: o.thinking, time });
              break;
            case 'user':
              w.userText('u', { time });
              break;
            case 'start':
              w.startCall(`k${o.key}`, { toolName: 'T' }, { ...place(o.parent), time });
              break;
            case 'reuse':
              w.startCall(`k${o.key}`, { toolName: 'T' }, { ifEnded: 'new-call', time });
              break;
            case 'end':
              w.endCall(`k${o.key}`, o.error ? { error: 'e', time } : { time });
              break;
            case 'ask':
              w.requestPermission(`k${o.key}`, { options: OPTIONS }, { time });
              break;
            case 'answer':
              w.respondPermission(`k${o.key}`, o.option, { time });
              break;
            case 'service':
              w.service('s', { ...place(o.parent), time });
              break;
            case 'turn-end':
              w.endTurn(o.status, { time });
              break;
            case 'time':
              time += o.delta;
              break;
          }
        }
        w.endTurn('completed');
        expectValidStream(w.take());
      }),
      { numRuns: 150 },
    );
  });
});
