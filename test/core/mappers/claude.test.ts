import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { equalBytes } from '../../../src/core/bytes.js';
import { toBase64 } from '../../../src/envelope.js';
import type { AgentMapperOptions, SessionMessage } from '../../../src/index.js';
import { CALL_UNFINISHED_ERROR } from '../../../src/mappers.js';
import { mapValid, recordingMediaHandler } from '../../helpers/mappers.js';
import {
  assistant,
  canUseTool,
  image,
  permissionAnswer,
  prompt,
  REJECTED,
  resetFixtures,
  sdk,
  text,
  thinking,
  toolResult,
  toolUse,
  userBlocks,
} from './claude-fixtures.js';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70]);

const map = (events: unknown[], options: AgentMapperOptions = {}) => mapValid('claude', events, options);

function brief(m: SessionMessage): string {
  switch (m.type) {
    case 'text':
      return `${m.role}:${'thinking' in m && m.thinking ? 'thinking' : 'text'} ${m.text}`;
    case 'tool-call-start':
      return `start ${m.callId} ${m.title}`;
    case 'tool-call-end':
      return `end ${m.callId}${m.error === undefined ? '' : ` error=${m.error.slice(0, 20)}`}`;
    case 'turn-end':
      return `turn-end ${m.status}`;
    case 'permission-request':
      return `ask ${m.callId}`;
    case 'permission-response':
      return `answer ${m.callId} ${m.optionId}`;
    case 'service':
      return `service ${m.text}`;
    case 'photo':
    case 'file':
      return `${m.role}:${m.type}${m.parentId ? ` in ${m.parentId}` : ''}`;
    default:
      return m.type;
  }
}

beforeEach(resetFixtures);

describe('Claude mapper: session JSONL', () => {
  it('maps a turn: prompt, thinking, text, a tool call with its result, and the next prompt ends it', async () => {
    const { messages, skipped } = await map([
      prompt('List the files'),
      assistant('msg_1', [thinking('The user wants ls.')]),
      assistant('msg_1', [text("I'll list them.")]),
      assistant('msg_1', [toolUse('toolu_1', 'Bash', { command: 'ls -la', description: 'List files' })]),
      userBlocks([toolResult('toolu_1', 'a.txt\nb.txt')]),
      assistant('msg_2', [text('Two files.')]),
      prompt('thanks'),
    ]);
    expect(messages.map(brief)).toEqual([
      'user:text List the files',
      'turn-start',
      'agent:thinking The user wants ls.',
      "agent:text I'll list them.",
      'start toolu_1 Run `ls -la`',
      'end toolu_1',
      'agent:text Two files.',
      'turn-end completed',
      'user:text thanks',
    ]);
    expect(messages[4]).toMatchObject({
      toolName: 'Bash',
      description: 'List files',
      args: { command: 'ls -la' },
    });
    // Provider times are kept.
    expect(messages[0]!.time).toBe(Date.parse('2025-08-01T10:00:01.000Z'));
    expect(skipped.total).toBe(0);
  });

  it('maps parallel calls and their batched results, with error on is_error', async () => {
    const { messages } = await map([
      prompt('Read three files'),
      assistant('msg_1', [toolUse('toolu_a', 'Read', { file_path: '/p/src/a.ts' })]),
      assistant('msg_1', [toolUse('toolu_b', 'Grep', { pattern: 'TODO', path: '/p' })]),
      assistant('msg_1', [toolUse('toolu_c', 'Glob', { pattern: '**/*.md' })]),
      userBlocks([
        toolResult('toolu_c', 'README.md'),
        toolResult('toolu_a', [text('export {}')]),
        toolResult('toolu_b', 'No such directory', true),
      ]),
    ]);
    expect(messages.map(brief)).toEqual([
      'user:text Read three files',
      'turn-start',
      'start toolu_a Read `…/src/a.ts`',
      'start toolu_b Search for `TODO`',
      'start toolu_c Find files `**/*.md`',
      'end toolu_c',
      'end toolu_a',
      'end toolu_b error=No such directory',
      'turn-end completed',
    ]);
  });

  it('writes what Claude Code wrote twice once: the same line, and the same block under a new uuid', async () => {
    const first = assistant('msg_1', [text('lol')]);
    const { messages, skipped } = await map([
      prompt('Say lol'),
      first,
      first,
      assistant('msg_1', [text('lol')]),
      assistant('msg_1', [toolUse('toolu_1', 'LS', { path: '/p' })]),
      assistant('msg_2', [toolUse('toolu_1', 'LS', { path: '/p' })]),
      userBlocks([toolResult('toolu_1', 'x')]),
      userBlocks([toolResult('toolu_1', 'x')]),
    ]);
    expect(messages.filter((m) => m.type === 'text' && m.role === 'agent')).toHaveLength(1);
    expect(messages.filter((m) => m.type === 'tool-call-start')).toHaveLength(1);
    expect(messages.filter((m) => m.type === 'tool-call-end')).toHaveLength(1);
    expect(skipped.byReason).toEqual({ duplicate: 4 });
  });

  it('writes each text and thinking block of a message once, whatever their order, kind and size', async () => {
    // Blocks drawn from a few texts (one of 64 KiB, and two that differ only in their last character) over
    // a few messages, each line possibly written again: what is written is each distinct (message, kind,
    // text) once, in order of first appearance.
    const long = 'x'.repeat(64 * 1024);
    const texts = ['lol', 'LOL', `${long}a`, `${long}b`, 'a longer answer, with a comma'];
    const blockArb = fc.record({
      message: fc.constantFrom('msg_1', 'msg_2', 'msg_3'),
      thinking: fc.boolean(),
      text: fc.constantFrom(...texts),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(blockArb, { minLength: 1, maxLength: 40 }), async (blocks) => {
        resetFixtures();
        const { messages, skipped } = await map([
          prompt('Say it'),
          ...blocks.map((b) => assistant(b.message, [b.thinking ? thinking(b.text) : text(b.text)])),
        ]);
        const firsts = new Map<string, (typeof blocks)[number]>();
        for (const b of blocks) {
          const key = `${b.message}\u0000${b.thinking}\u0000${b.text}`;
          if (!firsts.has(key)) firsts.set(key, b);
        }
        const written = messages.filter((m) => m.type === 'text' && m.role === 'agent');
        expect(
          written.map((m) => `${'thinking' in m && m.thinking === true}:${m.text.length}:${m.text.at(-1)}`),
        ).toEqual([...firsts.values()].map((b) => `${b.thinking}:${b.text.length}:${b.text.at(-1)}`));
        expect(skipped.byReason.duplicate ?? 0).toBe(blocks.length - firsts.size);
      }),
      { numRuns: 150 },
    );
  });

  it('remembers a bounded number of blocks per message: a hostile message of 10,000 blocks is written whole', async () => {
    const blocks = Array.from({ length: 10_000 }, (_, i) => assistant('msg_1', [text(`block ${i}`)]));
    const { messages, skipped } = await map([prompt('Go'), ...blocks]);
    expect(messages.filter((m) => m.type === 'text' && m.role === 'agent')).toHaveLength(10_000);
    expect(skipped.total).toBe(0);
  });

  it('maps an interrupt to a service note and a cancelled turn, closing open calls', async () => {
    const { messages } = await map([
      prompt('Write a file'),
      assistant('msg_1', [toolUse('toolu_1', 'Write', { file_path: '/p/lol.txt', content: 'x' })]),
      assistant('msg_1', [toolUse('toolu_2', 'Bash', { command: 'sleep 100' })]),
      userBlocks([toolResult('toolu_1', '[Request interrupted by user for tool use]', true)]),
      userBlocks([text('[Request interrupted by user for tool use]')]),
      prompt('[Request interrupted by user]'),
    ]);
    expect(messages.map(brief)).toEqual([
      'user:text Write a file',
      'turn-start',
      'start toolu_1 Write `/p/lol.txt`',
      'start toolu_2 Run `sleep 100`',
      'end toolu_1 error=[Request interrupted',
      'service Interrupted by the user',
      `end toolu_2 error=${CALL_UNFINISHED_ERROR.slice(0, 20)}`,
      'turn-end cancelled',
      'service Interrupted by the user',
    ]);
  });

  it('maps API errors, compaction and goal status to service messages', async () => {
    const { messages, skipped } = await map([
      { type: 'summary', summary: 'A session', leafUuid: 'x' },
      prompt('hi'),
      {
        ...assistant('a-synthetic', [text("You've hit your limit")]),
        isApiErrorMessage: true,
        error: 'rate_limit',
        apiErrorStatus: 429,
      },
      {
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        compactMetadata: { trigger: 'auto', preTokens: 155000 },
        uuid: 's1',
      },
      {
        ...prompt('This session is being continued from a previous conversation...'),
        isCompactSummary: true,
      },
      { ...prompt('<command-name>/cost</command-name>'), isMeta: true },
      {
        type: 'attachment',
        uuid: 'g1',
        attachment: { type: 'goal_status', met: false, sentinel: true, condition: 'ship it' },
      },
      {
        type: 'attachment',
        uuid: 'g2',
        attachment: { type: 'goal_status', met: true, condition: 'ship it', reason: 'done' },
      },
      {
        type: 'attachment',
        uuid: 'g3',
        attachment: { type: 'goal_status', met: true, sentinel: true, condition: 'ship it' },
      },
      { type: 'file-history-snapshot', messageId: 'm' },
    ]);
    expect(messages.map(brief)).toEqual([
      'user:text hi',
      'turn-start',
      "service API error (rate_limit, HTTP 429): You've hit your limit",
      'turn-end failed',
      'service Context compacted (auto, 155,000 tokens before)',
      'service Goal set: ship it',
      'service Goal met: ship it\n\ndone',
      'service Goal cleared: ship it',
    ]);
    expect(skipped.byReason).toEqual({ 'not-displayed': 4 });
  });
});

describe('Claude mapper: subagents', () => {
  it('attributes sidechain messages to the Task that spawned them (by prompt, then by parentUuid)', async () => {
    const { messages } = await map([
      prompt('Research two things'),
      assistant('msg_1', [
        toolUse('task_a', 'Task', {
          description: 'Auth research',
          prompt: 'Find auth code',
          subagent_type: 'general-purpose',
        }),
      ]),
      assistant('msg_1', [toolUse('task_b', 'Task', { description: 'DB research', prompt: 'Find db code' })]),
      prompt('Find db code', { sidechain: true, uuid: 'b1' }),
      prompt('Find auth code', { sidechain: true, uuid: 'a1' }),
      assistant('msg_b', [toolUse('toolu_b1', 'Grep', { pattern: 'db' })], {
        sidechain: true,
        parentUuid: 'b1',
        uuid: 'b2',
      }),
      assistant('msg_a', [text('Looking at src/auth')], { sidechain: true, parentUuid: 'a1', uuid: 'a2' }),
      userBlocks([toolResult('toolu_b1', 'db.ts')], { sidechain: true, parentUuid: 'b2', uuid: 'b3' }),
      assistant('msg_b2', [text('Found db.ts')], { sidechain: true, parentUuid: 'b3', uuid: 'b4' }),
      userBlocks([toolResult('task_a', 'auth done'), toolResult('task_b', 'db done')]),
    ]);
    const start = messages.find((m) => m.type === 'tool-call-start' && m.callId === 'task_a');
    expect(start).toMatchObject({ title: 'Auth research', agentTitle: 'Auth research', toolName: 'Task' });
    const agentOf = (parent: string) => messages.find((m) => m.parentId === parent)!.agentId;
    const [agentA, agentB] = [agentOf('task_a'), agentOf('task_b')];
    expect(agentA).toBeDefined();
    expect(agentA).not.toBe(agentB);
    const sub = messages
      .filter((m) => m.parentId !== undefined)
      .map((m) => `${m.parentId}/${m.agentId === agentA ? 'A' : 'B'} ${brief(m)}`);
    expect(sub).toEqual([
      'task_b/B agent:text Find db code',
      'task_a/A agent:text Find auth code',
      'task_b/B start toolu_b1 Search for `db`',
      'task_a/A agent:text Looking at src/auth',
      'task_b/B end toolu_b1',
      'task_b/B agent:text Found db.ts',
    ]);
    // The spawning call's end is the parent agent's: no agentId.
    expect(messages.find((m) => m.type === 'tool-call-end' && m.callId === 'task_a')).not.toHaveProperty(
      'agentId',
    );
  });

  it('SDK: parent_tool_use_id attributes, and messages that came before their Task wait for it', async () => {
    const { messages } = await map([
      { type: 'system', subtype: 'init', session_id: 's', tools: [] },
      sdk('user', 'Search twice'),
      // The subagent's first message arrives before the assistant message that starts its Task.
      sdk('assistant', [text('sub: starting')], 'task_1'),
      sdk('assistant', [toolUse('task_1', 'Agent', { description: 'Searcher', prompt: 'Search' })]),
      sdk('assistant', [toolUse('toolu_s', 'WebSearch', { query: 'vitest' })], 'task_1'),
      sdk('user', [toolResult('toolu_s', 'results')], 'task_1'),
      // A subagent of the subagent.
      sdk('assistant', [toolUse('task_2', 'Task', { description: 'Inner', prompt: 'Deeper' })], 'task_1'),
      sdk('assistant', [text('inner says hi')], 'task_2'),
      sdk('user', [toolResult('task_2', 'inner done')], 'task_1'),
      sdk('user', [toolResult('task_1', 'done')]),
      { type: 'result', subtype: 'success', is_error: false, result: 'done', session_id: 's' },
    ]);
    expect(messages.map((m) => `${m.parentId ?? '-'} ${brief(m)}`)).toEqual([
      '- user:text Search twice',
      '- turn-start',
      '- start task_1 Searcher',
      'task_1 agent:text sub: starting',
      'task_1 start toolu_s Search the web for `vitest`',
      'task_1 end toolu_s',
      'task_1 start task_2 Inner',
      'task_2 agent:text inner says hi',
      'task_1 end task_2',
      '- end task_1',
      '- turn-end completed',
    ]);
    const inner = messages.find((m) => m.type === 'tool-call-start' && m.callId === 'task_2')!;
    const deeper = messages.find((m) => m.type === 'text' && m.parentId === 'task_2')!;
    expect(inner.agentId).toBeDefined();
    expect(deeper.agentId).toBeDefined();
    expect(deeper.agentId).not.toBe(inner.agentId);
  });

  it("orders what Happy's stored records hold out of order: a result before its call, a sidechain line before the one it continues", async () => {
    const task = assistant('m1', [toolUse('task', 'Task', { description: 'Look', prompt: 'Look around' })]);
    const root = prompt('Look around', { sidechain: true, uuid: 's1' });
    const call = assistant('ms', [toolUse('toolu_s', 'LS', { path: '/p' })], {
      sidechain: true,
      parentUuid: 's1',
      uuid: 's2',
    });
    const result = userBlocks([toolResult('toolu_s', 'a b')], {
      sidechain: true,
      parentUuid: 's2',
      uuid: 's3',
    });
    const summary = assistant('ms2', [text('Two files.')], { sidechain: true, parentUuid: 's3', uuid: 's4' });
    const { messages, skipped } = await map([
      prompt('go'),
      task,
      summary,
      result,
      call,
      root,
      userBlocks([toolResult('task', 'done')]),
    ]);
    expect(messages.map((m) => `${m.parentId ?? '-'} ${brief(m)}`)).toEqual([
      '- user:text go',
      '- turn-start',
      '- start task Look',
      'task agent:text Look around',
      'task start toolu_s List `/p`',
      'task end toolu_s',
      'task agent:text Two files.',
      '- end task',
      '- turn-end completed',
    ]);
    expect(skipped.total).toBe(0);
  });

  it('writes subagent messages whose Task never came under their agent, without parentId', async () => {
    const { messages, skipped } = await map([
      sdk('user', 'go'),
      sdk('assistant', [text('orphan')], 'task_x'),
    ]);
    const orphan = messages.find((m) => m.type === 'text' && m.role === 'agent')!;
    expect(orphan).not.toHaveProperty('parentId');
    expect(orphan.agentId).toBeDefined();
    expect(skipped.byReason).toEqual({});
  });
});

describe('Claude mapper: permissions', () => {
  it('maps can_use_tool requests and the answers, between start and end', async () => {
    const { messages } = await map([
      sdk('user', 'Clean up'),
      sdk('assistant', [toolUse('toolu_1', 'Bash', { command: 'rm -rf dist' })]),
      canUseTool('r1', 'Bash', { command: 'rm -rf dist' }, 'toolu_1'),
      permissionAnswer('r1', 'allow', true),
      sdk('user', [toolResult('toolu_1', '')]),
      sdk('assistant', [toolUse('toolu_2', 'Write', { file_path: '/p/x' })]),
      canUseTool('r2', 'Write', { file_path: '/p/x' }),
      permissionAnswer('r2', 'deny'),
      sdk('user', [toolResult('toolu_2', REJECTED, true)]),
      { type: 'result', subtype: 'success', is_error: false, result: '' },
    ]);
    expect(messages.map(brief)).toEqual([
      'user:text Clean up',
      'turn-start',
      'start toolu_1 Run `rm -rf dist`',
      'ask toolu_1',
      'answer toolu_1 allow-always',
      'end toolu_1',
      'start toolu_2 Write `/p/x`',
      'ask toolu_2',
      'answer toolu_2 reject-once',
      `end toolu_2 error=${REJECTED.slice(0, 20)}`,
      'turn-end completed',
    ]);
    expect(messages[3]).toMatchObject({
      toolName: 'Bash',
      title: 'Run `rm -rf dist`',
      options: [
        { id: 'allow-once', kind: 'allow-once' },
        { id: 'allow-always', kind: 'allow-always' },
        { id: 'reject-once', kind: 'reject-once' },
      ],
    });
  });

  it('infers the answer from the result when only the request was recorded; synthesizes a rejection seen only in the result', async () => {
    const { messages } = await map([
      sdk('user', 'go'),
      canUseTool('r1', 'Edit', { file_path: '/p/a' }, 'toolu_1'),
      sdk('assistant', [toolUse('toolu_1', 'Edit', { file_path: '/p/a' })]),
      sdk('user', [toolResult('toolu_1', 'ok')]),
      sdk('assistant', [toolUse('toolu_2', 'Edit', { file_path: '/p/b' })]),
      sdk('user', [toolResult('toolu_2', REJECTED, true)]),
      sdk('assistant', [toolUse('toolu_3', 'Bash', { command: 'x' })]),
      canUseTool('r3', 'Bash', { command: 'x' }, 'toolu_3'),
      {
        type: 'result',
        subtype: 'success',
        is_error: false,
        permission_denials: [{ tool_name: 'Bash', tool_use_id: 'toolu_3', tool_input: {} }],
      },
    ]);
    expect(messages.map(brief)).toEqual([
      'user:text go',
      'turn-start',
      'start toolu_1 Edit `/p/a`',
      'ask toolu_1',
      'answer toolu_1 allow-once',
      'end toolu_1',
      'start toolu_2 Edit `/p/b`',
      'ask toolu_2',
      'answer toolu_2 reject-once',
      `end toolu_2 error=${REJECTED.slice(0, 20)}`,
      'start toolu_3 Run `x`',
      'ask toolu_3',
      'answer toolu_3 reject-once',
      `end toolu_3 error=${CALL_UNFINISHED_ERROR.slice(0, 20)}`,
      'turn-end completed',
    ]);
  });

  it("reads older Happy CLIs' denial text as a rejection", async () => {
    const { messages } = await map([
      prompt('write it'),
      assistant('m', [toolUse('toolu_1', 'Write', { file_path: '/p/x' })]),
      userBlocks([toolResult('toolu_1', 'Permission denied by user', true)]),
    ]);
    expect(messages.map(brief).slice(3, 5)).toEqual(['ask toolu_1', 'answer toolu_1 reject-once']);
  });

  it('matches a request without tool_use_id to the newest open call of that tool; counts the rest', async () => {
    const { messages, skipped } = await map([
      sdk('user', 'go'),
      sdk('assistant', [toolUse('toolu_1', 'Bash', { command: 'a' })]),
      canUseTool('r1', 'Bash', { command: 'a' }),
      canUseTool('r2', 'Write', {}),
      permissionAnswer('r9', 'allow'),
      { type: 'control_response', response: { subtype: 'error', request_id: 'r1', error: 'x' } },
      permissionAnswer('r1', 'allow'),
    ]);
    expect(messages.map(brief).slice(2, 5)).toEqual([
      'start toolu_1 Run `a`',
      'ask toolu_1',
      'answer toolu_1 allow-once',
    ]);
    expect(skipped.byReason).toEqual({ 'unmatched-permission': 2, 'not-displayed': 1 });
  });
});

describe('Claude mapper: media', () => {
  it('uploads prompt images and tool-result images (with or without media_type) before what refers to them', async () => {
    const { handler, uploads } = recordingMediaHandler();
    const { messages } = await map(
      [
        userBlocks([image(toBase64(PNG), 'image/png'), text("What's in this screenshot?")]),
        assistant('msg_1', [toolUse('toolu_1', 'Read', { file_path: '/p/shot.jpg' })]),
        userBlocks([toolResult('toolu_1', [image(toBase64(JPEG))])]),
        assistant('msg_2', [toolUse('task', 'Task', { description: 'Look', prompt: 'Look closer' })]),
        prompt('Look closer', { sidechain: true, uuid: 's1' }),
        assistant('msg_s', [toolUse('toolu_s', 'mcp__shots__capture', {})], {
          sidechain: true,
          parentUuid: 's1',
          uuid: 's2',
        }),
        userBlocks([toolResult('toolu_s', [text('captured'), image(toBase64(PNG), 'image/jpeg')])], {
          sidechain: true,
          parentUuid: 's2',
          uuid: 's3',
        }),
        userBlocks([toolResult('task', 'done')]),
      ],
      { media: handler },
    );
    expect(messages.map(brief)).toEqual([
      'user:photo',
      "user:text What's in this screenshot?",
      'turn-start',
      'start toolu_1 Read `/p/shot.jpg`',
      'agent:photo in toolu_1',
      'end toolu_1',
      'start task Look',
      'agent:text Look closer',
      'start toolu_s Call `capture` (shots)',
      'agent:photo in toolu_s',
      'end toolu_s',
      'end task',
      'turn-end completed',
    ]);
    expect(uploads.map((u) => [u.mimeType, u.role, u.bytes.length])).toEqual([
      ['image/png', 'user', PNG.length],
      ['image/jpeg', 'agent', JPEG.length],
      ['image/png', 'agent', PNG.length],
    ]);
    const subPhoto = messages[9]!;
    expect(subPhoto.agentId).toBe(messages[8]!.agentId);
    expect(subPhoto.agentId).toBeDefined();
  });

  it('a 20 MB base64 image is uploaded whole under the default limit, and is a counted skip under a lower one', async () => {
    const big = new Uint8Array(15 * 1024 * 1024);
    big.set(PNG);
    for (let i = PNG.length; i < big.length; i += 4093) big[i] = i & 0xff;
    const data = toBase64(big);
    expect(data.length).toBeGreaterThanOrEqual(20 * 1024 * 1024);
    const events = [
      prompt('go'),
      assistant('m', [toolUse('t', 'Screenshot', {})]),
      userBlocks([toolResult('t', [image(data, 'image/png')])]),
    ];
    const { handler, uploads } = recordingMediaHandler();
    const whole = await map(events, { media: handler });
    expect(whole.messages.some((m) => m.type === 'photo')).toBe(true);
    expect(equalBytes(uploads[0]!.bytes, big)).toBe(true);
    resetFixtures();
    const limited = await map(events, { media: handler, maxMediaBytes: 8 * 1024 * 1024 });
    expect(limited.skipped.byReason).toEqual({ 'media-too-large': 1 });
    expect(limited.messages.find((m) => m.type === 'service')).toMatchObject({ parentId: 't' });
  });

  it('invalid base64 and URL images are counted, never thrown', async () => {
    const { handler } = recordingMediaHandler();
    const { messages, skipped } = await map(
      [
        userBlocks([
          image('%%%not-base64%%%', 'image/png'),
          { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
          text('see'),
        ]),
      ],
      { media: handler },
    );
    expect(messages.map(brief)).toEqual([
      'service An image could not be read (its data is not valid base64); it was not uploaded',
      'user:text see',
    ]);
    expect(skipped.byReason).toEqual({ 'invalid-media': 1, 'unsupported-content': 1 });
  });
});

describe('Claude mapper: bad input', () => {
  it('counts unknown, malformed and out-of-place events and keeps the stream valid', async () => {
    const { messages, skipped } = await map([
      prompt('go'),
      assistant('m0', [text('working')]),
      null,
      'a string',
      { no: 'type' },
      { type: 'future_event' },
      { type: 'assistant', uuid: 'x1' },
      { type: 'user', uuid: 'x2', message: { role: 'user' } },
      assistant('m', ['not a block' as never, { type: 'tool_use', id: 'toolu_x' }, { type: 'mystery' }]),
      userBlocks([toolResult('toolu_never', 'orphan result'), { type: 'tool_result' }]),
      { type: 'result', subtype: 'error_max_turns' },
      { type: 'result', subtype: 'success' },
    ]);
    expect(messages.map(brief)).toEqual([
      'user:text go',
      'turn-start',
      'agent:text working',
      'service Stopped: the maximum number of turns was reached',
      'turn-end failed',
    ]);
    expect(skipped.byReason).toEqual({
      'unknown-event': 4,
      'malformed-event': 5,
      'unsupported-content': 1,
      'unknown-call': 1,
      'not-displayed': 1,
    });
  });
});

describe('Claude mapper: newer Claude Code records', () => {
  it("keeps an image pasted into a slash command (isMeta expansion) as the user's photo, its text hidden", async () => {
    const { handler, uploads } = recordingMediaHandler();
    const command = prompt(
      '<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>[Image #1] why is this button grey?</command-args>',
    );
    const expansion = {
      ...userBlocks(
        [
          text(
            'Review the screenshot the user gives and explain what is wrong.\n\nARGUMENTS: [Image #1] why is this button grey?',
          ),
          image(toBase64(PNG), 'image/png'),
        ],
        { parentUuid: command.uuid as string },
      ),
      isMeta: true,
    };
    const { messages, skipped } = await map(
      [command, expansion, assistant('msg_1', [text('It is disabled.')])],
      {
        media: handler,
      },
    );
    expect(messages.map(brief)).toEqual([
      expect.stringMatching(/^user:text <command-message>review is running/),
      'user:photo',
      'turn-start',
      'agent:text It is disabled.',
      'turn-end completed',
    ]);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatchObject({ role: 'user', mimeType: 'image/png' });
    expect(equalBytes(uploads[0]!.bytes, PNG)).toBe(true);
    expect(JSON.stringify(messages)).not.toContain('Review the screenshot');
    expect(skipped.byReason).toEqual({ 'not-displayed': 1 });
    // A context message without media stays hidden as before.
    const hidden = await map([
      { ...prompt('Caveat: the messages below were generated by the user'), isMeta: true },
    ]);
    expect(hidden.messages).toEqual([]);
    expect(hidden.skipped.byReason).toEqual({ 'not-displayed': 1 });
  });

  it('writes a turn that was only an interrupt as an empty cancelled turn', async () => {
    const { messages, skipped } = await map([
      prompt('Refactor the parser'),
      userBlocks([text('[Request interrupted by user]')]),
      {
        type: 'result',
        subtype: 'error_during_execution',
        is_error: true,
        session_id: 'session-1',
        errors: [],
      },
      prompt('Only rename the file'),
      assistant('msg_1', [text('Renamed.')]),
    ]);
    expect(messages.map(brief)).toEqual([
      'user:text Refactor the parser',
      'turn-start',
      'service Interrupted by the user',
      'turn-end cancelled',
      'user:text Only rename the file',
      'turn-start',
      'agent:text Renamed.',
      'turn-end completed',
    ]);
    expect(skipped.byReason).toEqual({ 'not-displayed': 1 });
  });

  it('writes a prompt that failed before any answer as a failed turn', async () => {
    const { messages } = await map([
      prompt('Summarise the repository'),
      { type: 'result', subtype: 'error_max_budget_usd', is_error: true, session_id: 'session-1' },
    ]);
    expect(messages.map(brief)).toEqual([
      'user:text Summarise the repository',
      'turn-start',
      'service Stopped: the budget was reached',
      'turn-end failed',
    ]);
  });

  it('does not display rate_limit_event, task_started and task_progress; notes a conversation_reset', async () => {
    const { messages, skipped } = await map([
      sdk('assistant', [text('Working on it.')]),
      {
        type: 'rate_limit_event',
        rate_limit_info: {
          status: 'allowed_warning',
          resetsAt: 1771390800,
          rateLimitType: 'five_hour',
          utilization: 0.91,
        },
        uuid: '76258cfb-0dc8-4d4b-8682-77082b59c03f',
        session_id: 'session-1',
      },
      { type: 'result', subtype: 'success', is_error: false, session_id: 'session-1' },
      { type: 'conversation_reset', session_id: 'session-1' },
      {
        type: 'result',
        subtype: 'success',
        is_error: false,
        num_turns: 0,
        result: '',
        session_id: 'session-1',
      },
    ]);
    expect(messages.map(brief)).toEqual([
      'turn-start',
      'agent:text Working on it.',
      'turn-end completed',
      'service Conversation cleared: the agent starts again from an empty context',
    ]);
    expect(skipped.byReason).toEqual({ 'not-displayed': 2 });
  });

  it('notes the end of a background task, and not a task whose call is still running', async () => {
    const { messages, skipped } = await map([
      sdk('assistant', [
        toolUse('toolu_agent', 'Agent', { description: 'Inspect tests', prompt: 'Read the tests' }),
      ]),
      {
        type: 'system',
        subtype: 'task_started',
        task_id: 'task-1',
        tool_use_id: 'toolu_agent',
        description: 'Inspect tests',
        task_type: 'local_agent',
        session_id: 'session-1',
      },
      {
        type: 'system',
        subtype: 'task_progress',
        task_id: 'task-1',
        tool_use_id: 'toolu_agent',
        description: 'Reading',
        session_id: 'session-1',
      },
      {
        type: 'system',
        subtype: 'task_notification',
        task_id: 'task-1',
        tool_use_id: 'toolu_agent',
        status: 'completed',
        output_file: '',
        summary: 'Tests are clean.',
        session_id: 'session-1',
      },
      sdk('user', [toolResult('toolu_agent', 'Tests are clean.')]),
      sdk('assistant', [toolUse('toolu_bg', 'Bash', { command: 'npm run build', run_in_background: true })]),
      sdk('user', [toolResult('toolu_bg', 'Command running in background with ID: b1')]),
      {
        type: 'system',
        subtype: 'task_notification',
        task_id: 'b1',
        tool_use_id: 'toolu_bg',
        status: 'failed',
        output_file: '/tmp/b1.output',
        summary: 'npm run build exited with code 1',
        session_id: 'session-1',
      },
      {
        type: 'system',
        subtype: 'task_notification',
        task_id: 'b2',
        status: 'stopped',
        output_file: '',
        summary: 'sleep 60',
        session_id: 'session-1',
      },
    ]);
    expect(messages.map(brief)).toEqual([
      'turn-start',
      'start toolu_agent Inspect tests',
      'end toolu_agent',
      'start toolu_bg Run `npm run build`',
      'end toolu_bg',
      'service Background task failed: npm run build exited with code 1',
      'service Background task was stopped: sleep 60',
      'turn-end completed',
    ]);
    expect(skipped.byReason).toEqual({ 'not-displayed': 3 });
  });

  it('maps the advisor server tool: server_tool_use starts it, advisor_tool_result ends it (with the error code when it failed)', async () => {
    const { messages, skipped } = await map([
      prompt('Design the worker pool'),
      assistant('msg_1', [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'advisor', input: {} }]),
      assistant('msg_1', [
        {
          type: 'advisor_tool_result',
          tool_use_id: 'srvtoolu_1',
          content: { type: 'advisor_result', text: 'Use a bounded queue.' },
        },
      ]),
      assistant('msg_1', [{ type: 'server_tool_use', id: 'srvtoolu_2', name: 'advisor', input: {} }]),
      assistant('msg_1', [
        {
          type: 'advisor_tool_result',
          tool_use_id: 'srvtoolu_2',
          content: { type: 'advisor_redacted_result' },
        },
      ]),
      assistant('msg_1', [{ type: 'server_tool_use', id: 'srvtoolu_3', name: 'advisor', input: {} }]),
      assistant('msg_1', [
        {
          type: 'advisor_tool_result',
          tool_use_id: 'srvtoolu_3',
          content: { type: 'advisor_tool_result_error', error_code: 'too_many_requests' },
        },
      ]),
      assistant('msg_1', [text('A bounded queue with four workers.')]),
    ]);
    expect(messages.map(brief)).toEqual([
      'user:text Design the worker pool',
      'turn-start',
      'start srvtoolu_1 Consult the advisor',
      'end srvtoolu_1',
      'start srvtoolu_2 Consult the advisor',
      'end srvtoolu_2',
      'start srvtoolu_3 Consult the advisor',
      'end srvtoolu_3 error=too_many_requests',
      'agent:text A bounded queue with four workers.',
      'turn-end completed',
    ]);
    expect(skipped.total).toBe(0);
  });
});
