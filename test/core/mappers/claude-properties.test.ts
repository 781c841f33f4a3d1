/**
 * Property tests of the Claude mapper: random sessions of parallel tool calls and Task subagents (with
 * their own calls, and subagents of subagents), emitted as the SDK streams them (threads interleaved at
 * random, a subagent's messages possibly before its Task) and as Happy stored them (session lines in any
 * order within a turn). Every run maps to a valid stream where nothing is lost: each text once, each
 * tool call started and ended once, each subagent message under its Task with one agentId per Task.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionMessage } from '../../../src/index.js';
import { mapValid } from '../../helpers/mappers.js';

type Json = Record<string, unknown>;

interface Call {
  id: string;
  /** A Task call runs a subagent. */
  sub?: Agent;
}
interface Agent {
  texts: string[];
  calls: Call[];
}
interface Turn {
  prompt: string;
  main: Agent;
}

let counter = 0;
const uid = (prefix: string) => `${prefix}_${++counter}`;

const agentArb = (depth: number): fc.Arbitrary<Agent> =>
  fc
    .record({
      texts: fc.array(fc.constant(''), { minLength: 0, maxLength: 2 }),
      calls: fc.array(
        depth > 0 ? fc.oneof(fc.constant(undefined), agentArb(depth - 1)) : fc.constant(undefined),
        { maxLength: 3 },
      ),
    })
    .map(({ texts, calls }) => ({
      texts: texts.map(() => uid('text')),
      calls: calls.map((sub) => ({ id: uid('toolu'), ...(sub ? { sub } : {}) })),
    }));

const sessionArb = fc.array(
  agentArb(2).map((main): Turn => ({ prompt: uid('prompt'), main })),
  { minLength: 1, maxLength: 3 },
);

/** A seeded shuffle (mulberry32), so fast-check can shrink the seed. */
function shuffle<T>(items: T[], seed: number): T[] {
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Interleaves threads at random, keeping each thread's own order. */
function interleave(threads: Json[][], seed: number): Json[] {
  const picks = shuffle(
    threads.flatMap((thread, t) => thread.map(() => t)),
    seed,
  );
  const at = threads.map(() => 0);
  return picks.map((t) => threads[t]![at[t]!++]!);
}

// --- SDK form ---

function sdkThreads(agent: Agent, parent: string | null, threads: Json[][]): Json[] {
  const thread: Json[] = [];
  const assistant = (content: Json[]) => ({
    type: 'assistant',
    message: { id: uid('msg'), content },
    parent_tool_use_id: parent,
  });
  for (const text of agent.texts) thread.push(assistant([{ type: 'text', text }]));
  for (const call of agent.calls) {
    thread.push(
      assistant([
        call.sub
          ? {
              type: 'tool_use',
              id: call.id,
              name: 'Task',
              input: { description: `do ${call.id}`, prompt: `prompt ${call.id}` },
            }
          : { type: 'tool_use', id: call.id, name: 'Bash', input: { command: `echo ${call.id}` } },
      ]),
    );
  }
  for (const call of agent.calls) {
    if (call.sub) threads.push(sdkThreads(call.sub, call.id, threads));
    thread.push({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'ok' }] },
      parent_tool_use_id: parent,
    });
  }
  return thread;
}

function sdkEvents(session: Turn[], seed: number): Json[] {
  return session.flatMap((turn, i) => {
    const threads: Json[][] = [];
    threads.unshift(sdkThreads(turn.main, null, threads));
    return [
      { type: 'user', message: { role: 'user', content: turn.prompt }, parent_tool_use_id: null },
      ...interleave(threads, seed + i),
      { type: 'result', subtype: 'success', is_error: false },
    ];
  });
}

// --- session lines, stored out of order ---

function logThread(
  agent: Agent,
  sidechain: boolean,
  parentUuid: string | null,
  lines: Json[],
): string | null {
  let last = parentUuid;
  const line = (fields: Json) => {
    const uuid = uid('uuid');
    lines.push({ ...fields, uuid, parentUuid: last, isSidechain: sidechain });
    last = uuid;
  };
  const assistant = (content: Json[]) => line({ type: 'assistant', message: { id: uid('msg'), content } });
  for (const text of agent.texts) assistant([{ type: 'text', text }]);
  for (const call of agent.calls) {
    assistant([
      call.sub
        ? {
            type: 'tool_use',
            id: call.id,
            name: 'Task',
            input: { description: `do ${call.id}`, prompt: `prompt ${call.id}` },
          }
        : { type: 'tool_use', id: call.id, name: 'Bash', input: { command: `echo ${call.id}` } },
    ]);
  }
  for (const call of agent.calls) {
    if (call.sub) {
      // The subagent's chain starts with its prompt, a sidechain line with no parent.
      const rootUuid = uid('uuid');
      lines.push({
        type: 'user',
        uuid: rootUuid,
        parentUuid: null,
        isSidechain: true,
        message: { role: 'user', content: `prompt ${call.id}` },
      });
      logThread(call.sub, true, rootUuid, lines);
    }
    line({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'ok' }] },
    });
  }
  return last;
}

function storedEvents(session: Turn[], seed: number): Json[] {
  return session.flatMap((turn, i) => {
    const lines: Json[] = [];
    const promptUuid = uid('uuid');
    logThread(turn.main, false, promptUuid, lines);
    return [
      {
        type: 'user',
        uuid: promptUuid,
        parentUuid: null,
        isSidechain: false,
        message: { role: 'user', content: turn.prompt },
      },
      ...shuffle(lines, seed + i),
    ];
  });
}

// --- what must hold ---

function expectEverythingPlaced(session: Turn[], messages: SessionMessage[]): void {
  const texts = messages.filter((m) => m.type === 'text').map((m) => (m as { text: string }).text);
  const starts = messages.filter((m) => m.type === 'tool-call-start');
  const ends = messages.filter((m) => m.type === 'tool-call-end');
  const agentOf = new Map<string, string>();
  const visit = (agent: Agent, task: string | undefined) => {
    const place = (m: SessionMessage | undefined, what: string) => {
      expect(m, what).toBeDefined();
      expect(m!.parentId, what).toBe(task);
      if (task === undefined) {
        expect(m!.agentId, what).toBeUndefined();
        return;
      }
      const known = agentOf.get(task);
      if (known === undefined) agentOf.set(task, m!.agentId!);
      else expect(m!.agentId, what).toBe(known);
    };
    for (const text of agent.texts) {
      expect(
        texts.filter((t) => t === text),
        text,
      ).toHaveLength(1);
      place(
        messages.find((m) => m.type === 'text' && m.text === text),
        text,
      );
    }
    for (const call of agent.calls) {
      expect(
        starts.filter((m) => m.type === 'tool-call-start' && m.callId === call.id),
        call.id,
      ).toHaveLength(1);
      expect(
        ends.filter((m) => m.type === 'tool-call-end' && m.callId === call.id),
        call.id,
      ).toHaveLength(1);
      place(
        starts.find((m) => m.type === 'tool-call-start' && m.callId === call.id),
        call.id,
      );
      const end = ends.find((m) => m.type === 'tool-call-end' && m.callId === call.id)!;
      expect(end.error, `${call.id} ended by its result`).toBeUndefined();
      if (call.sub) visit(call.sub, call.id);
    }
  };
  for (const turn of session) {
    expect(texts.filter((t) => t === turn.prompt)).toHaveLength(1);
    visit(turn.main, undefined);
  }
  expect(new Set(agentOf.values()).size).toBe(agentOf.size);
}

describe('Claude mapper: properties', () => {
  it('SDK streams: any interleaving of the main agent and its subagents maps to a valid stream with nothing lost', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, fc.integer(), async (session, seed) => {
        const { messages, skipped } = await mapValid('claude', sdkEvents(session, seed));
        expectEverythingPlaced(session, messages);
        // Only a result after a turn without output (nothing opened a turn) is left out.
        expect(skipped.total).toBe(skipped.byReason['not-displayed'] ?? 0);
      }),
      { numRuns: 60 },
    );
  });

  it('stored session lines in any order within a turn map to the same placement', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, fc.integer(), async (session, seed) => {
        const { messages, skipped } = await mapValid('claude', storedEvents(session, seed));
        expectEverythingPlaced(session, messages);
        expect(skipped.total).toBe(0);
      }),
      { numRuns: 60 },
    );
  });
});
