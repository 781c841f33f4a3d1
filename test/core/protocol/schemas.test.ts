import { describe, expect, it } from 'vitest';
import {
  AgentMessageSchema,
  MAX_ID_LENGTH,
  MESSAGE_TYPES,
  parseSessionMessage,
  type SessionMessage,
  SessionMessageSchema,
  UserMessageSchema,
} from '../../../src/core/protocol/index.js';
import { EXAMPLES, type ExampleKey, example } from './examples.js';

function issuesOf(value: unknown, mode: 'strict' | 'tolerant' = 'strict') {
  const result = parseSessionMessage(value, { mode });
  if (result.success) throw new Error(`expected a schema error for ${JSON.stringify(value)}`);
  expect(result.error.code).toBe('ERR_SCHEMA');
  return result.error.issues;
}

function expectIssueAt(value: unknown, path: (string | number)[], mode: 'strict' | 'tolerant' = 'strict') {
  const issues = issuesOf(value, mode);
  expect(issues.map((i) => i.path)).toContainEqual(path);
}

function expectValid(value: unknown, mode: 'strict' | 'tolerant' = 'strict'): SessionMessage {
  const result = parseSessionMessage(value, { mode });
  if (!result.success) throw new Error(result.error.message);
  return result.data;
}

// Required fields of each (role, type), from the design's Full Type Definition.
const REQUIRED: Record<ExampleKey, string[]> = {
  'agent:turn-start': ['id', 'time', 'role', 'type', 'turn'],
  'agent:turn-end': ['id', 'time', 'role', 'type', 'turn', 'status'],
  'agent:text': ['id', 'time', 'role', 'type', 'turn', 'text'],
  'user:text': ['id', 'time', 'role', 'type', 'text'],
  'agent:tool-call-start': [
    'id',
    'time',
    'role',
    'type',
    'turn',
    'callId',
    'toolName',
    'title',
    'description',
    'args',
  ],
  'agent:tool-call-end': ['id', 'time', 'role', 'type', 'turn', 'callId'],
  'agent:permission-request': [
    'id',
    'time',
    'role',
    'type',
    'turn',
    'callId',
    'toolName',
    'title',
    'options',
  ],
  'user:permission-response': ['id', 'time', 'role', 'type', 'callId', 'optionId'],
  'agent:photo': ['id', 'time', 'role', 'type', 'turn', 'ref', 'thumbhash', 'width', 'height'],
  'user:photo': ['id', 'time', 'role', 'type', 'ref', 'thumbhash', 'width', 'height'],
  'agent:video': ['turn', 'ref', 'thumbhash', 'width', 'height', 'durationMs', 'mimeType', 'size'],
  'user:video': ['ref', 'thumbhash', 'width', 'height', 'durationMs', 'mimeType', 'size'],
  'agent:file': ['turn', 'ref', 'name', 'size', 'mimeType'],
  'user:file': ['ref', 'name', 'size', 'mimeType'],
  'agent:service': ['id', 'time', 'role', 'type', 'text'],
};

// Optional fields each (role, type) may carry beyond the base's parentId/agentId.
const OPTIONAL: Partial<Record<ExampleKey, Record<string, unknown>>> = {
  'agent:text': { thinking: true },
  'agent:tool-call-start': { agentTitle: 'Auth research' },
  'agent:tool-call-end': { error: 'boom' },
  'agent:permission-request': { description: 'd', args: { a: 1 } },
  'agent:service': { turn: 't' },
  'user:text': { turn: 't' },
  'user:photo': { turn: 't' },
};

const KEYS = Object.keys(EXAMPLES) as ExampleKey[];

describe('message schemas: valid examples', () => {
  it('cover all 11 types', () => {
    expect(new Set(KEYS.map((k) => EXAMPLES[k].type))).toEqual(new Set(MESSAGE_TYPES));
    expect(MESSAGE_TYPES).toHaveLength(11);
  });

  it.each(KEYS)('%s parses strictly and comes back unchanged', (key) => {
    expect(expectValid(example(key))).toEqual(EXAMPLES[key]);
  });

  it.each(KEYS)('%s is in the union of its role only', (key) => {
    const value = example(key);
    const own = key.startsWith('agent:') ? AgentMessageSchema : UserMessageSchema;
    const other = key.startsWith('agent:') ? UserMessageSchema : AgentMessageSchema;
    expect(own.safeParse(value).success).toBe(true);
    expect(other.safeParse(value).success).toBe(false);
    expect(SessionMessageSchema.safeParse(value).success).toBe(true);
  });

  it.each(KEYS)('%s accepts parentId and agentId', (key) => {
    expectValid(example(key, { parentId: 'call_9', agentId: 'agent_sub1' }));
  });
});

describe('message schemas: required and optional fields', () => {
  const cases = KEYS.flatMap((key) => REQUIRED[key].map((field) => [key, field] as const));
  it.each(cases)('%s without %s is rejected at that path', (key, field) => {
    const issues = issuesOf(example(key, { [field]: undefined }));
    if (field === 'type') expect(issues[0]!.path).toEqual(['type']);
    else if (field === 'role' && ['text', 'photo', 'video', 'file'].includes(EXAMPLES[key].type))
      expect(issues[0]!.path).toEqual(['role']);
    else expect(issues.map((i) => i.path)).toContainEqual([field]);
  });

  const optional = Object.entries(OPTIONAL).flatMap(([key, fields]) =>
    Object.entries(fields).map(([field, value]) => [key as ExampleKey, field, value] as const),
  );
  it.each(optional)('%s accepts optional %s, and parses without it', (key, field, value) => {
    expect(expectValid(example(key, { [field]: value }))).toMatchObject({ [field]: value });
    expectValid(example(key, { [field]: undefined }));
  });

  it('agent messages need turn; user messages do not; service may omit it', () => {
    for (const key of ['agent:text', 'agent:photo', 'agent:video', 'agent:file'] as const) {
      expectIssueAt(example(key, { turn: undefined }), ['turn']);
    }
    for (const key of [
      'user:text',
      'user:photo',
      'user:video',
      'user:file',
      'user:permission-response',
    ] as const) {
      expect(expectValid(example(key, { turn: undefined })).turn).toBeUndefined();
    }
    expect(expectValid(example('agent:service', { turn: undefined })).turn).toBeUndefined();
  });

  it('never accepts thinking on a user message, in either mode', () => {
    for (const mode of ['strict', 'tolerant'] as const) {
      const issues = issuesOf(example('user:text', { thinking: false }), mode);
      expect(issues[0]).toMatchObject({ code: 'unrecognized_keys' });
    }
  });

  it('rejects fields of another type', () => {
    expect(issuesOf(example('agent:text', { status: 'completed' }))[0]!.code).toBe('unrecognized_keys');
    expect(issuesOf(example('agent:turn-start', { text: 'x' }))[0]!.code).toBe('unrecognized_keys');
    expect(issuesOf(example('user:photo', { durationMs: 5 }))[0]!.code).toBe('unrecognized_keys');
  });
});

describe('message schemas: roles', () => {
  it.each([
    'turn-start',
    'turn-end',
    'tool-call-start',
    'tool-call-end',
    'permission-request',
    'service',
  ] as const)('%s is agent-only', (type) => {
    const issues = issuesOf(example(`agent:${type}`, { role: 'user' }));
    expect(issues[0]!.path).toEqual(['role']);
    expect(issues[0]!.message).toContain('agent only');
  });

  it('permission-response is user-only', () => {
    const issues = issuesOf(example('user:permission-response', { role: 'agent' }));
    expect(issues[0]!.path).toEqual(['role']);
    expect(issues[0]!.message).toContain('user only');
  });

  it('rejects an unknown role and an unknown type', () => {
    expectIssueAt(example('user:text', { role: 'system' }), ['role']);
    expectIssueAt(example('user:text', { type: 'plan' }), ['type']);
    expectIssueAt(example('user:text', { type: 'plan' }), ['type'], 'tolerant');
  });

  it('rejects values that are not objects', () => {
    for (const value of [null, undefined, 'text', 42, [], [example('user:text')]]) issuesOf(value);
  });
});

describe('message schemas: field types and ranges', () => {
  it.each([
    ['time', '1710000000000'],
    ['time', -1],
    ['time', 1.5],
    ['time', Number.MAX_SAFE_INTEGER + 2],
    ['time', Number.NaN],
    ['width', -1],
    ['width', 1920.5],
    ['width', '1920'],
    ['height', -1],
    ['height', 0.1],
    ['durationMs', -1],
    ['durationMs', 45000.5],
    ['size', -1],
    ['size', 1.5],
    ['size', Number.POSITIVE_INFINITY],
    ['size', '104857600'],
    ['mimeType', 'video'],
    ['mimeType', 'video/'],
    ['mimeType', '/mp4'],
    ['mimeType', 'video/mp4; codecs=avc1'],
    ['mimeType', 'video /mp4'],
    ['thumbhash', ''],
    ['thumbhash', '3OcRJYB4d3h_iIeHeEh3eIhw-j2w'],
    ['thumbhash', '3OcRJYB4d3h/iIeHeEh3eIhw+j2'],
    ['thumbhash', 'A'.repeat(132)],
    ['thumbhash', 42],
    ['ref', 'upload_vid789'],
    ['ref', 'media/'],
    ['ref', 'media/../secret'],
    ['ref', 'media/a/b'],
    ['ref', 'https://example.com/a.mp4'],
  ])('video with %s = %j is rejected at that path', (field, value) => {
    expectIssueAt(example('agent:video', { [field]: value }), [field]);
  });

  it('accepts zero sizes and dimensions, and any valid MIME type', () => {
    expectValid(example('agent:video', { width: 0, height: 0, durationMs: 0, size: 0 }));
    expectValid(example('agent:file', { mimeType: 'application/vnd.api+json' }));
    expectValid(example('agent:file', { mimeType: 'image/svg+xml' }));
    expectValid(example('agent:file', { size: Number.MAX_SAFE_INTEGER }));
  });

  it.each([
    ['name', ''],
    ['name', 'dir/report.pdf'],
    ['name', 'dir\\report.pdf'],
    ['name', '..'],
    ['name', '.'],
    ['name', 'report\u0000.pdf'],
    ['name', 'a'.repeat(256)],
  ])('file with %s = %j is rejected', (field, value) => {
    expectIssueAt(example('agent:file', { [field]: value }), [field]);
  });

  it('accepts ordinary file names', () => {
    for (const name of ['report (1).pdf', '.env', 'résumé.docx', 'a'.repeat(255), '日本語.txt']) {
      expectValid(example('agent:file', { name }));
    }
  });

  it('accepts the short ids of the design and cuid2, rejects empty, control and overlong ids', () => {
    for (const id of ['a1', 'msg_abc123', 'call_001', 'tz4a98xxat96iws9zmbrgj3a', 'toolu_01ABC-xyz']) {
      expectValid(example('user:text', { id }));
    }
    for (const field of ['id', 'turn', 'callId', 'parentId', 'agentId']) {
      for (const bad of ['', 'a\nb', 'a\u0007', 'x'.repeat(MAX_ID_LENGTH + 1), 7]) {
        expectIssueAt(example('agent:tool-call-start', { [field]: bad }), [field]);
      }
    }
    expectValid(example('agent:tool-call-start', { callId: 'x'.repeat(MAX_ID_LENGTH) }));
  });

  it('checks enums: turn status and permission kind', () => {
    expectIssueAt(example('agent:turn-end', { status: 'done' }), ['status']);
    for (const status of ['completed', 'failed', 'cancelled'])
      expectValid(example('agent:turn-end', { status }));
    const request = example('agent:permission-request');
    (request.options as Record<string, unknown>[])[1]!.kind = 'allow-forever';
    expectIssueAt(request, ['options', 1, 'kind']);
  });

  it('needs at least one permission option, with unique ids and all three option fields', () => {
    expectIssueAt(example('agent:permission-request', { options: [] }), ['options']);
    const duplicated = example('agent:permission-request', {
      options: [
        { id: 'x', label: 'Allow', kind: 'allow-once' },
        { id: 'x', label: 'Deny', kind: 'reject-once' },
      ],
    });
    expectIssueAt(duplicated, ['options', 1, 'id']);
    expectIssueAt(example('agent:permission-request', { options: [{ id: 'x', kind: 'allow-once' }] }), [
      'options',
      0,
      'label',
    ]);
  });

  it('needs args to be an object, not an array or null', () => {
    for (const args of [[], null, 'ls', 3])
      expectIssueAt(example('agent:tool-call-start', { args }), ['args']);
    expectValid(example('agent:tool-call-start', { args: {} }));
    expectValid(example('agent:tool-call-start', { args: { nested: { deep: [1, 2, { x: null }] } } }));
  });

  it('types thinking, text and error', () => {
    expectIssueAt(example('agent:text', { thinking: 'yes' }), ['thinking']);
    expectIssueAt(example('agent:text', { text: 42 }), ['text']);
    expectIssueAt(example('agent:tool-call-end', { error: { message: 'x' } }), ['error']);
    expectValid(example('user:text', { text: '' }));
  });

  it('reports every problem of a message at once', () => {
    const issues = issuesOf(example('agent:video', { width: -1, height: 1.5, size: '1' }));
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining([['width'], ['height'], ['size']]));
  });
});
