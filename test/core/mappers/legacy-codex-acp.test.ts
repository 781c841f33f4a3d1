/**
 * Happy's legacy Codex and ACP records through the legacy reader (`mapHappyRecords`), as the server
 * holds them (`{ id, seq, content, createdAt }`): the reader hands `{ type: 'codex' | 'acp', data }` to
 * the Codex and ACP mappers' `pushLegacy` over its own writer, so turns framed by user records and
 * `ready` events, tool calls, permissions and texts form one valid stream with nothing lost.
 */
import { describe, expect, it } from 'vitest';
import { mapHappyRecords, type SessionMessage } from '../../../src/index.js';
import { summarize } from '../../helpers/mapped-stream.js';
import { expectValidStream, sequentialIds } from '../../helpers/mappers.js';

let seq = 0;
function record(content: object) {
  seq += 1;
  return { id: `rec${seq}`, seq, localId: null, content, createdAt: 1_753_000_000_000 + seq * 1000 };
}
const user = (text: string) => record({ role: 'user', content: { type: 'text', text } });
const codex = (data: object) => record({ role: 'agent', content: { type: 'codex', data } });
const acp = (data: object) => record({ role: 'agent', content: { type: 'acp', provider: 'gemini', data } });
const ready = () =>
  record({ role: 'agent', content: { type: 'event', id: `ev${seq}`, data: { type: 'ready' } } });

async function read(records: unknown[]): Promise<SessionMessage[]> {
  const messages: SessionMessage[] = [];
  for await (const message of mapHappyRecords(records, { close: true, createId: sequentialIds() })) {
    messages.push(message);
  }
  expectValidStream(messages);
  return messages;
}

describe('legacy codex and acp records through the legacy reader', () => {
  it('a Codex session: reasoning, tool calls and their results, messages, turns by user records and ready', async () => {
    const messages = await read([
      user('List the files'),
      codex({ type: 'reasoning', message: '**Listing**' }),
      codex({
        type: 'tool-call',
        callId: 'call_1',
        name: 'CodexBash',
        input: { command: ['bash', '-lc', 'ls'] },
        id: 'i1',
      }),
      codex({ type: 'tool-call-result', callId: 'call_1', output: { content: 'a\nb' }, id: 'i2' }),
      codex({ type: 'message', message: 'Two files.' }),
      ready(),
      user('Apply the fix'),
      codex({
        type: 'tool-call',
        callId: 'call_2',
        name: 'CodexPatch',
        input: { changes: { 'src/a.ts': { modify: { old_content: 'a', new_content: 'b' } } } },
        id: 'i3',
      }),
      codex({ type: 'tool-call-result', callId: 'call_2', output: { status: 'canceled' }, id: 'i4' }),
    ]);
    const summary = summarize(messages);
    expect(summary.userTexts).toEqual(['List the files', 'Apply the fix']);
    expect(summary.thinking).toEqual(['**Listing**']);
    expect(summary.agentTexts).toEqual(['Two files.']);
    expect(summary.starts.get('call_1')).toMatchObject({ toolName: 'CodexBash', title: 'Run `ls`' });
    expect(summary.starts.get('call_2')).toMatchObject({ toolName: 'CodexPatch', title: 'Edit `src/a.ts`' });
    expect(summary.ends.get('call_1')).toBeUndefined();
    expect(summary.ends.get('call_2')).toBe('The tool call was cancelled');
    expect(summary.turnStatuses).toEqual(['completed', 'completed']);
    // Record times are the messages' times.
    expect(messages[0]!.time).toBe(1_753_000_000_000 + 1000);
  });

  it('an ACP (Gemini) session: task lifecycle, thinking, a permission inside its call, a failed result, a file edit', async () => {
    const messages = await read([
      user('Tidy the readme'),
      acp({ type: 'task_started', id: 't1' }),
      acp({ type: 'thinking', text: 'Reading it first' }),
      acp({ type: 'tool-call', callId: 'c1', name: 'read', input: { path: 'README.md' }, id: 'r1' }),
      acp({ type: 'tool-result', callId: 'c1', output: 'ok', id: 'r2' }),
      acp({
        type: 'permission-request',
        permissionId: 'c2',
        toolName: 'execute',
        description: 'rm -rf build',
        options: [
          { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
          { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
        ],
      }),
      acp({ type: 'tool-result', callId: 'c2', output: { error: 'User rejected' }, id: 'r3', isError: true }),
      acp({
        type: 'file-edit',
        description: 'Fix heading',
        filePath: '/p/README.md',
        diff: '-#a\n+# a',
        id: 'e1',
      }),
      acp({ type: 'message', message: 'Done.' }),
      acp({ type: 'token_count', input_tokens: 5 }),
      acp({ type: 'task_complete', id: 't1' }),
      user('Thanks'),
    ]);
    const summary = summarize(messages);
    expect(summary.userTexts).toEqual(['Tidy the readme', 'Thanks']);
    expect(summary.thinking).toEqual(['Reading it first']);
    expect(summary.agentTexts).toEqual(['Done.']);
    expect([...summary.starts.keys()]).toEqual(['c1', 'c2', 'e1']);
    expect([...summary.ends.keys()]).toEqual(['c1', 'c2', 'e1']);
    expect(
      summary.permissionRequests.map((request) => [request.callId, request.options.map((o) => o.id)]),
    ).toEqual([['c2', ['proceed_once', 'cancel']]]);
    expect(summary.ends.get('c2')).toBe('User rejected');
    expect(summary.turnStatuses).toEqual(['completed']);
  });
});
