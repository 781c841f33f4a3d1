/**
 * Property tests of the Codex and ACP mappers: random sessions of parallel tool calls (with
 * permissions, failures and images) and chunked messages, their events interleaved at random (each
 * call's and each message's own events stay in order, as a provider sends them). Every run maps to a
 * valid stream (`mapValid` checks it with the strict validator) and loses nothing: every call starts
 * and ends once with the right error, every permission is asked and answered, every image is uploaded
 * inside its call, and the streamed text reads the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFixture, summarize } from '../../helpers/mapped-stream.js';
import { mapValid, recordingMediaHandler, sequentialIds, steppingClock } from '../../helpers/mappers.js';

/** A tiny valid PNG whose last byte varies, so each call's image is its own. */
function png(n: number): string {
  const bytes = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEElEQVQImWM4oaEBRww4OQAHpg0heFEebgAAAABJRU5ErkJggg==',
    'base64',
  );
  return Buffer.concat([bytes, Buffer.from([n & 0xff])]).toString('base64');
}

/** Merges `threads` in the order `picks` chooses (each thread's own order kept). */
function interleave<T>(threads: T[][], picks: number[]): T[] {
  const queues = threads.map((thread) => [...thread]).filter((thread) => thread.length > 0);
  const out: T[] = [];
  let next = 0;
  while (queues.length > 0) {
    const at = (picks[next++ % Math.max(1, picks.length)] ?? 0) % queues.length;
    out.push(queues[at]!.shift()!);
    if (queues[at]!.length === 0) queues.splice(at, 1);
  }
  return out;
}

async function map(provider: 'acp' | 'codex', events: unknown[]) {
  const media = recordingMediaHandler();
  const output = await mapValid(provider, events, {
    media: media.handler,
    clock: steppingClock(),
    createId: sequentialIds(),
  });
  return { ...output, uploads: media.uploads, summary: summarize(output.messages) };
}

const picksArb = fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 60 });
const textArb = fc.string({ minLength: 1, maxLength: 12 });

// --- ACP -----------------------------------------------------------------------------------------

interface AcpCall {
  permission: 'none' | 'selected' | 'cancelled';
  image: boolean;
  outcome: 'completed' | 'failed';
  progress: boolean;
}

const acpCallArb: fc.Arbitrary<AcpCall> = fc.record({
  permission: fc.constantFrom('none', 'selected', 'cancelled'),
  image: fc.boolean(),
  outcome: fc.constantFrom('completed', 'failed'),
  progress: fc.boolean(),
});
const acpMessageArb = fc.record({
  thought: fc.boolean(),
  chunks: fc.array(textArb, { minLength: 1, maxLength: 4 }),
});

const S = 'sess';
const update = (u: object) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId: S, update: u },
});

function acpCallThread(call: AcpCall, index: number): object[] {
  const id = `call_${index}`;
  const events: object[] = [
    update({
      sessionUpdate: 'tool_call',
      toolCallId: id,
      title: `Call ${index}`,
      kind: 'execute',
      status: 'pending',
      rawInput: { n: index },
    }),
  ];
  if (call.progress)
    events.push(update({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'in_progress' }));
  if (call.permission !== 'none') {
    events.push({
      jsonrpc: '2.0',
      id: 100 + index,
      method: 'session/request_permission',
      params: {
        sessionId: S,
        toolCall: { toolCallId: id },
        options: [
          { optionId: 'yes', name: 'Yes', kind: 'allow_once' },
          { optionId: 'no', name: 'No', kind: 'reject_once' },
        ],
      },
    });
    events.push({
      jsonrpc: '2.0',
      id: 100 + index,
      result: {
        outcome:
          call.permission === 'selected'
            ? { outcome: 'selected', optionId: 'yes' }
            : { outcome: 'cancelled' },
      },
    });
  }
  const image = { type: 'content', content: { type: 'image', mimeType: 'image/png', data: png(index) } };
  if (call.image)
    events.push(update({ sessionUpdate: 'tool_call_update', toolCallId: id, content: [image] }));
  events.push(
    update({
      sessionUpdate: 'tool_call_update',
      toolCallId: id,
      status: call.outcome,
      // Content is replaced, not appended: the image again, then a text.
      content: [
        ...(call.image ? [image] : []),
        { type: 'content', content: { type: 'text', text: `out ${index}` } },
      ],
    }),
  );
  return events;
}

describe('acp: random interleavings of parallel calls and chunked messages', () => {
  it('always maps to a valid stream and loses nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(acpCallArb, { maxLength: 5 }),
        fc.array(acpMessageArb, { maxLength: 4 }),
        picksArb,
        async (calls, messages, picks) => {
          const threads: object[][] = calls.map(acpCallThread);
          messages.forEach((message, i) => {
            threads.push(
              message.chunks.map((text) =>
                update({
                  sessionUpdate: message.thought ? 'agent_thought_chunk' : 'agent_message_chunk',
                  messageId: `m${i}`,
                  content: { type: 'text', text },
                }),
              ),
            );
          });
          const body = interleave(threads, picks);
          const events = [
            {
              jsonrpc: '2.0',
              id: 1,
              method: 'session/prompt',
              params: { sessionId: S, prompt: [{ type: 'text', text: 'go' }] },
            },
            ...body,
            { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } },
          ];
          const { summary, uploads } = await map('acp', events);

          expect(summary.starts.size).toBe(calls.length);
          calls.forEach((call, i) => {
            const id = `call_${i}`;
            expect(summary.starts.get(id)?.args).toEqual({ n: i });
            expect(summary.ends.has(id)).toBe(true);
            expect(summary.ends.get(id)).toBe(call.outcome === 'failed' ? `out ${i}` : undefined);
          });
          const asked = calls.flatMap((call, i) => (call.permission === 'none' ? [] : [`call_${i}`]));
          expect(summary.permissionRequests.map((r) => r.callId).sort()).toEqual(asked.sort());
          const answered = calls.flatMap((call, i) => (call.permission === 'selected' ? [`call_${i}`] : []));
          expect(summary.permissionResponses.map((r) => r.callId).sort()).toEqual(answered.sort());
          const withImage = calls.flatMap((call, i) => (call.image ? [`call_${i}`] : []));
          expect(uploads).toHaveLength(withImage.length);
          expect(summary.photos.map((photo) => photo.parentId).sort()).toEqual(withImage.sort());
          // The streamed text reads the same, however the chunks were split by other events.
          const chunks = (thought: boolean) =>
            body
              .map((event) => (event as { params?: { update?: Record<string, unknown> } }).params?.update)
              .filter((u) => u?.sessionUpdate === (thought ? 'agent_thought_chunk' : 'agent_message_chunk'))
              .map((u) => (u!.content as { text: string }).text)
              .join('');
          expect(summary.agentTexts.join('')).toBe(chunks(false));
          expect(summary.thinking.join('')).toBe(chunks(true));
          expect(summary.turnStatuses).toEqual(['completed']);
        },
      ),
      { numRuns: 150 },
    );
  });
});

// --- Codex exec --json ---------------------------------------------------------------------------

interface ExecCall {
  kind: 'command' | 'mcp';
  exitCode: number;
  image: boolean;
  progress: boolean;
}

const execCallArb: fc.Arbitrary<ExecCall> = fc.record({
  kind: fc.constantFrom('command', 'mcp'),
  exitCode: fc.constantFrom(0, 0, 1, 127),
  image: fc.boolean(),
  progress: fc.boolean(),
});

function execCallThread(call: ExecCall, index: number): object[] {
  const id = `item_${index}`;
  if (call.kind === 'command') {
    const item = (status: string, exit_code: number | null) => ({
      id,
      type: 'command_execution',
      command: `run ${index}`,
      aggregated_output: '',
      exit_code,
      status,
    });
    return [
      { type: 'item.started', item: item('in_progress', null) },
      ...(call.progress ? [{ type: 'item.updated', item: item('in_progress', null) }] : []),
      { type: 'item.completed', item: item(call.exitCode === 0 ? 'completed' : 'failed', call.exitCode) },
    ];
  }
  const item = (status: string, result: unknown, error: unknown) => ({
    id,
    type: 'mcp_tool_call',
    server: 'srv',
    tool: `tool${index}`,
    arguments: { n: index },
    result,
    error,
    status,
  });
  const failed = call.exitCode !== 0;
  return [
    { type: 'item.started', item: item('in_progress', null, null) },
    {
      type: 'item.completed',
      item: item(
        failed ? 'failed' : 'completed',
        failed
          ? null
          : { content: call.image ? [{ type: 'image', data: png(index), mimeType: 'image/png' }] : [] },
        failed ? { message: `failed ${index}` } : null,
      ),
    },
  ];
}

describe('codex exec --json: random interleavings of parallel items', () => {
  it('always maps to a valid stream and loses nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(execCallArb, { maxLength: 6 }),
        fc.array(fc.record({ reasoning: fc.boolean(), text: textArb }), { maxLength: 4 }),
        picksArb,
        async (calls, texts, picks) => {
          // Item ids come from one counter: calls first, then the messages.
          const threads: object[][] = calls.map(execCallThread);
          texts.forEach((text, i) => {
            threads.push([
              {
                type: 'item.completed',
                item: {
                  id: `item_${calls.length + i}`,
                  type: text.reasoning ? 'reasoning' : 'agent_message',
                  text: text.text,
                },
              },
            ]);
          });
          const body = interleave(threads, picks);
          const { summary, uploads } = await map('codex', [
            { type: 'turn.started' },
            ...body,
            { type: 'turn.completed', usage: {} },
          ]);

          calls.forEach((call, i) => {
            const id = `item_${i}`;
            expect(summary.starts.has(id)).toBe(true);
            const error =
              call.exitCode === 0
                ? undefined
                : call.kind === 'command'
                  ? `Command exited with code ${call.exitCode}`
                  : `failed ${i}`;
            expect(summary.ends.get(id)).toBe(error);
          });
          expect(summary.ends.size).toBe(calls.length);
          const withImage = calls.flatMap((call, i) =>
            call.kind === 'mcp' && call.exitCode === 0 && call.image ? [`item_${i}`] : [],
          );
          expect(uploads).toHaveLength(withImage.length);
          expect(summary.photos.map((photo) => photo.parentId).sort()).toEqual(withImage.sort());
          const inOrder = (reasoning: boolean) =>
            body
              .map((event) => (event as { item: { type: string; text?: string } }).item)
              .filter((item) => item.type === (reasoning ? 'reasoning' : 'agent_message'))
              .map((item) => item.text);
          expect(summary.agentTexts).toEqual(inOrder(false));
          expect(summary.thinking).toEqual(inOrder(true));
          // A turn that wrote nothing and completed is not written.
          expect(summary.turnStatuses).toEqual(body.length === 0 ? [] : ['completed']);
        },
      ),
      { numRuns: 150 },
    );
  });
});

// --- Codex protocol events with approvals --------------------------------------------------------

interface EventCall {
  kind: 'exec' | 'patch' | 'mcp' | 'search';
  approval: 'none' | 'approved' | 'denied';
  fails: boolean;
  image: boolean;
}

const eventCallArb: fc.Arbitrary<EventCall> = fc.record({
  kind: fc.constantFrom('exec', 'patch', 'mcp', 'search'),
  approval: fc.constantFrom('none', 'approved', 'denied'),
  fails: fc.boolean(),
  image: fc.boolean(),
});

function eventCallThread(call: EventCall, index: number): object[] {
  const id = `call_${index}`;
  const approvable = call.kind === 'exec' || call.kind === 'patch';
  const events: object[] = [];
  if (approvable && call.approval !== 'none') {
    events.push(
      call.kind === 'exec'
        ? { type: 'exec_approval_request', call_id: id, command: ['run', String(index)], cwd: '/' }
        : {
            type: 'apply_patch_approval_request',
            call_id: id,
            changes: { [`/f${index}`]: { type: 'add', content: 'x' } },
          },
      {
        id: `sub-${index}`,
        op: { type: call.kind === 'exec' ? 'exec_approval' : 'patch_approval', id, decision: call.approval },
      },
    );
    if (call.approval === 'denied') return events;
  }
  switch (call.kind) {
    case 'exec':
      events.push(
        { type: 'exec_command_begin', call_id: id, command: ['run', String(index)], cwd: '/' },
        { type: 'exec_command_output_delta', call_id: id, stream: 'stdout', chunk: '' },
        { type: 'exec_command_end', call_id: id, exit_code: call.fails ? 2 : 0 },
      );
      break;
    case 'patch':
      events.push(
        {
          type: 'patch_apply_begin',
          call_id: id,
          auto_approved: call.approval === 'none',
          changes: { [`/f${index}`]: { type: 'add', content: 'x' } },
        },
        { type: 'patch_apply_end', call_id: id, success: !call.fails, stderr: call.fails ? 'conflict' : '' },
      );
      break;
    case 'mcp':
      events.push(
        { type: 'mcp_tool_call_begin', call_id: id, invocation: { server: 's', tool: 't', arguments: {} } },
        {
          type: 'mcp_tool_call_end',
          call_id: id,
          invocation: { server: 's', tool: 't', arguments: {} },
          result: call.fails
            ? { Err: `err ${index}` }
            : {
                Ok: {
                  content: call.image ? [{ type: 'image', data: png(index), mimeType: 'image/png' }] : [],
                },
              },
        },
      );
      break;
    case 'search':
      events.push(
        { type: 'web_search_begin', call_id: id },
        { type: 'web_search_end', call_id: id, query: `q${index}` },
      );
      break;
  }
  return events;
}

describe('codex protocol events: random interleavings of parallel calls and approvals', () => {
  it('always maps to a valid stream, every approval inside its call, nothing lost', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventCallArb, { maxLength: 6 }), picksArb, async (calls, picks) => {
        const body = interleave(calls.map(eventCallThread), picks);
        const { summary, uploads } = await map('codex', [
          { type: 'task_started' },
          ...body,
          { type: 'task_complete' },
        ]);

        calls.forEach((call, i) => {
          const id = `call_${i}`;
          const approvable = call.kind === 'exec' || call.kind === 'patch';
          expect(summary.starts.has(id)).toBe(true);
          expect(summary.ends.has(id)).toBe(true);
          const expectedError =
            approvable && call.approval === 'denied'
              ? 'Rejected by the user (denied)'
              : !call.fails || call.kind === 'search'
                ? undefined
                : call.kind === 'exec'
                  ? 'Command exited with code 2'
                  : call.kind === 'patch'
                    ? 'conflict'
                    : `err ${i}`;
          expect(summary.ends.get(id)).toBe(expectedError);
        });
        const asked = calls.flatMap((call, i) =>
          (call.kind === 'exec' || call.kind === 'patch') && call.approval !== 'none'
            ? [[`call_${i}`, call.approval]]
            : [],
        );
        expect(summary.permissionResponses.map((r) => [r.callId, r.optionId]).sort()).toEqual(asked.sort());
        expect(summary.permissionRequests).toHaveLength(asked.length);
        const withImage = calls.flatMap((call, i) =>
          call.kind === 'mcp' && !call.fails && call.image ? [`call_${i}`] : [],
        );
        expect(uploads).toHaveLength(withImage.length);
        expect(summary.photos.map((photo) => photo.parentId).sort()).toEqual(withImage.sort());
        expect(summary.turnStatuses).toEqual(calls.length === 0 ? [] : ['completed']);
      }),
      { numRuns: 150 },
    );
  });
});

// --- hostile input -------------------------------------------------------------------------------

/** `value` with one field at `depth` dropped or replaced by `junk` (a damaged or foreign event). */
function damage(value: unknown, path: number[], junk: unknown): unknown {
  if (typeof value !== 'object' || value === null || path.length === 0) return junk;
  const keys = Object.keys(value);
  if (keys.length === 0) return junk;
  const key = keys[path[0]! % keys.length]!;
  const copy: Record<string, unknown> = Array.isArray(value) ? ([...value] as never) : { ...value };
  if (path.length === 1 && path[0]! % 3 === 0) delete copy[key];
  else copy[key] = damage((value as Record<string, unknown>)[key], path.slice(1), junk);
  return copy;
}

for (const [provider, fixtures] of [
  ['codex', ['codex/exec-json.jsonl', 'codex/rollout.jsonl', 'codex/events-approvals.jsonl']],
  ['acp', ['acp/prompt-turn.jsonl', 'acp/cancel.jsonl', 'acp/load-replay.jsonl']],
] as const) {
  describe(`${provider}: damaged and foreign events`, () => {
    const events = fixtures.flatMap((fixture) => readFixture(fixture));
    it('never throw and never make an invalid stream', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.oneof(
              fc.nat({ max: events.length - 1 }).map((i) => events[i]),
              fc
                .tuple(
                  fc.nat({ max: events.length - 1 }),
                  fc.array(fc.nat({ max: 20 }), { minLength: 1, maxLength: 4 }),
                  fc.jsonValue(),
                )
                .map(([i, path, junk]) => damage(events[i], path, junk)),
              fc.jsonValue(),
            ),
            { maxLength: 40 },
          ),
          async (input) => {
            // mapValid rejects an invalid stream, and a throw from the mapper fails the property.
            const { skipped } = await map(provider, input);
            expect(skipped.total).toBeLessThanOrEqual(input.length * 8);
          },
        ),
        { numRuns: 200 },
      );
    });
  });
}
