/**
 * Property tests: random well-formed streams (turns, nested tool calls, subagents, permission rounds,
 * media, clock jitter within the tolerance) are valid, and each single mutation of one is caught at the
 * mutated message with the expected rule code, with nothing reported before it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertSessionMessage,
  DEFAULT_TIME_TOLERANCE_MS,
  foldTranscript,
  type StreamViolationCode,
  type TranscriptNode,
  validateStream,
} from '../../../src/core/protocol/index.js';

type Item =
  | { kind: 'text'; thinking: boolean }
  | { kind: 'media'; media: 'photo' | 'video' | 'file' }
  | { kind: 'service' }
  | {
      kind: 'call';
      subagent: boolean;
      failed: boolean;
      permissions: { options: number; choice: number }[];
      children: Item[];
    };

interface TurnPlan {
  before: ('text' | 'photo' | 'service')[];
  items: Item[];
  status: 'completed' | 'failed' | 'cancelled';
  // Only for failed/cancelled turns: a last call that never ends (maybe awaiting permission).
  abandon: { pendingPermission: boolean } | null;
}

const itemArb: fc.Arbitrary<Item> = fc.letrec<{ item: Item }>((tie) => ({
  item: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ kind: fc.constant('text' as const), thinking: fc.boolean() }),
    fc.record({
      kind: fc.constant('media' as const),
      media: fc.constantFrom('photo' as const, 'video' as const, 'file' as const),
    }),
    fc.record({ kind: fc.constant('service' as const) }),
    fc.record({
      kind: fc.constant('call' as const),
      subagent: fc.boolean(),
      failed: fc.boolean(),
      permissions: fc.array(fc.record({ options: fc.integer({ min: 1, max: 4 }), choice: fc.nat() }), {
        maxLength: 2,
      }),
      children: fc.array(tie('item'), { maxLength: 3 }),
    }),
  ),
})).item;

const turnArb: fc.Arbitrary<TurnPlan> = fc
  .record({
    before: fc.array(fc.constantFrom('text' as const, 'photo' as const, 'service' as const), {
      maxLength: 2,
    }),
    items: fc.array(itemArb, { maxLength: 5 }),
    status: fc.constantFrom('completed' as const, 'failed' as const, 'cancelled' as const),
    abandon: fc.option(fc.record({ pendingPermission: fc.boolean() }), { nil: null }),
  })
  .map((turn) => (turn.status === 'completed' ? { ...turn, abandon: null } : turn));

const planArb = fc.record({
  turns: fc.array(turnArb, { minLength: 1, maxLength: 4 }),
  // Clock jitter: each message's time is the latest so far plus this (may be negative, within tolerance).
  jitter: fc.array(fc.integer({ min: -DEFAULT_TIME_TOLERANCE_MS / 2, max: 5000 }), {
    minLength: 1,
    maxLength: 50,
  }),
});

const KINDS = ['allow-once', 'reject-once', 'allow-always', 'reject-always'] as const;

type Raw = Record<string, unknown>;

function render(plan: { turns: TurnPlan[]; jitter: number[] }): Raw[] {
  const out: Raw[] = [];
  let latest = 1_767_225_600_000;
  let counter = 0;
  const next = (prefix: string) => `${prefix}${counter++}`;
  const emit = (fields: Raw) => {
    const jitter = plan.jitter[out.length % plan.jitter.length]!;
    const time = latest + jitter;
    latest = Math.max(latest, time);
    out.push({ id: next('m'), time, ...fields });
  };
  const ctxFields = (ctx: { parentId?: string; agentId?: string }) => ({
    ...(ctx.parentId === undefined ? {} : { parentId: ctx.parentId }),
    ...(ctx.agentId === undefined ? {} : { agentId: ctx.agentId }),
  });
  const media = (kind: 'photo' | 'video' | 'file', role: 'agent' | 'user', turn?: string): Raw => {
    const base = { role, type: kind, ...(turn === undefined ? {} : { turn }), ref: `media/${next('r')}` };
    if (kind === 'file') return { ...base, name: 'report.pdf', size: 1024, mimeType: 'application/pdf' };
    const visual = { ...base, thumbhash: '3OcRJYB4d3h/iIeHeEh3eIhw+j2w', width: 640, height: 480 };
    return kind === 'photo' ? visual : { ...visual, durationMs: 1500, mimeType: 'video/mp4', size: 4096 };
  };
  const permissions = (
    turn: string,
    callId: string,
    rounds: { options: number; choice: number }[],
    answerLast = true,
  ) => {
    rounds.forEach((round, r) => {
      const options = Array.from({ length: round.options }, (_, i) => ({
        id: `${callId}-o${i}`,
        label: `Option ${i}`,
        kind: KINDS[i % 4],
      }));
      emit({
        role: 'agent',
        type: 'permission-request',
        turn,
        callId,
        toolName: 'bash',
        title: 'Run it',
        options,
      });
      if (answerLast || r < rounds.length - 1) {
        emit({
          role: 'user',
          type: 'permission-response',
          callId,
          optionId: options[round.choice % round.options]!.id,
        });
      }
    });
  };
  const item = (turn: string, it: Item, ctx: { parentId?: string; agentId?: string }) => {
    switch (it.kind) {
      case 'text':
        emit({
          role: 'agent',
          type: 'text',
          turn,
          text: 'words',
          ...(it.thinking ? { thinking: true } : {}),
          ...ctxFields(ctx),
        });
        return;
      case 'media':
        emit({ ...media(it.media, 'agent', turn), ...ctxFields(ctx) });
        return;
      case 'service':
        emit({ role: 'agent', type: 'service', turn, text: 'note', ...ctxFields(ctx) });
        return;
      case 'call': {
        const callId = next('c');
        emit({
          role: 'agent',
          type: 'tool-call-start',
          turn,
          callId,
          toolName: it.subagent ? 'task' : 'bash',
          title: 'Call',
          description: 'does something',
          args: { n: counter },
          ...(it.subagent ? { agentTitle: `Agent for ${callId}` } : {}),
          ...ctxFields(ctx),
        });
        permissions(turn, callId, it.permissions);
        const childCtx = { parentId: callId, agentId: it.subagent ? next('a') : ctx.agentId };
        for (const child of it.children) item(turn, child, childCtx);
        emit({
          role: 'agent',
          type: 'tool-call-end',
          turn,
          callId,
          ...(it.failed ? { error: 'exit 1' } : {}),
          ...ctxFields(ctx),
        });
        return;
      }
    }
  };
  for (const plannedTurn of plan.turns) {
    for (const b of plannedTurn.before) {
      if (b === 'text') emit({ role: 'user', type: 'text', text: 'prompt' });
      else if (b === 'photo') emit(media('photo', 'user'));
      else emit({ role: 'agent', type: 'service', text: 'between turns' });
    }
    const turn = next('t');
    emit({ role: 'agent', type: 'turn-start', turn });
    for (const it of plannedTurn.items) item(turn, it, {});
    if (plannedTurn.abandon !== null) {
      const callId = next('c');
      emit({
        role: 'agent',
        type: 'tool-call-start',
        turn,
        callId,
        toolName: 'bash',
        title: 'x',
        description: 'y',
        args: {},
      });
      if (plannedTurn.abandon.pendingPermission)
        permissions(turn, callId, [{ options: 2, choice: 0 }], false);
    }
    emit({ role: 'agent', type: 'turn-end', turn, status: plannedTurn.status });
  }
  return out;
}

const streamArb = planArb.map(render);

interface Mutation {
  messages: Raw[];
  index: number;
  code: StreamViolationCode;
}

const indicesWhere = (messages: Raw[], test: (m: Raw, i: number) => boolean) =>
  messages.flatMap((m, i) => (test(m, i) ? [i] : []));
const clone = (messages: Raw[]) => structuredClone(messages);

// Each mutation takes a valid stream and a random number, and returns the broken stream with the index
// and code that must be reported, or null when the stream has nothing to mutate.
const MUTATIONS: Record<string, (messages: Raw[], pick: number) => Mutation | null> = {
  'duplicate an id': (messages, pick) => {
    if (messages.length < 2) return null;
    const j = 1 + (pick % (messages.length - 1));
    const i = pick % j;
    const out = clone(messages);
    out[j]!.id = out[i]!.id;
    return { messages: out, index: j, code: 'DUPLICATE_ID' };
  },
  'drop a turn-end, then start the next turn': (messages, pick) => {
    const ends = indicesWhere(
      messages,
      (m, i) => m.type === 'turn-end' && messages.slice(i).some((n) => n.type === 'turn-start'),
    );
    if (ends.length === 0) return null;
    const e = ends[pick % ends.length]!;
    const out = clone(messages);
    out.splice(e, 1);
    const next = out.findIndex((m, i) => i >= e && m.type === 'turn-start');
    return { messages: out, index: next, code: 'TURN_ALREADY_OPEN' };
  },
  'reuse an ended turn id': (messages, pick) => {
    const starts = indicesWhere(messages, (m) => m.type === 'turn-start');
    if (starts.length < 2) return null;
    const j = starts[1 + (pick % (starts.length - 1))]!;
    const out = clone(messages);
    out[j]!.turn = messages[starts[0]!]!.turn;
    return { messages: out, index: j, code: 'TURN_ID_REUSED' };
  },
  'name another turn': (messages, pick) => {
    const inTurn = indicesWhere(
      messages,
      (m) => m.role === 'agent' && m.turn !== undefined && m.type !== 'turn-start' && m.type !== 'turn-end',
    );
    if (inTurn.length === 0) return null;
    const j = inTurn[pick % inTurn.length]!;
    const out = clone(messages);
    out[j]!.turn = 'another-turn';
    return { messages: out, index: j, code: 'TURN_MISMATCH' };
  },
  'reuse a callId': (messages, pick) => {
    const starts = indicesWhere(messages, (m) => m.type === 'tool-call-start');
    if (starts.length < 2) return null;
    const j = starts[1 + (pick % (starts.length - 1))]!;
    const out = clone(messages);
    out[j]!.callId = messages[starts[pick % (starts.indexOf(j) || 1)]!]!.callId;
    return { messages: out, index: j, code: 'CALL_ID_REUSED' };
  },
  'end a call twice': (messages, pick) => {
    const ends = indicesWhere(messages, (m) => m.type === 'tool-call-end');
    if (ends.length === 0) return null;
    const e = ends[pick % ends.length]!;
    const out = clone(messages);
    out.splice(e + 1, 0, { ...structuredClone(messages[e]!), id: 'the-second-end' });
    return { messages: out, index: e + 1, code: 'CALL_NOT_OPEN' };
  },
  'drop a tool-call-end in a completed turn': (messages, pick) => {
    const ends = indicesWhere(messages, (m, i) => {
      if (m.type !== 'tool-call-end') return false;
      const turnEnd = messages.find((n, k) => k > i && n.type === 'turn-end');
      return turnEnd?.status === 'completed';
    });
    if (ends.length === 0) return null;
    const e = ends[pick % ends.length]!;
    const out = clone(messages);
    out.splice(e, 1);
    const turnEnd = out.findIndex((m, i) => i >= e && m.type === 'turn-end');
    return { messages: out, index: turnEnd, code: 'CALL_LEFT_OPEN' };
  },
  'point a permission-request at no open call': (messages, pick) => {
    const requests = indicesWhere(messages, (m) => m.type === 'permission-request');
    if (requests.length === 0) return null;
    const j = requests[pick % requests.length]!;
    const out = clone(messages);
    out[j]!.callId = 'ghost-call';
    return { messages: out, index: j, code: 'PERMISSION_OUTSIDE_CALL' };
  },
  'answer with an unknown optionId': (messages, pick) => {
    const responses = indicesWhere(messages, (m) => m.type === 'permission-response');
    if (responses.length === 0) return null;
    const j = responses[pick % responses.length]!;
    const out = clone(messages);
    out[j]!.optionId = 'not-an-option';
    return { messages: out, index: j, code: 'PERMISSION_OPTION_UNKNOWN' };
  },
  'answer a permission twice': (messages, pick) => {
    const responses = indicesWhere(messages, (m) => m.type === 'permission-response');
    if (responses.length === 0) return null;
    const j = responses[pick % responses.length]!;
    const out = clone(messages);
    out.splice(j + 1, 0, { ...structuredClone(messages[j]!), id: 'the-second-answer' });
    return { messages: out, index: j + 1, code: 'PERMISSION_RESPONSE_UNMATCHED' };
  },
  'name an unknown parentId': (messages, pick) => {
    const j = pick % messages.length;
    const out = clone(messages);
    out[j]!.parentId = 'no-such-call';
    return { messages: out, index: j, code: 'PARENT_UNKNOWN' };
  },
  'step time back beyond the tolerance': (messages, pick) => {
    if (messages.length < 2) return null;
    const j = 1 + (pick % (messages.length - 1));
    const latest = Math.max(...messages.slice(0, j).map((m) => m.time as number));
    const out = clone(messages);
    out[j]!.time = latest - DEFAULT_TIME_TOLERANCE_MS - 1 - (pick % 1000);
    return { messages: out, index: j, code: 'TIME_WENT_BACKWARDS' };
  },
  'break the schema': (messages, pick) => {
    const j = pick % messages.length;
    const out = clone(messages);
    const m = out[j]!;
    const breakages: ((m: Raw) => void)[] = [
      (m) => delete m.id,
      (m) => (m.time = 1.5),
      (m) => (m.time = -1),
      (m) => (m.id = ''),
      (m) => (m.role = 'robot'),
      (m) => (m.turn = 42),
      (m) => (m.agentId = 'bad\u0000id'),
      (m) => (m.ref = 'media/../x'),
    ];
    const breakage = breakages[pick % breakages.length]!;
    breakage(m);
    return { messages: out, index: j, code: 'SCHEMA' };
  },
};

function countNodes(nodes: TranscriptNode[], counts: Map<string, number>): void {
  for (const node of nodes) {
    counts.set(node.type, (counts.get(node.type) ?? 0) + 1);
    if (node.type === 'turn' || node.type === 'tool-call' || node.type === 'agent')
      countNodes(node.children, counts);
  }
}

describe('stream properties', () => {
  it('random well-formed streams are valid, strictly, with turn-starts required', () => {
    fc.assert(
      fc.property(streamArb, (messages) => {
        expect(validateStream(messages, { mode: 'strict', requireTurnStart: true })).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('the fold places every message exactly once', () => {
    fc.assert(
      fc.property(streamArb, (raw) => {
        const messages = raw.map((m) => assertSessionMessage(m, { mode: 'strict' }));
        const { items, calls } = foldTranscript(messages);
        const counts = new Map<string, number>();
        countNodes(items, counts);
        const count = (type: string) => messages.filter((m) => m.type === type).length;
        expect(counts.get('turn') ?? 0).toBe(count('turn-start'));
        expect(counts.get('tool-call') ?? 0).toBe(count('tool-call-start'));
        for (const type of ['text', 'photo', 'video', 'file', 'service'])
          expect(counts.get(type) ?? 0).toBe(count(type));
        // Nothing is left unattached in a valid stream.
        for (const type of [
          'turn-start',
          'turn-end',
          'tool-call-start',
          'tool-call-end',
          'permission-request',
          'permission-response',
        ]) {
          expect(counts.get(type) ?? 0).toBe(0);
        }
        const trail = [...calls.values()].flatMap((c) => c.permissions);
        expect(trail.length).toBe(count('permission-request'));
        expect(trail.filter((p) => p.decision !== 'pending').length).toBe(count('permission-response'));
        for (const call of calls.values()) expect(call.status).not.toBe('running');
      }),
      { numRuns: 200 },
    );
  });

  for (const [name, mutate] of Object.entries(MUTATIONS)) {
    it(`catches a single mutation: ${name}`, () => {
      fc.assert(
        fc.property(streamArb, fc.nat(), (messages, pick) => {
          const mutation = mutate(messages, pick);
          fc.pre(mutation !== null);
          const { messages: broken, index, code } = mutation!;
          const violations = validateStream(broken);
          expect(violations.filter((v) => v.index < index)).toEqual([]);
          expect(violations.filter((v) => v.index === index).map((v) => v.code)).toContain(code);
        }),
        { numRuns: 150 },
      );
    });
  }
});
