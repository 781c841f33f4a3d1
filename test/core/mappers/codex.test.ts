/**
 * The Codex mapper over its fixtures (`codex exec --json`, a rollout, protocol events with approvals):
 * each maps to a valid stream and nothing is lost — every text, every call's start and end, every
 * approval and its answer, every image (uploaded byte for byte, `parentId` = the producing call). Then
 * the decisions one by one, and bad input: a counted skip, never a throw or an invalid stream.
 */
import { describe, expect, it } from 'vitest';
import { codexProvider } from '../../../src/core/mappers/codex/codex-provider.js';
import { createAgentMapper } from '../../../src/index.js';
import { base64Bytes, readFixture, summarize } from '../../helpers/mapped-stream.js';
import { mapValid, recordingMediaHandler, sequentialIds, steppingClock } from '../../helpers/mappers.js';

const RED =
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEElEQVQImWM4oaEBRww4OQAHpg0heFEebgAAAABJRU5ErkJggg==';

function options() {
  const media = recordingMediaHandler();
  return { media, options: { media: media.handler, clock: steppingClock(), createId: sequentialIds() } };
}

async function map(events: unknown[]) {
  const { media, options: mapOptions } = options();
  const output = await mapValid('codex', events, mapOptions);
  return { ...output, uploads: media.uploads, summary: summarize(output.messages) };
}

describe('codex: registered', () => {
  it('is the provider `codex` and reads legacy `codex` records', () => {
    expect(createAgentMapper('codex').provider).toBe('codex');
    expect(codexProvider.legacyContentType).toBe('codex');
  });
});

describe('codex exec --json', () => {
  it('maps every item of both turns: texts, calls with their ends and errors, the image, the plan', async () => {
    const events = readFixture('codex/exec-json.jsonl');
    const { summary, uploads, messages, skipped } = await map(events);

    expect(summary.thinking).toEqual(['**Looking at the repository layout**']);
    expect(summary.agentTexts).toEqual([
      'The chart is rendered and the docs are fixed; one test still fails.',
    ]);
    const calls = ['item_1', 'item_3', 'item_4', 'item_5', 'item_6', 'item_8'];
    expect([...summary.starts.keys()].sort()).toEqual(calls);
    expect([...summary.ends.keys()].sort()).toEqual(calls);
    expect(summary.starts.get('item_1')).toMatchObject({ toolName: 'CodexBash', title: 'Run `ls`' });
    expect(summary.starts.get('item_3')).toMatchObject({
      toolName: 'mcp__charts__render',
      args: { series: [1, 2, 3] },
    });
    expect(summary.starts.get('item_5')).toMatchObject({
      toolName: 'CodexPatch',
      args: { changes: { 'docs/README.md': { type: 'update' }, 'docs/new.md': { type: 'add' } } },
    });
    expect(summary.starts.get('item_6')).toMatchObject({
      toolName: 'WebSearch',
      args: { query: 'vitest snapshot update flag' },
    });
    expect(summary.ends.get('item_1')).toBeUndefined();
    expect(summary.ends.get('item_4')).toBe('Command exited with code 1');
    expect(summary.ends.get('item_8')).toBe('empty series');

    // The MCP image: uploaded byte for byte, a photo inside its call, before the call's end.
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatchObject({ role: 'agent', mimeType: 'image/png' });
    expect(uploads[0]!.bytes).toEqual(base64Bytes(RED));
    expect(summary.photos).toHaveLength(1);
    expect(summary.photos[0]!.parentId).toBe('item_3');
    const photoAt = messages.indexOf(summary.photos[0]!);
    const endAt = messages.findIndex((m) => m.type === 'tool-call-end' && m.callId === 'item_3');
    expect(photoAt).toBeLessThan(endAt);

    // The to-do list: one checklist per change (the completed list differs from the last update).
    expect(summary.services.filter((text) => text.startsWith('Plan:'))).toEqual([
      'Plan:\n- [ ] Render the chart\n- [ ] Fix the docs',
      'Plan:\n- [x] Render the chart\n- [ ] Fix the docs',
      'Plan:\n- [x] Render the chart\n- [x] Fix the docs',
    ]);
    // The second turn: the non-fatal error item, the fatal error once (turn.failed repeats it), failed.
    expect(summary.services).toContain('model stream interrupted, retrying');
    expect(summary.services.filter((text) => text.includes('stream disconnected'))).toEqual([
      'Error: stream disconnected before completion',
    ]);
    expect(summary.turnStatuses).toEqual(['completed', 'failed']);
    expect(skipped.byReason).toEqual({ 'not-displayed': 2 });
  });

  it('gives item ids a new run reuses (item_0, …) fresh calls, and skips a repeat within one run', async () => {
    const run = (text: string) => [
      { type: 'thread.started', thread_id: 't' },
      { type: 'turn.started' },
      {
        type: 'item.started',
        item: { id: 'item_0', type: 'command_execution', command: text, status: 'in_progress' },
      },
      {
        type: 'item.completed',
        item: { id: 'item_0', type: 'command_execution', command: text, exit_code: 0, status: 'completed' },
      },
      { type: 'turn.completed', usage: {} },
    ];
    const repeat = {
      type: 'item.completed',
      item: { id: 'item_0', type: 'command_execution', command: 'b', exit_code: 0, status: 'completed' },
    };
    const { summary, skipped } = await map([...run('a'), ...run('b').slice(0, 4), repeat, run('b')[4]]);
    expect(summary.starts.size).toBe(2);
    expect([...summary.starts.values()].map((start) => start.args.command)).toEqual(['a', 'b']);
    expect(summary.ends.size).toBe(2);
    expect(skipped.byReason.duplicate).toBe(1);
  });

  it('ends a declined command with an error', async () => {
    const { summary } = await map([
      { type: 'turn.started' },
      {
        type: 'item.completed',
        item: {
          id: 'item_0',
          type: 'command_execution',
          command: 'rm -rf /',
          aggregated_output: '',
          status: 'declined',
        },
      },
      { type: 'turn.completed', usage: {} },
    ]);
    expect(summary.ends.get('item_0')).toBe('The command was declined');
  });
});

describe('codex rollout', () => {
  it('maps the history once (response items), drops injected context, keeps turns, images and errors', async () => {
    const events = readFixture('codex/rollout.jsonl');
    const { summary, uploads, messages, skipped } = await map(events);

    expect(summary.userTexts).toEqual([
      'What is in this screenshot? Then list the files.',
      'Run the whole test suite',
    ]);
    expect(summary.thinking).toEqual(['**Inspecting the screenshot**']);
    expect(summary.agentTexts).toEqual(['The screenshot is a blue bar. The project has README.md and src.']);
    const calls = ['call_aXf1', 'call_bQ22', 'call_cP03', 'call_dV04', 'call_eL05'];
    for (const call of calls) {
      expect(summary.starts.has(call), call).toBe(true);
      expect(summary.ends.has(call), call).toBe(true);
    }
    expect(summary.starts.size).toBe(6); // and the web search
    expect(summary.starts.get('call_aXf1')).toMatchObject({
      toolName: 'CodexBash',
      title: 'Run `ls`',
      args: { command: ['bash', '-lc', 'ls'], cwd: '/home/user/project' },
    });
    expect(summary.ends.get('call_bQ22')).toBe('Command exited with code 1');
    expect(summary.starts.get('call_cP03')).toMatchObject({
      toolName: 'CodexPatch',
      args: { changes: { 'README.md': { type: 'update' } } },
    });
    expect(summary.ends.get('call_cP03')).toBeUndefined();
    // The interrupted turn: its call never returned, the turn was aborted.
    expect(summary.ends.get('call_eL05')).toBe('the turn ended before this tool call returned a result');
    expect(summary.turnStatuses).toEqual(['completed', 'cancelled']);

    // The user's screenshot (before the turn) and view_image's output (inside its call), byte for byte.
    expect(uploads.map((upload) => [upload.role, upload.mimeType])).toEqual([
      ['user', 'image/png'],
      ['agent', 'image/jpeg'],
    ]);
    const rolloutImages = (events as { payload: { content?: { image_url?: string }[]; output?: unknown } }[])
      .flatMap((line) => [
        ...(line.payload.content ?? []),
        ...(Array.isArray(line.payload.output) ? line.payload.output : []),
      ])
      .map((part) => (part as { image_url?: string }).image_url)
      .filter((url): url is string => typeof url === 'string');
    expect(uploads.map((upload) => upload.bytes)).toEqual(rolloutImages.map(base64Bytes));
    expect(summary.photos.map((photo) => [photo.role, photo.parentId])).toEqual([
      ['user', undefined],
      ['agent', 'call_dV04'],
    ]);
    // The user's text and photo come before the turn they started.
    expect(messages.findIndex((m) => m.type === 'photo')).toBeLessThan(
      messages.findIndex((m) => m.type === 'turn-start'),
    );

    expect(summary.services).toEqual(['Context compacted']);
    expect(skipped.byReason).toEqual({ 'not-displayed': 3, duplicate: 5 });
  });

  it('splits turns on user messages when an old rollout has no turn markers', async () => {
    const line = (type: string, payload: unknown, second: number) => ({
      timestamp: `2025-08-01T10:00:${String(second).padStart(2, '0')}.000Z`,
      type,
      payload,
    });
    const user = (text: string) => ({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text }],
    });
    const agent = (text: string) => ({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text }],
    });
    const { summary, messages } = await map([
      line('response_item', user('one'), 1),
      line('response_item', agent('first answer'), 2),
      line('response_item', user('two'), 3),
      line('response_item', agent('second answer'), 4),
    ]);
    expect(summary.turnStatuses).toEqual(['completed', 'completed']);
    expect(messages.map((m) => m.type)).toEqual([
      'text',
      'turn-start',
      'text',
      'turn-end',
      'text',
      'turn-start',
      'text',
      'turn-end',
    ]);
    // Rollout timestamps are the messages' times.
    expect(messages[0]!.time).toBe(Date.parse('2025-08-01T10:00:01.000Z'));
  });

  it('writes a plan (update_plan) as a checklist and skips its output', async () => {
    const args = JSON.stringify({
      explanation: 'Two steps',
      plan: [
        { step: 'Read', status: 'completed' },
        { step: 'Write', status: 'in_progress' },
      ],
    });
    const { summary, skipped } = await map([
      { timestamp: '2025-10-02T09:00:00.000Z', type: 'turn_context', payload: {} },
      {
        timestamp: '2025-10-02T09:00:01.000Z',
        type: 'response_item',
        payload: { type: 'function_call', name: 'update_plan', arguments: args, call_id: 'call_p' },
      },
      {
        timestamp: '2025-10-02T09:00:02.000Z',
        type: 'response_item',
        payload: { type: 'function_call_output', call_id: 'call_p', output: 'Plan updated' },
      },
    ]);
    expect(summary.services).toEqual(['Plan:\nTwo steps\n- [x] Read\n- [ ] Write (in progress)']);
    expect(summary.starts.size).toBe(0);
    expect(skipped.byReason['not-displayed']).toBe(1);
  });
});

describe('codex protocol events and approvals', () => {
  it('puts every approval between its call start and end, with the answer chosen', async () => {
    const events = readFixture('codex/events-approvals.jsonl');
    const { summary, uploads, skipped } = await map(events);

    expect(summary.userTexts).toEqual(['Clean the build output and update the changelog']);
    expect(summary.thinking).toEqual(['**Planning the cleanup**']);
    expect(summary.agentTexts).toEqual([
      'Removed dist; the changelog edit was declined and the push failed (no upstream).',
    ]);
    expect(summary.permissionRequests.map((request) => request.callId)).toEqual([
      'call_rm01',
      'call_pt02',
      'call_gp03',
      'call_x06',
    ]);
    expect(summary.permissionRequests[0]!.description).toBe('This deletes files outside the sandbox');
    expect(summary.permissionRequests[2]!.options.map((option) => option.id)).toContain(
      'approved_execpolicy_amendment',
    );
    expect(summary.permissionResponses.map((response) => [response.callId, response.optionId])).toEqual([
      ['call_rm01', 'approved'],
      ['call_pt02', 'denied'],
      ['call_gp03', 'approved_execpolicy_amendment'],
      ['call_x06', 'abort'],
    ]);
    expect(summary.ends.get('call_rm01')).toBeUndefined();
    expect(summary.ends.get('call_pt02')).toBe('Rejected by the user (denied)');
    expect(summary.ends.get('call_gp03')).toBe('Command exited with code 128');
    expect(summary.ends.get('call_x06')).toBe('Rejected by the user (abort)');
    expect([...summary.ends.keys()].sort()).toEqual([...summary.starts.keys()].sort());
    expect(summary.starts.get('ws_05')).toMatchObject({ args: { query: 'keep a changelog format' } });
    expect(uploads).toHaveLength(1);
    expect(summary.photos[0]!.parentId).toBe('call_mc04');
    expect(summary.turnStatuses).toEqual(['completed', 'cancelled']);
    // The command begun after its approval is the same call, counted once as a duplicate begin.
    expect(skipped.byReason.duplicate).toBe(2);
  });

  it('matches an answer that names the turn (older Codex) to the one pending approval', async () => {
    const { summary } = await map([
      { id: '1', msg: { type: 'task_started' } },
      { id: '1', msg: { type: 'exec_approval_request', call_id: 'call_1', command: ['ls'], cwd: '/' } },
      { id: '2', op: { type: 'exec_approval', id: '1', decision: 'approved_for_session' } },
      { id: '1', msg: { type: 'exec_command_begin', call_id: 'call_1', command: ['ls'], cwd: '/' } },
      { id: '1', msg: { type: 'exec_command_end', call_id: 'call_1', exit_code: 0 } },
      { id: '1', msg: { type: 'task_complete' } },
    ]);
    expect(summary.permissionResponses.map((response) => response.optionId)).toEqual([
      'approved_for_session',
    ]);
    expect(summary.turnStatuses).toEqual(['completed']);
  });

  it('keeps an aborted turn that wrote nothing visible, and fails a turn with an error', async () => {
    const { summary, messages } = await map([
      { type: 'task_started' },
      { type: 'turn_aborted', reason: 'interrupted' },
      { type: 'task_started' },
      { type: 'agent_message', message: 'partial' },
      { type: 'error', message: 'quota exceeded' },
      { type: 'task_complete' },
      { type: 'task_started' },
      { type: 'task_complete' },
    ]);
    expect(summary.turnStatuses).toEqual(['cancelled', 'failed']);
    expect(summary.services).toEqual(['Error: quota exceeded']);
    expect(messages.filter((m) => m.type === 'turn-start')).toHaveLength(2);
  });
});

describe('codex: legacy Happy records', () => {
  it("maps Happy's { type: 'codex', data } messages, reasoning and tool calls", async () => {
    const mapper = createAgentMapper('codex', {
      clock: steppingClock(),
      createId: sequentialIds(),
      verify: true,
    });
    const handler = codexProvider.create(mapper.writer);
    await handler.pushLegacy!({ type: 'reasoning', message: 'thinking…' }, {});
    await handler.pushLegacy!(
      {
        type: 'tool-call',
        callId: 'c1',
        name: 'CodexBash',
        input: { command: ['bash', '-lc', 'ls'] },
        id: 'r1',
      },
      {},
    );
    await handler.pushLegacy!(
      { type: 'tool-call-result', callId: 'c1', output: { content: 'a\nb' }, id: 'r2' },
      {},
    );
    await handler.pushLegacy!({ type: 'message', message: 'done' }, {});
    await handler.pushLegacy!({ type: 'something-new' }, {});
    mapper.writer.endTurn('completed');
    const summary = summarize(mapper.writer.take());
    expect(summary.thinking).toEqual(['thinking…']);
    expect(summary.agentTexts).toEqual(['done']);
    expect(summary.starts.get('c1')).toMatchObject({ toolName: 'CodexBash', title: 'Run `ls`' });
    expect(summary.ends.has('c1')).toBe(true);
    expect(mapper.writer.skips.counts().byReason).toEqual({ 'unknown-event': 1 });
  });
});

describe('codex: bad input is a counted skip, never a throw or an invalid stream', () => {
  it('skips values that are not events, unknown types and malformed known types', async () => {
    const { messages, skipped } = await map([
      null,
      42,
      'text',
      [1, 2],
      {},
      { type: 'brand_new_event' },
      { type: 'item.completed', item: { id: 'x', type: 'brand_new_item' } },
      { type: 'item.completed' },
      { type: 'item.completed', item: { id: 'item_0', type: 'command_execution' } },
      { type: 'exec_command_begin' },
      { timestamp: 'yesterday', type: 'response_item', payload: { type: 'function_call', name: 1 } },
      { timestamp: '2025-01-01T00:00:00Z', type: 'brand_new_line', payload: {} },
      { id: '1', op: { type: 'exec_approval', id: 'nobody', decision: 'approved' } },
      { id: '1', op: { type: 'user_input', items: [] } },
    ]);
    expect(messages).toEqual([]);
    expect(skipped.byReason).toEqual({
      'unknown-event': 8,
      'malformed-event': 4,
      'unmatched-permission': 1,
      'not-displayed': 1,
    });
  });

  it('counts results for calls never started (and ended twice) without writing them', async () => {
    const { summary, skipped } = await map([
      { type: 'task_started' },
      { type: 'exec_command_end', call_id: 'ghost', exit_code: 0 },
      { type: 'exec_command_begin', call_id: 'c', command: ['ls'] },
      { type: 'exec_command_end', call_id: 'c', exit_code: 0 },
      { type: 'exec_command_end', call_id: 'c', exit_code: 0 },
      { type: 'task_complete' },
    ]);
    expect([...summary.ends.keys()]).toEqual(['c']);
    expect(skipped.byReason).toEqual({ 'unknown-call': 1, duplicate: 1 });
  });

  it('turns an invalid or oversized image into a service note', async () => {
    const image = (data: string) => ({
      type: 'item.completed',
      item: {
        id: `item_${data.length}`,
        type: 'mcp_tool_call',
        server: 's',
        tool: 't',
        arguments: {},
        result: { content: [{ type: 'image', data, mimeType: 'image/png' }] },
        status: 'completed',
      },
    });
    const huge = 'A'.repeat(4 * 1024 * 1024);
    const { media, options: mapOptions } = options();
    const output = await mapValid(
      'codex',
      [{ type: 'turn.started' }, image('%%%not base64%%%'), image(huge), { type: 'turn.completed' }],
      { ...mapOptions, maxMediaBytes: 1024 * 1024 },
    );
    expect(media.uploads).toHaveLength(0);
    expect(output.skipped.byReason).toMatchObject({ 'invalid-media': 1, 'media-too-large': 1 });
    const services = summarize(output.messages).services;
    expect(services).toHaveLength(2);
    expect(summarize(output.messages).ends.size).toBe(2);
  });
});
