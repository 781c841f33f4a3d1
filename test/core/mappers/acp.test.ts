/**
 * The ACP mapper over its fixtures (a prompt turn with parallel calls, permissions and images; cancel,
 * error and max_tokens turns; a session/load replay): each maps to a valid stream with nothing lost —
 * every text joined from its chunks, every call's start and end, every permission and answer, every
 * image and embedded file (uploaded byte for byte, `parentId` = the producing call). Then the
 * decisions one by one, and bad input: a counted skip, never a throw or an invalid stream.
 */
import { describe, expect, it } from 'vitest';
import { acpProvider } from '../../../src/core/mappers/acp/acp-provider.js';
import { createAgentMapper } from '../../../src/index.js';
import { base64Bytes, readFixture, summarize } from '../../helpers/mapped-stream.js';
import { mapValid, recordingMediaHandler, sequentialIds, steppingClock } from '../../helpers/mappers.js';

async function map(events: unknown[], extra: { maxMediaBytes?: number } = {}) {
  const media = recordingMediaHandler();
  const output = await mapValid('acp', events, {
    media: media.handler,
    clock: steppingClock(),
    createId: sequentialIds(),
    ...extra,
  });
  return { ...output, uploads: media.uploads, summary: summarize(output.messages) };
}

const S = 'sess_1';
const update = (u: object) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId: S, update: u },
});
const prompt = (id: number, text: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'session/prompt',
  params: { sessionId: S, prompt: [{ type: 'text', text }] },
});
const stop = (id: number, stopReason = 'end_turn') => ({ jsonrpc: '2.0', id, result: { stopReason } });
const chunk = (text: string, messageId?: string, kind = 'agent_message_chunk') =>
  update({ sessionUpdate: kind, ...(messageId ? { messageId } : {}), content: { type: 'text', text } });

/** Every base64 `data` of an image block anywhere in `value`, in document order. */
function imagesIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(imagesIn);
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  const own = record.type === 'image' && typeof record.data === 'string' ? [record.data] : [];
  return [...own, ...Object.values(record).flatMap(imagesIn)];
}

describe('acp: registered', () => {
  it('is the provider `acp` and reads legacy `acp` records', () => {
    expect(createAgentMapper('acp').provider).toBe('acp');
    expect(acpProvider.legacyContentType).toBe('acp');
  });
});

describe('acp fixtures', () => {
  it('prompt turn: joined chunks, parallel calls, permissions, media, plans', async () => {
    const events = readFixture('acp/prompt-turn.jsonl');
    const { summary, uploads, messages, skipped } = await map(events);

    expect(summary.userTexts).toEqual(['Why does this chart look wrong? Fix config.json and run the tests.']);
    expect(summary.thinking).toEqual(['The bars are red, so debug mode is off.']);
    expect(summary.agentTexts).toEqual([
      'Let me look at the configuration.',
      'Debug is off; I will turn it on.',
      'Debug is on now. I did not run the tests.',
    ]);
    const calls = ['call_edit', 'call_read', 'call_shot', 'call_test'];
    expect([...summary.starts.keys()].sort()).toEqual(calls);
    expect([...summary.ends.keys()].sort()).toEqual(calls);
    expect(summary.starts.get('call_read')).toMatchObject({
      toolName: 'read',
      title: 'Reading config.json',
      args: { path: '/home/user/project/config.json' },
    });
    // Input that arrived after the announcement (still pending) is in the start.
    expect(summary.starts.get('call_shot')).toMatchObject({ args: { url: 'http://localhost:3000/chart' } });
    // No raw input: the diff is the args.
    expect(summary.starts.get('call_edit')).toMatchObject({
      toolName: 'edit',
      args: { path: '/home/user/project/config.json', newText: '{\n  "debug": true\n}\n' },
    });
    // Asked about before it was announced: the request said what it is.
    expect(summary.starts.get('call_test')).toMatchObject({
      toolName: 'execute',
      args: { command: 'npm test' },
    });
    expect(summary.ends.get('call_test')).toBe('The user rejected this command.');
    expect(
      summary.permissionRequests.map((request) => [request.callId, request.options.map((o) => o.kind)]),
    ).toEqual([
      ['call_edit', ['allow-once', 'allow-always', 'reject-once']],
      ['call_test', ['allow-once', 'reject-once']],
    ]);
    expect(summary.permissionResponses.map((response) => [response.callId, response.optionId])).toEqual([
      ['call_edit', 'allow-once'],
      ['call_test', 'no'],
    ]);

    // Media: the prompt's image and embedded file, the screenshot once (its content was replaced with
    // the same image), the message's closing image; the resource link as a machine file.
    const images = imagesIn(events);
    expect(uploads.map((upload) => [upload.role, upload.mimeType])).toEqual([
      ['user', 'image/png'],
      ['user', 'application/json'],
      ['agent', 'image/png'],
      ['agent', 'image/jpeg'],
    ]);
    expect(uploads[0]!.bytes).toEqual(base64Bytes(images[0]!));
    expect(new TextDecoder().decode(uploads[1]!.bytes)).toBe('{\n  "debug": false\n}\n');
    expect(uploads[1]!.name).toBe('config.json');
    expect(uploads[2]!.bytes).toEqual(base64Bytes(images[1]!));
    expect(uploads[3]!.bytes).toEqual(base64Bytes(images.at(-1)!));
    expect(summary.photos.map((photo) => [photo.role, photo.parentId])).toEqual([
      ['user', undefined],
      ['agent', 'call_shot'],
      ['agent', undefined],
    ]);
    expect(summary.files.map((file) => [file.ref, file.name, file.size, file.mimeType])).toEqual([
      ['machine-file:///home/user/project/report.pdf', 'report.pdf', 1024000, 'application/pdf'],
      ['media/upload-2', 'config.json', 21, 'application/json'],
    ]);
    // The prompt's content comes before the turn it starts.
    expect(messages.findIndex((m) => m.type === 'turn-start')).toBe(4);
    expect(summary.services).toEqual([
      'Plan:\n- [ ] Inspect the chart (in progress)\n- [ ] Fix config.json\n- [ ] Run the tests',
      'Plan:\n- [x] Inspect the chart\n- [x] Fix config.json\n- [ ] Run the tests',
    ]);
    expect(summary.turnStatuses).toEqual(['completed']);
    expect(skipped.byReason).toEqual({ 'not-displayed': 5 });
  });

  it('cancel, error and max_tokens: the turn statuses and their notes', async () => {
    const { summary } = await map(readFixture('acp/cancel.jsonl'));
    expect(summary.userTexts).toEqual(['Delete the old logs', 'Try again', 'Summarise the repo']);
    expect(summary.permissionRequests.map((request) => request.callId)).toEqual(['call_rm']);
    expect(summary.permissionResponses).toEqual([]);
    expect(summary.ends.get('call_rm')).toBe('The tool call failed');
    expect(summary.services).toEqual([
      'The permission request was cancelled',
      'Error: Internal error: model overloaded',
      'The agent stopped: it reached its maximum number of tokens',
    ]);
    expect(summary.turnStatuses).toEqual(['cancelled', 'failed', 'failed']);
  });

  it('session/load replay: turns inferred from the history, images kept', async () => {
    const { summary, uploads, messages } = await map(readFixture('acp/load-replay.jsonl'));
    expect(summary.userTexts).toEqual(["What's the capital of France?", 'Show me a flag.']);
    expect(summary.agentTexts).toEqual(['The capital of France is Paris.', 'Here it is.']);
    expect(summary.turnStatuses).toEqual(['completed', 'completed']);
    expect(uploads.map((upload) => upload.role)).toEqual(['user', 'agent']);
    expect(summary.photos.map((photo) => photo.parentId)).toEqual([undefined, 't1']);
    expect(messages.map((m) => m.type)).toEqual([
      'text',
      'turn-start',
      'text',
      'turn-end',
      'text',
      'photo',
      'turn-start',
      'tool-call-start',
      'photo',
      'tool-call-end',
      'text',
      'turn-end',
    ]);
  });
});

describe('acp decisions', () => {
  it('ends a message on a new messageId, another kind of update, or any other event', async () => {
    const { summary } = await map([
      prompt(1, 'go'),
      chunk('a', 'm1'),
      chunk('b', 'm1'),
      chunk('c', 'm2'),
      chunk('t', undefined, 'agent_thought_chunk'),
      chunk('d'),
      update({ sessionUpdate: 'tool_call', toolCallId: 'x', title: 'X', status: 'completed' }),
      chunk('e'),
      chunk('f'),
      stop(1),
    ]);
    expect(summary.agentTexts).toEqual(['ab', 'c', 'd', 'ef']);
    expect(summary.thinking).toEqual(['t']);
  });

  it('keeps a call announced pending until it runs, merging what its updates add', async () => {
    const { summary, messages } = await map([
      prompt(1, 'go'),
      update({
        sessionUpdate: 'tool_call',
        toolCallId: 'c',
        title: 'Reading',
        kind: 'read',
        status: 'pending',
      }),
      chunk('meanwhile'),
      update({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'c',
        title: 'Reading a.txt',
        rawInput: { path: 'a.txt' },
      }),
      update({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'in_progress' }),
      update({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'completed' }),
      stop(1),
    ]);
    expect(summary.starts.get('c')).toMatchObject({ title: 'Reading a.txt', args: { path: 'a.txt' } });
    expect(messages.findIndex((m) => m.type === 'text' && m.role === 'agent')).toBeLessThan(
      messages.findIndex((m) => m.type === 'tool-call-start'),
    );
  });

  it('writes a call that never ran at its turn end (closed with an error), and skips later updates', async () => {
    const { summary, skipped } = await map([
      prompt(1, 'go'),
      update({ sessionUpdate: 'tool_call', toolCallId: 'c', title: 'Never ran', status: 'pending' }),
      stop(1),
      update({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'completed' }),
      update({ sessionUpdate: 'tool_call_update', toolCallId: 'ghost', status: 'completed' }),
    ]);
    expect(summary.ends.get('c')).toBe('the turn ended before this tool call returned a result');
    expect(skipped.byReason).toMatchObject({ duplicate: 1, 'unknown-call': 1 });
  });

  it('tells a prompt response from a permission response with the same id by its shape', async () => {
    const { summary } = await map([
      prompt(7, 'go'),
      update({
        sessionUpdate: 'tool_call',
        toolCallId: 'c',
        title: 'Write',
        kind: 'edit',
        status: 'pending',
      }),
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'session/request_permission',
        params: {
          sessionId: S,
          toolCall: { toolCallId: 'c' },
          options: [{ optionId: 'y', name: 'Yes', kind: 'allow_always' }],
        },
      },
      { jsonrpc: '2.0', id: 7, result: { outcome: { outcome: 'selected', optionId: 'y' } } },
      update({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'completed' }),
      stop(7),
    ]);
    expect(summary.permissionResponses.map((response) => response.optionId)).toEqual(['y']);
    expect(summary.turnStatuses).toEqual(['completed']);
  });

  it('ends a turn cancelled when session/cancel was sent and the log ends before the response', async () => {
    const { summary } = await map([
      prompt(1, 'go'),
      chunk('working'),
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: S } },
    ]);
    expect(summary.turnStatuses).toEqual(['cancelled']);
  });

  it('ends a turn whose prompt got no response when the next prompt comes: cancelled after session/cancel', async () => {
    const { summary } = await map([
      prompt(1, 'one'),
      chunk('working'),
      prompt(2, 'two'),
      chunk('again'),
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: S } },
      prompt(3, 'three'),
      chunk('done'),
      stop(3),
    ]);
    expect(summary.turnStatuses).toEqual(['completed', 'cancelled', 'completed']);
  });

  it('reads bare updates and notification params as some recorders log them', async () => {
    const { summary } = await map([
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'bare ' } },
      {
        sessionId: S,
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'params' } },
      },
    ]);
    expect(summary.agentTexts).toEqual(['bare params']);
  });

  it('maps permission option kinds of a newer ACP by their sense and leaves out the rest', async () => {
    const { summary, skipped } = await map([
      prompt(1, 'go'),
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'session/request_permission',
        params: {
          sessionId: S,
          toolCall: { toolCallId: 'c', title: 'Run' },
          options: [
            { optionId: 'a', name: 'Allow for a day', kind: 'allow_for_day' },
            { optionId: 'q', name: 'Ask me later', kind: 'ask_later' },
            { optionId: 'r', name: 'Reject', kind: 'reject_once' },
          ],
        },
      },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'session/request_permission',
        params: {
          sessionId: S,
          toolCall: { toolCallId: 'd', title: 'Other' },
          options: [{ optionId: 'q', name: 'Q', kind: 'ask' }],
        },
      },
      stop(1),
    ]);
    expect(summary.permissionRequests.map((request) => request.options)).toEqual([
      [
        { id: 'a', label: 'Allow for a day', kind: 'allow-once' },
        { id: 'r', label: 'Reject', kind: 'reject-once' },
      ],
    ]);
    expect(skipped.byReason['unmatched-permission']).toBe(1);
  });
});

describe('acp: legacy Happy records', () => {
  it("maps Happy's { type: 'acp', provider, data } records", async () => {
    const mapper = createAgentMapper('acp', {
      clock: steppingClock(),
      createId: sequentialIds(),
      verify: true,
    });
    const handler = acpProvider.create(mapper.writer);
    const push = (data: unknown) => handler.pushLegacy!(data, {});
    await push({ type: 'task_started', id: 't1' });
    await push({ type: 'thinking', text: 'hmm' });
    await push({
      type: 'tool-call',
      callId: 'c1',
      name: 'execute',
      input: { toolCall: { title: 'ls -la' } },
      id: 'r1',
    });
    await push({
      type: 'permission-request',
      permissionId: 'c1',
      toolName: 'execute',
      description: 'Run ls',
    });
    await push({ type: 'tool-result', callId: 'c1', output: { error: 'denied' }, id: 'r2', isError: true });
    await push({ type: 'file-edit', description: 'Fix typo', filePath: '/p/a.md', diff: '-a\n+b', id: 'e1' });
    await push({ type: 'terminal-output', data: 'x', callId: 'c1' });
    await push({ type: 'message', message: 'done' });
    await push({ type: 'task_complete', id: 't1' });
    const summary = summarize(mapper.writer.take());
    expect(summary.thinking).toEqual(['hmm']);
    expect(summary.agentTexts).toEqual(['done']);
    expect(summary.starts.get('c1')).toMatchObject({ toolName: 'execute', title: 'ls -la' });
    expect(summary.permissionRequests).toHaveLength(1);
    expect(summary.ends.get('c1')).toBe('denied');
    expect(summary.starts.get('e1')).toMatchObject({ toolName: 'file-edit', title: 'Edit `/p/a.md`' });
    expect(summary.turnStatuses).toEqual(['completed']);
    expect(mapper.writer.skips.counts().byReason).toEqual({ 'not-displayed': 1 });
  });
});

describe('acp: bad input is a counted skip, never a throw or an invalid stream', () => {
  it('skips what is not a message, unknown methods and updates, malformed known ones', async () => {
    const { messages, skipped } = await map([
      null,
      'x',
      [],
      { jsonrpc: '2.0' },
      { jsonrpc: '2.0', method: 'vendor/thing', params: {} },
      update({ sessionUpdate: 'brand_new_update' }),
      update({ sessionUpdate: 'tool_call', title: 'no id' }),
      update({ sessionUpdate: 'agent_message_chunk' }),
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: S } },
      { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { prompt: 'not a list' } },
      { jsonrpc: '2.0', id: 9, result: { stopReason: 'end_turn' } },
      { jsonrpc: '2.0', id: 9, result: { outcome: { outcome: 'selected', optionId: 'x' } } },
    ]);
    expect(messages).toEqual([]);
    expect(skipped.byReason).toEqual({
      'unknown-event': 6,
      'malformed-event': 4,
      'unmatched-permission': 2,
    });
  });

  it('turns invalid base64, an oversized image and a link without a size into notes or skips', async () => {
    const { summary, uploads, skipped } = await map(
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'session/prompt',
          params: {
            sessionId: S,
            prompt: [
              { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB...' },
              { type: 'image', mimeType: 'image/png', data: 'A'.repeat(2 * 1024 * 1024) },
              { type: 'resource_link', uri: 'https://example.com/x.pdf', name: 'x.pdf' },
              { type: 'image', mimeType: 'image/png', uri: 'https://example.com/a.png', data: '' },
            ],
          },
        },
        stop(1),
      ],
      { maxMediaBytes: 1024 * 1024 },
    );
    expect(uploads).toEqual([]);
    expect(summary.services).toHaveLength(2);
    expect(skipped.byReason).toMatchObject({
      'invalid-media': 1,
      'media-too-large': 1,
      'unsupported-content': 2,
    });
  });
});

describe('acp 1.x session state updates', () => {
  it('does not display usage_update, session_info_update and config_option_update, and a message streams on across them', async () => {
    const { messages, summary, skipped } = await map([
      prompt(1, 'Rename the module'),
      chunk('Renaming ', 'm1'),
      update({
        sessionUpdate: 'usage_update',
        used: 53000,
        size: 200000,
        cost: { amount: 0.045, currency: 'USD' },
      }),
      chunk('the module ', 'm1'),
      update({
        sessionUpdate: 'session_info_update',
        title: 'Rename the module',
        updatedAt: '2026-03-01T10:00:00Z',
      }),
      update({
        sessionUpdate: 'config_option_update',
        configOptions: [
          {
            id: 'model',
            name: 'Model',
            type: 'select',
            currentValue: 'fast',
            options: [{ value: 'fast', name: 'Fast' }],
          },
        ],
      }),
      chunk('now.', 'm1'),
      stop(1),
    ]);
    expect(summary.agentTexts).toEqual(['Renaming the module now.']);
    expect(messages.map((m) => m.type)).toEqual(['text', 'turn-start', 'text', 'turn-end']);
    expect(skipped.byReason).toEqual({ 'not-displayed': 3 });
  });
});
