import { isCuid } from '@paralleldrive/cuid2';
import { describe, expect, it } from 'vitest';
import { SchemaError } from '../../../src/core/errors.js';
import {
  createMediaRef,
  fileMessage,
  parseSessionMessage,
  permissionRequest,
  permissionResponse,
  photoMessage,
  serviceMessage,
  textMessage,
  toolCallEnd,
  toolCallStart,
  turnEnd,
  turnStart,
  validateStream,
  videoMessage,
} from '../../../src/core/protocol/index.js';
import { THUMBHASH } from './examples.js';

function expectSchemaError(build: () => unknown, path: (string | number)[]): void {
  let caught: unknown;
  try {
    build();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(SchemaError);
  expect((caught as SchemaError).code).toBe('ERR_SCHEMA');
  expect((caught as SchemaError).issues.map((i) => i.path)).toContainEqual(path);
}

describe('builders', () => {
  it('fill a fresh cuid2 id and the current time', () => {
    const before = Date.now();
    const a = textMessage({ role: 'user', text: 'hi' });
    const b = textMessage({ role: 'user', text: 'hi' });
    const after = Date.now();
    expect(isCuid(a.id)).toBe(true);
    expect(a.id).not.toBe(b.id);
    expect(a.time).toBeGreaterThanOrEqual(before);
    expect(a.time).toBeLessThanOrEqual(after);
    expect(Number.isInteger(a.time)).toBe(true);
  });

  it('take id and time from options', () => {
    expect(turnStart({ turn: 't1' }, { id: 'm1', time: 1000 })).toEqual({
      id: 'm1',
      time: 1000,
      role: 'agent',
      type: 'turn-start',
      turn: 't1',
    });
  });

  it('build a whole valid stream whose every message parses strictly', () => {
    let time = 1_767_225_600_000;
    const at = () => ({ time: time++ });
    const turn = 'turn1';
    const ref = createMediaRef();
    const messages = [
      textMessage({ role: 'user', text: 'Why does login fail?' }, at()),
      photoMessage({ role: 'user', ref, thumbhash: THUMBHASH, width: 800, height: 600 }, at()),
      turnStart({ turn }, at()),
      textMessage({ role: 'agent', turn, text: 'thinking...', thinking: true }, at()),
      toolCallStart(
        {
          turn,
          callId: 'task',
          toolName: 'task',
          title: 'Explore',
          description: 'd',
          args: {},
          agentTitle: 'Auth',
        },
        at(),
      ),
      textMessage({ role: 'agent', turn, parentId: 'task', agentId: 'sub1', text: 'looking' }, at()),
      toolCallEnd({ turn, callId: 'task' }, at()),
      toolCallStart(
        { turn, callId: 'rm', toolName: 'bash', title: 'rm', description: 'd', args: { c: 'rm' } },
        at(),
      ),
      permissionRequest(
        {
          turn,
          callId: 'rm',
          toolName: 'bash',
          title: 'rm',
          options: [{ id: 'y', label: 'Yes', kind: 'allow-once' }],
        },
        at(),
      ),
      permissionResponse({ callId: 'rm', optionId: 'y' }, at()),
      toolCallEnd({ turn, callId: 'rm', error: 'exit 1' }, at()),
      videoMessage(
        {
          role: 'agent',
          turn,
          ref: createMediaRef(),
          thumbhash: THUMBHASH,
          width: 1920,
          height: 1080,
          durationMs: 45000,
          mimeType: 'video/mp4',
          size: 1234,
        },
        at(),
      ),
      fileMessage(
        { role: 'agent', turn, ref: createMediaRef(), name: 'r.pdf', size: 10, mimeType: 'application/pdf' },
        at(),
      ),
      serviceMessage({ text: 'Context window compacted' }, at()),
      turnEnd({ turn, status: 'completed' }, at()),
    ];
    for (const message of messages) {
      expect(parseSessionMessage(message, { mode: 'strict' }).success).toBe(true);
    }
    expect(messages.map((m) => m.type)).toContain('permission-response');
    expect(validateStream(messages, { requireTurnStart: true, mode: 'strict' })).toEqual([]);
  });

  it('set the role of single-role types, whatever the caller passes', () => {
    expect(turnEnd({ turn: 't', status: 'failed' }).role).toBe('agent');
    expect(permissionResponse({ callId: 'c', optionId: 'o' }).role).toBe('user');
    // A stray role or type in the fields cannot override what the builder fixes.
    const sneaky = { callId: 'c', optionId: 'o', role: 'agent', type: 'text' } as unknown as Parameters<
      typeof permissionResponse
    >[0];
    const built = permissionResponse(sneaky);
    expect(built.role).toBe('user');
    expect(built.type).toBe('permission-response');
  });

  it('validate before returning: bad fields throw SchemaError with the path', () => {
    expectSchemaError(() => textMessage({ role: 'user', text: 'x', thinking: true } as never), []);
    expectSchemaError(() => textMessage({ role: 'agent', text: 'x' } as never), ['turn']);
    expectSchemaError(
      () => photoMessage({ role: 'user', ref: 'media/../x', thumbhash: THUMBHASH, width: 1, height: 1 }),
      ['ref'],
    );
    expectSchemaError(
      () => photoMessage({ role: 'user', ref: createMediaRef(), thumbhash: THUMBHASH, width: -1, height: 1 }),
      ['width'],
    );
    expectSchemaError(
      () =>
        videoMessage({
          role: 'user',
          ref: createMediaRef(),
          thumbhash: THUMBHASH,
          width: 1,
          height: 1,
          durationMs: 1.5,
          mimeType: 'video/mp4',
          size: 1,
        }),
      ['durationMs'],
    );
    expectSchemaError(
      () =>
        fileMessage({ role: 'user', ref: createMediaRef(), name: '../x', size: 1, mimeType: 'text/plain' }),
      ['name'],
    );
    expectSchemaError(
      () => permissionRequest({ turn: 't', callId: 'c', toolName: 'bash', title: 't', options: [] }),
      ['options'],
    );
    expectSchemaError(() => turnEnd({ turn: 't', status: 'done' as never }), ['status']);
    expectSchemaError(() => turnStart({ turn: 't' }, { time: -1 }), ['time']);
    expectSchemaError(() => turnStart({ turn: 't' }, { id: '' }), ['id']);
    expectSchemaError(() => serviceMessage({ text: 'x', extra: 1 } as never), []);
  });
});
