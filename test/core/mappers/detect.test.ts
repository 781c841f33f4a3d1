/**
 * Provider detection from a log's first events: every fixture format is recognised as the provider that
 * reads it, a mix decides by the majority, and anything else is `unknown` (never a throw).
 */
import { describe, expect, it } from 'vitest';
import { detectAgentLog } from '../../../src/index.js';
import { readFixture } from '../../helpers/mapped-stream.js';
import { assistant, prompt, resetFixtures, sdk, text } from './claude-fixtures.js';

describe('detectAgentLog', () => {
  it.each([
    ['codex/exec-json.jsonl', 'codex', 'codex-exec-json'],
    ['codex/rollout.jsonl', 'codex', 'codex-rollout'],
    ['codex/events-approvals.jsonl', 'codex', 'codex-protocol-events'],
    ['acp/prompt-turn.jsonl', 'acp', 'acp-json-rpc'],
    ['acp/load-replay.jsonl', 'acp', 'acp-json-rpc'],
    ['acp/cancel.jsonl', 'acp', 'acp-json-rpc'],
  ])('%s is %s (%s)', (fixture, provider, format) => {
    expect(detectAgentLog(readFixture(fixture))).toMatchObject({ provider, format });
  });

  it('reads a Claude session log and stream-json output as Claude', () => {
    resetFixtures();
    const session = [prompt('hi'), assistant('msg_1', [text('hello')])];
    expect(detectAgentLog(session)).toMatchObject({ provider: 'claude', format: 'claude-session' });
    const stream = [
      { type: 'system', subtype: 'init', session_id: 's', tools: [] },
      sdk('assistant', [text('hello')]),
      { type: 'result', subtype: 'success', session_id: 's' },
    ];
    expect(detectAgentLog(stream)).toMatchObject({ provider: 'claude', format: 'claude-stream-json' });
    // A session log whose first line is a summary (no session fields) is still a session log.
    expect(detectAgentLog([{ type: 'summary', summary: 'x', leafUuid: 'u' }, ...session])).toMatchObject({
      format: 'claude-session',
    });
  });

  it("reads Happy's records and v2 messages as Happy's", () => {
    const records = [
      { id: 'r1', seq: 1, createdAt: 1, content: { role: 'user', content: { type: 'text', text: 'hi' } } },
      { role: 'agent', content: { type: 'output', data: { type: 'assistant' } } },
      { id: 'm1', time: 1, role: 'user', type: 'text', text: 'hi' },
    ];
    expect(detectAgentLog(records)).toMatchObject({ provider: 'happy', format: 'happy-records' });
  });

  it("reads codex mcp's codex/event notifications as Codex", () => {
    const line = {
      jsonrpc: '2.0',
      method: 'codex/event',
      params: { id: '1', msg: { type: 'task_started' } },
    };
    expect(detectAgentLog([line, line])).toMatchObject({ provider: 'codex' });
  });

  it('decides a mix by the majority, and looks at the first 50 events only', () => {
    const codex = readFixture('codex/exec-json.jsonl');
    resetFixtures();
    expect(detectAgentLog([prompt('stray'), ...codex])).toMatchObject({ provider: 'codex' });
    const claudeFirst = Array.from({ length: 50 }, () => prompt('hi'));
    expect(detectAgentLog([...claudeFirst, ...codex, ...codex, ...codex])).toMatchObject({
      provider: 'claude',
    });
  });

  it('is unknown for anything else, and never throws', () => {
    for (const events of [[], [null, 1, 'x', [], {}], [{ type: 'weather', temp: 3 }], [{ hello: 'world' }]]) {
      expect(detectAgentLog(events)).toMatchObject({ provider: 'unknown', format: undefined });
    }
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 100_000; i++) at = at.next = {} as Record<string, unknown>;
    expect(detectAgentLog([deep]).provider).toBe('unknown');
  });
});
