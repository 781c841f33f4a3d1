import { describe, expect, it } from 'vitest';
import {
  assertSessionMessage,
  foldTranscript,
  type SessionMessage,
  type ToolCallNode,
  type TranscriptNode,
  type TurnNode,
} from '../../../src/core/protocol/index.js';
import { StreamWriter } from './stream-fixtures.js';

const parse = (w: StreamWriter): SessionMessage[] => w.messages.map((m) => assertSessionMessage(m));

function only<T extends TranscriptNode['type']>(node: TranscriptNode | undefined, type: T) {
  if (node === undefined || node.type !== type) throw new Error(`expected a ${type} node, got ${node?.type}`);
  return node as Extract<TranscriptNode, { type: T }>;
}

// A compact picture of the tree: types, with call ids and agent ids, for whole-shape assertions.
function shape(nodes: TranscriptNode[]): unknown[] {
  return nodes.map((node) => {
    switch (node.type) {
      case 'turn':
        return { turn: node.turn, status: node.status, children: shape(node.children) };
      case 'tool-call':
        return { call: node.callId, status: node.status, children: shape(node.children) };
      case 'agent':
        return { agent: node.agentId, title: node.title, children: shape(node.children) };
      case 'text':
      case 'service':
        return node.text;
      default:
        return node.type;
    }
  });
}

describe('foldTranscript', () => {
  it('folds turns, calls and messages in place, in stream order', () => {
    const w = new StreamWriter()
      .user('hello')
      .photo(undefined)
      .turnStart('t1')
      .text('t1', 'a')
      .callStart('t1', 'c1')
      .callEnd('t1', 'c1')
      .photo('t1')
      .text('t1', 'b')
      .turnEnd('t1')
      .service('compacted');
    const { items, turns, calls } = foldTranscript(parse(w));
    expect(shape(items)).toEqual([
      'hello',
      'photo',
      {
        turn: 't1',
        status: 'completed',
        children: ['a', { call: 'c1', status: 'completed', children: [] }, 'photo', 'b'],
      },
      'compacted',
    ]);
    const turn = turns.get('t1')!;
    expect(turn.start?.id).toBe('m2');
    expect(turn.end?.id).toBe('m8');
    expect(turn.startTime).toBe(turn.start!.time);
    expect(turn.endTime).toBe(turn.end!.time);
    const call = calls.get('c1')!;
    expect(call).toMatchObject({ toolName: 'bash', title: 'Run c1', args: { command: 'c1' } });
    expect(call.endTime! - call.startTime).toBe(1);
  });

  it('nests children by parentId to depth 4 and groups each subagent under the spawning call title', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callStart('t1', 'task', { agentTitle: 'Auth research' })
      .text('t1', 'sub1 says', { parentId: 'task', agentId: 'sub1' })
      .callStart('t1', 'grep', { parentId: 'task', agentId: 'sub1' })
      .text('t1', 'grep output note', { parentId: 'grep', agentId: 'sub1' })
      .callStart('t1', 'task2', { parentId: 'task', agentId: 'sub1', agentTitle: 'Deep dive' })
      .text('t1', 'sub2 says', { parentId: 'task2', agentId: 'sub2' })
      .callStart('t1', 'read', { parentId: 'task2', agentId: 'sub2' })
      .text('t1', 'level 4', { parentId: 'read', agentId: 'sub2' })
      .callEnd('t1', 'read', { parentId: 'task2', agentId: 'sub2' })
      .callEnd('t1', 'task2', { parentId: 'task', agentId: 'sub1' })
      .callEnd('t1', 'grep', { parentId: 'task', agentId: 'sub1' })
      .text('t1', 'other agent in the same call', { parentId: 'task', agentId: 'sub3' })
      .text('t1', 'sub1 again', { parentId: 'task', agentId: 'sub1' })
      .callEnd('t1', 'task')
      .turnEnd('t1');
    const { items } = foldTranscript(parse(w));
    expect(shape(items)).toEqual([
      {
        turn: 't1',
        status: 'completed',
        children: [
          {
            call: 'task',
            status: 'completed',
            children: [
              {
                agent: 'sub1',
                title: 'Auth research',
                children: [
                  'sub1 says',
                  { call: 'grep', status: 'completed', children: ['grep output note'] },
                  {
                    call: 'task2',
                    status: 'completed',
                    children: [
                      {
                        agent: 'sub2',
                        title: 'Deep dive',
                        children: ['sub2 says', { call: 'read', status: 'completed', children: ['level 4'] }],
                      },
                    ],
                  },
                  'sub1 again',
                ],
              },
              { agent: 'sub3', title: 'Auth research', children: ['other agent in the same call'] },
            ],
          },
        ],
      },
    ]);
    const task = only(only(items[0], 'turn').children[0], 'tool-call');
    const group = only(task.children[0], 'agent');
    expect(group.parentCallId).toBe('task');
  });

  it('keeps the permission audit trail on the call: request, response, chosen option, kind, times', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callStart('t1', 'rm')
      .request('t1', 'rm', ['ok', 'nope'])
      .response('rm', 'nope', { time: 1_767_225_700_000 })
      .request('t1', 'rm', ['ok', 'nope', 'always'], { time: 1_767_225_700_001 })
      .response('rm', 'always', { time: 1_767_225_700_500 })
      .callStart('t1', 'ls')
      .request('t1', 'ls')
      .turnEnd('t1', 'cancelled');
    const { calls, items } = foldTranscript(parse(w));
    const rm = calls.get('rm')!;
    expect(rm.permissions).toHaveLength(2);
    expect(rm.permissions[0]).toMatchObject({
      decision: 'rejected',
      kind: 'reject-once',
      chosen: { id: 'nope', label: 'nope', kind: 'reject-once' },
      requestedAt: w.messages[2]!.time,
      respondedAt: 1_767_225_700_000,
    });
    expect(rm.permissions[0]!.request.id).toBe('m2');
    expect(rm.permissions[0]!.response!.id).toBe('m3');
    expect(rm.permissions[1]).toMatchObject({
      decision: 'allowed',
      kind: 'allow-always',
      respondedAt: 1_767_225_700_500,
    });
    const ls = calls.get('ls')!;
    expect(ls.permissions).toEqual([
      {
        request: expect.objectContaining({ id: 'm7' }),
        decision: 'pending',
        requestedAt: w.messages[7]!.time,
      },
    ]);
    // The cancelled turn never ended its calls: they are abandoned, not running.
    expect(rm.status).toBe('abandoned');
    expect(ls.status).toBe('abandoned');
    // Permission messages live in the trail, not in the tree.
    expect(shape(items)).toEqual([
      {
        turn: 't1',
        status: 'cancelled',
        children: [
          { call: 'rm', status: 'abandoned', children: [] },
          { call: 'ls', status: 'abandoned', children: [] },
        ],
      },
    ]);
  });

  it('marks failed calls with their error and leaves open ones running', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callStart('t1', 'a')
      .callEnd('t1', 'a', { error: 'exit 1' })
      .callStart('t1', 'b');
    const { calls, turns } = foldTranscript(parse(w));
    expect(calls.get('a')).toMatchObject({ status: 'failed', error: 'exit 1' });
    expect(calls.get('b')!.status).toBe('running');
    expect(turns.get('t1')!.status).toBe('open');
  });

  it('starts an implicit turn for an excerpt that begins mid-turn', () => {
    const w = new StreamWriter().text('t9', 'mid').turnEnd('t9').user('next');
    const { items } = foldTranscript(parse(w));
    const turn = only(items[0], 'turn') as TurnNode;
    expect(turn.start).toBeUndefined();
    expect(turn.status).toBe('completed');
    expect(shape(items)).toEqual([{ turn: 't9', status: 'completed', children: ['mid'] }, 'next']);
  });

  it('places user messages written during a turn inside that turn, in order', () => {
    const w = new StreamWriter().turnStart('t1').text('t1', 'working').user('also check tests').turnEnd('t1');
    expect(shape(foldTranscript(parse(w)).items)).toEqual([
      { turn: 't1', status: 'completed', children: ['working', 'also check tests'] },
    ]);
  });

  it('keeps media in place with all their fields', () => {
    const w = new StreamWriter().turnStart('t1').text('t1', 'here').photo('t1', { width: 640 }).turnEnd('t1');
    const turn = only(foldTranscript(parse(w)).items[0], 'turn');
    const photo = only(turn.children[1], 'photo');
    expect(photo).toMatchObject({
      ref: 'media/p1',
      width: 640,
      height: 3,
      thumbhash: '3OcRJYB4d3h/iIeHeEh3eIhw+j2w',
    });
  });

  it('never throws on an invalid stream and keeps what it cannot attach in place', () => {
    const w = new StreamWriter()
      .callEnd('t1', 'ghost')
      .response('ghost', 'yes')
      .request('t1', 'ghost')
      .turnStart('t1')
      .callStart('t1', 'c1')
      .callStart('t1', 'c1')
      .callEnd('t1', 'c1')
      .callEnd('t1', 'c1')
      .request('t1', 'c1', ['a'])
      .response('c1', 'zzz')
      .text('t1', 'orphan child', { parentId: 'unknown' })
      .turnEnd('t1')
      .turnEnd('t1');
    const { items, calls } = foldTranscript(parse(w));
    expect(shape(items)).toEqual([
      {
        turn: 't1',
        status: 'completed',
        children: [
          'tool-call-end',
          'permission-response',
          'permission-request',
          { call: 'c1', status: 'completed', children: [] },
          'tool-call-start',
          'tool-call-end',
          'permission-response',
          'orphan child',
          'turn-end',
        ],
      },
    ]);
    expect(calls.get('c1')!.permissions).toHaveLength(1);
    expect(calls.get('c1')!.permissions[0]!.decision).toBe('pending');
  });

  it('renders with one switch over every node type', () => {
    const w = new StreamWriter()
      .user('hi')
      .turnStart('t1')
      .callStart('t1', 'task', { agentTitle: 'Sub' })
      .text('t1', 'x', { parentId: 'task', agentId: 's' })
      .callEnd('t1', 'task')
      .service('svc', { turn: 't1' })
      .turnEnd('t1');
    const render = (node: TranscriptNode): string => {
      switch (node.type) {
        case 'turn':
          return `turn(${node.children.map(render).join(',')})`;
        case 'tool-call':
          return `call:${(node as ToolCallNode).toolName}(${node.children.map(render).join(',')})`;
        case 'agent':
          return `agent:${node.title}(${node.children.map(render).join(',')})`;
        case 'text':
          return `${node.role}:${node.text}`;
        case 'service':
          return `service:${node.text}`;
        case 'photo':
        case 'video':
        case 'file':
          return node.type;
        default:
          return `raw:${node.type}`;
      }
    };
    expect(foldTranscript(parse(w)).items.map(render)).toEqual([
      'user:hi',
      'turn(call:bash(agent:Sub(agent:x)),service:svc)',
    ]);
  });
});
