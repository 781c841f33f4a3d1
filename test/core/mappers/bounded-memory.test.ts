/**
 * What a mapper remembers stays bounded, whatever the log's length or shape: the structures that hold
 * recent entries keep at most twice their capacity, the id filter never forgets an id, held events are
 * let go oldest first past their bound (and counted), and a tool input nested 200,000 levels deep is
 * left out with a note instead of ending the run.
 */
import { describe, expect, it } from 'vitest';
import { IdFilter, RecentMap, RecentSet } from '../../../src/core/mappers/recent.js';
import { MAX_ARGS_DEPTH } from '../../../src/core/mappers/session-writer.js';
import { approximateJsonSize, MAX_HELD_ITEMS, WaitingRoom } from '../../../src/core/mappers/waiting-room.js';
import { createAgentMapper, type SessionMessage } from '../../../src/index.js';
import { expectValidStream } from '../../helpers/mappers.js';
import { assistant, prompt, resetFixtures, text, toolResult, userBlocks } from './claude-fixtures.js';

describe('recent maps and sets', () => {
  it('remember between capacity and twice as many of the latest entries', () => {
    const map = new RecentMap<number, string>(100);
    for (let i = 0; i < 1000; i++) map.set(i, `v${i}`);
    expect(map.size).toBeLessThanOrEqual(200);
    expect(map.size).toBeGreaterThanOrEqual(100);
    for (let i = 900; i < 1000; i++) expect(map.get(i)).toBe(`v${i}`);
    expect(map.has(0)).toBe(false);
    // An entry set again is young again; a deleted one is gone from both generations.
    map.set(950, 'again');
    expect(map.get(950)).toBe('again');
    expect(map.delete(951)).toBe(true);
    expect(map.has(951)).toBe(false);
    expect([...map.entries()].length).toBe(map.size);
    const set = new RecentSet<string>(10);
    for (let i = 0; i < 100; i++) set.add(`k${i}`);
    expect(set.size).toBeLessThanOrEqual(20);
    expect(set.has('k99')).toBe(true);
  });
});

describe('the id filter', () => {
  it('never forgets an id, and is rarely wrong about one it never saw', () => {
    const filter = new IdFilter();
    for (let i = 0; i < 200_000; i++) filter.add(`id-${i}`);
    for (let i = 0; i < 200_000; i += 7) expect(filter.mayHave(`id-${i}`)).toBe(true);
    let wrong = 0;
    for (let i = 0; i < 20_000; i++) if (filter.mayHave(`other-${i}`)) wrong++;
    expect(wrong / 20_000).toBeLessThan(0.03);
  });
});

describe('the waiting room', () => {
  it('lets the oldest item go past its item bound, and past its byte bound', () => {
    const room = new WaitingRoom<string>({ maxItems: 3, maxBytes: 1000 });
    expect(room.hold('a', 'a1', 10)).toEqual([]);
    expect(room.hold('b', 'b1', 10)).toEqual([]);
    expect(room.hold('a', 'a2', 10)).toEqual([]);
    expect(room.hold('c', 'c1', 10)).toEqual(['a1']);
    expect(room.hold('d', 'd1', 980)).toEqual(['b1']);
    expect(room.release('c')).toEqual(['c1']);
    // One item larger than the bound alone is let go at once, after every older one.
    expect(room.hold('e', 'e1', 5000)).toEqual(['a2', 'd1', 'e1']);
    expect(room.size).toBe(0);
    expect(room.releaseAll()).toEqual([]);
  });

  it('sizes a tool result by its strings, without serialising it', () => {
    const small = approximateJsonSize({ type: 'tool_result', tool_use_id: 't', content: 'ok' });
    const image = approximateJsonSize({
      type: 'tool_result',
      tool_use_id: 't',
      content: [{ type: 'image', source: { type: 'base64', data: 'A'.repeat(1_000_000) } }],
    });
    expect(small).toBeLessThan(200);
    expect(image).toBeGreaterThan(2_000_000);
  });

  it('lets a Claude log of results whose calls never come go as it reads them, counted', async () => {
    resetFixtures();
    const mapper = createAgentMapper('claude');
    await mapper.push(prompt('go'));
    for (let i = 0; i < MAX_HELD_ITEMS; i++)
      await mapper.push(userBlocks([toolResult(`toolu_orphan_${i}`, 'x')]));
    expect(mapper.skipped().byReason['unknown-call'] ?? 0).toBe(0);
    await mapper.push(userBlocks([toolResult('toolu_one_more', 'x')]));
    await mapper.push(userBlocks([toolResult('toolu_and_another', 'x')]));
    // Past the bound the oldest held results are read as at the end: their calls never came.
    expect(mapper.skipped().byReason['unknown-call']).toBe(2);
    await mapper.end();
    expect(mapper.skipped().byReason['unknown-call']).toBe(MAX_HELD_ITEMS + 2);
  });
});

describe('a tool input nested 200,000 levels deep', () => {
  const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`);
  const logs: [string, unknown[]][] = [
    [
      'codex',
      [
        { type: 'turn.started' },
        {
          type: 'item.completed',
          item: {
            id: 'item_1',
            type: 'mcp_tool_call',
            server: 's',
            tool: 't',
            arguments: { a: deep },
            status: 'completed',
          },
        },
        {
          type: 'item.completed',
          item: { id: 'item_2', type: 'agent_message', text: 'after the deep call' },
        },
        { type: 'turn.completed' },
      ],
    ],
    [
      'acp',
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'session/prompt',
          params: { sessionId: 's', prompt: [{ type: 'text', text: 'go' }] },
        },
        {
          jsonrpc: '2.0',
          method: 'session/update',
          params: {
            sessionId: 's',
            update: {
              sessionUpdate: 'tool_call',
              toolCallId: 'c1',
              title: 'x',
              status: 'completed',
              rawInput: { a: deep },
            },
          },
        },
        {
          jsonrpc: '2.0',
          method: 'session/update',
          params: {
            sessionId: 's',
            update: {
              sessionUpdate: 'agent_message_chunk',
              content: { type: 'text', text: 'after the deep call' },
            },
          },
        },
        { jsonrpc: '2.0', id: 1, result: { stopReason: 'end_turn' } },
      ],
    ],
    [
      'claude',
      [
        prompt('go'),
        assistant('msg_1', [{ type: 'tool_use', id: 'toolu_deep', name: 'X', input: { a: deep } }]),
        userBlocks([toolResult('toolu_deep', 'done')]),
        assistant('msg_2', [text('after the deep call')]),
      ],
    ],
  ];

  it.each(logs)(
    '%s: the call is written without it, with a note; the run and later events go on',
    async (provider, events) => {
      resetFixtures();
      const mapper = createAgentMapper(provider, { verify: true });
      const messages: SessionMessage[] = [];
      for (const event of events) messages.push(...(await mapper.push(event)));
      messages.push(...(await mapper.end()));
      expectValidStream(messages);
      const start = messages.find((m) => m.type === 'tool-call-start');
      expect(start).toMatchObject({ args: {} });
      expect(messages).toContainEqual(
        expect.objectContaining({
          type: 'service',
          text: expect.stringContaining(`${MAX_ARGS_DEPTH} levels deep`),
        }),
      );
      expect(messages).toContainEqual(expect.objectContaining({ type: 'text', text: 'after the deep call' }));
      expect(mapper.skipped().byReason['malformed-event']).toBe(1);
      expect(() => JSON.stringify(messages)).not.toThrow();
    },
  );
});
