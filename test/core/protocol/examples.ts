/**
 * One valid example of every (role, type) pair, taken from the design's examples (figures, not corpus
 * files), for the schema, validator and fold tests.
 */
export const THUMBHASH = '3OcRJYB4d3h/iIeHeEh3eIhw+j2w';

export const EXAMPLES = {
  'agent:turn-start': {
    id: 'msg_abc123',
    time: 1710000000000,
    role: 'agent',
    type: 'turn-start',
    turn: 'turn_xyz789',
  },
  'agent:turn-end': {
    id: 'msg_abc124',
    time: 1710000010000,
    role: 'agent',
    type: 'turn-end',
    turn: 'turn_xyz789',
    status: 'completed',
  },
  'agent:text': {
    id: 'msg_abc125',
    time: 1710000000100,
    role: 'agent',
    type: 'text',
    turn: 'turn_xyz789',
    text: "I'll help you fix that bug.",
    thinking: false,
  },
  'user:text': { id: 'a1', time: 1000, role: 'user', type: 'text', text: 'Find TODOs' },
  'agent:tool-call-start': {
    id: 'msg_abc126',
    time: 1710000000200,
    role: 'agent',
    type: 'tool-call-start',
    turn: 'turn_xyz789',
    callId: 'call_001',
    toolName: 'bash',
    title: 'Run `ls -la`',
    description: 'List files in current directory',
    args: { command: 'ls -la' },
  },
  'agent:tool-call-end': {
    id: 'msg_abc127',
    time: 1710000000500,
    role: 'agent',
    type: 'tool-call-end',
    turn: 'turn_xyz789',
    callId: 'call_001',
    error: 'Command exited with code 1',
  },
  'agent:permission-request': {
    id: 'msg_abc128',
    time: 1710000000300,
    role: 'agent',
    type: 'permission-request',
    turn: 'turn_xyz789',
    callId: 'call_001',
    toolName: 'bash',
    title: 'Run `rm -rf node_modules`',
    description: 'Delete node_modules directory',
    args: { command: 'rm -rf node_modules' },
    options: [
      { id: 'allow-once', label: 'Allow once', kind: 'allow-once' },
      { id: 'allow-session', label: 'Allow for session', kind: 'allow-always' },
      { id: 'deny', label: 'Deny', kind: 'reject-once' },
      { id: 'deny-always', label: 'Always deny', kind: 'reject-always' },
    ],
  },
  'user:permission-response': {
    id: 'msg_user002',
    time: 1710000000400,
    role: 'user',
    type: 'permission-response',
    callId: 'call_001',
    optionId: 'allow-once',
  },
  'user:photo': {
    id: 'msg_abc132',
    time: 1710000000600,
    role: 'user',
    type: 'photo',
    ref: 'media/upload_abc123',
    thumbhash: THUMBHASH,
    width: 1920,
    height: 1080,
  },
  'agent:photo': {
    id: 'p2',
    time: 1710000000600,
    role: 'agent',
    type: 'photo',
    turn: 'turn_xyz789',
    ref: 'media/upload_abc124',
    thumbhash: THUMBHASH,
    width: 1920,
    height: 1080,
  },
  'agent:video': {
    id: 'msg_abc134',
    time: 1710000000800,
    role: 'agent',
    type: 'video',
    turn: 'turn_xyz789',
    ref: 'media/upload_vid789',
    thumbhash: THUMBHASH,
    width: 1920,
    height: 1080,
    durationMs: 45000,
    mimeType: 'video/mp4',
    size: 104857600,
  },
  'user:video': {
    id: 'v2',
    time: 1710000000800,
    role: 'user',
    type: 'video',
    ref: 'media/upload_vid790',
    thumbhash: THUMBHASH,
    width: 1080,
    height: 1920,
    durationMs: 0,
    mimeType: 'video/quicktime',
    size: 0,
  },
  'agent:file': {
    id: 'msg_abc133',
    time: 1710000000700,
    role: 'agent',
    type: 'file',
    turn: 'turn_xyz789',
    ref: 'media/upload_def456',
    name: 'report.pdf',
    size: 104857600,
    mimeType: 'application/pdf',
  },
  'user:file': {
    id: 'f2',
    time: 1710000000700,
    role: 'user',
    type: 'file',
    ref: 'machine-file:///home/me/notes.txt',
    name: 'notes.txt',
    size: 12,
    mimeType: 'text/plain',
  },
  'agent:service': {
    id: 'msg_abc131',
    time: 1710000000050,
    role: 'agent',
    type: 'service',
    turn: 'turn_xyz789',
    text: 'Context window compacted',
  },
} as const satisfies Record<string, Record<string, unknown>>;

export type ExampleKey = keyof typeof EXAMPLES;

/** A mutable deep copy of an example, with overrides (`undefined` deletes a field). */
export function example(key: ExampleKey, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const copy = structuredClone(EXAMPLES[key]) as Record<string, unknown>;
  for (const [field, value] of Object.entries(overrides)) {
    if (value === undefined) delete copy[field];
    else copy[field] = value;
  }
  return copy;
}
