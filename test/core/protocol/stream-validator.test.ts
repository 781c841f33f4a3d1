import { describe, expect, it } from 'vitest';
import {
  createStreamValidator,
  DEFAULT_TIME_TOLERANCE_MS,
  STREAM_RULES,
  type StreamViolation,
  validateStream,
} from '../../../src/core/protocol/index.js';
import { StreamWriter } from './stream-fixtures.js';

const codes = (violations: StreamViolation[]) => violations.map((v) => `${v.index}:${v.code}`);

function validTurn(): StreamWriter {
  return new StreamWriter()
    .user('Delete node_modules')
    .turnStart('t1')
    .text('t1', 'Sure.')
    .callStart('t1', 'c1')
    .request('t1', 'c1')
    .response('c1', 'yes')
    .callEnd('t1', 'c1')
    .turnEnd('t1');
}

describe('stream validator: valid streams', () => {
  it('accepts a complete turn with a permission round', () => {
    expect(validateStream(validTurn().messages, { requireTurnStart: true })).toEqual([]);
  });

  it('accepts an empty stream, and a stream of user messages only', () => {
    expect(validateStream([])).toEqual([]);
    expect(validateStream(new StreamWriter().user('a').photo(undefined).user('b').messages)).toEqual([]);
  });

  it('accepts consecutive turns, service messages with and without turn, and nested calls', () => {
    const w = validTurn()
      .service('compacted')
      .user('next')
      .turnStart('t2')
      .service('in turn', { turn: 't2' })
      .service('no turn inside a turn')
      .callStart('t2', 'task', { agentTitle: 'Research' })
      .callStart('t2', 'c2', { parentId: 'task', agentId: 'sub1' })
      .callStart('t2', 'c3', { parentId: 'c2', agentId: 'sub1' })
      .text('t2', 'deep', { parentId: 'c3', agentId: 'sub2' })
      .callEnd('t2', 'c3', { parentId: 'c2', agentId: 'sub1' })
      .callEnd('t2', 'c2', { parentId: 'task', agentId: 'sub1' })
      .callEnd('t2', 'task')
      .turnEnd('t2', 'completed');
    expect(validateStream(w.messages, { requireTurnStart: true })).toEqual([]);
  });

  it('allows a user message to carry the open turn', () => {
    const w = new StreamWriter().turnStart('t1').user('stop', { turn: 't1' }).turnEnd('t1', 'cancelled');
    expect(validateStream(w.messages)).toEqual([]);
  });

  it('lets a failed or cancelled turn leave calls unended', () => {
    for (const status of ['failed', 'cancelled']) {
      const w = new StreamWriter()
        .turnStart('t1')
        .callStart('t1', 'c1')
        .request('t1', 'c1')
        .turnEnd('t1', status);
      expect(validateStream(w.messages)).toEqual([]);
    }
  });

  it('allows repeated permission requests for one call once each is answered', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callStart('t1', 'c1')
      .request('t1', 'c1')
      .response('c1', 'no')
      .request('t1', 'c1')
      .response('c1', 'yes')
      .callEnd('t1', 'c1')
      .turnEnd('t1');
    expect(validateStream(w.messages)).toEqual([]);
  });
});

describe('stream validator: each rule', () => {
  it('SCHEMA and UNKNOWN_TYPE: a message that does not parse', () => {
    const w = new StreamWriter().user('a').raw({ id: 'x', time: 1, role: 'user', type: 'text' }).raw({
      id: 'y',
      time: 1,
      role: 'agent',
      type: 'plan',
      entries: [],
    });
    const violations = validateStream([...w.messages, 'not an object', null]);
    expect(codes(violations)).toEqual(['1:SCHEMA', '2:UNKNOWN_TYPE', '3:SCHEMA', '4:SCHEMA']);
    expect(violations[0]!.id).toBe('x');
    expect(violations[0]!.message).toContain('text');
    expect(violations[3]!.id).toBeUndefined();
  });

  it('SCHEMA for unknown fields only in strict mode', () => {
    const messages = new StreamWriter().user('a', { extra: true }).messages;
    expect(validateStream(messages)).toEqual([]);
    expect(codes(validateStream(messages, { mode: 'strict' }))).toEqual(['0:SCHEMA']);
  });

  it('DUPLICATE_ID', () => {
    const w = new StreamWriter().user('a', { id: 'same' }).user('b', { id: 'same' });
    const violations = validateStream(w.messages);
    expect(codes(violations)).toEqual(['1:DUPLICATE_ID']);
    expect(violations[0]).toMatchObject({ id: 'same' });
    expect(violations[0]!.message).toContain('message 0');
  });

  it('TIME_WENT_BACKWARDS beyond the tolerance only, against the latest time seen', () => {
    const t = 1_767_225_600_000;
    const within = new StreamWriter()
      .user('a', { time: t })
      .user('b', { time: t - DEFAULT_TIME_TOLERANCE_MS })
      .user('c', { time: t - 5 });
    expect(validateStream(within.messages)).toEqual([]);
    const beyond = new StreamWriter()
      .user('a', { time: t })
      .user('b', { time: t + 100 })
      .user('c', { time: t + 99 - DEFAULT_TIME_TOLERANCE_MS })
      .user('d', { time: t + 200 });
    expect(codes(validateStream(beyond.messages))).toEqual(['2:TIME_WENT_BACKWARDS']);
    // Seconds instead of milliseconds.
    const seconds = new StreamWriter().user('a', { time: t }).user('b', { time: Math.floor(t / 1000) });
    expect(codes(validateStream(seconds.messages))).toEqual(['1:TIME_WENT_BACKWARDS']);
    // The tolerance is an option.
    expect(validateStream(beyond.messages, { timeToleranceMs: 10 * 60_000 })).toEqual([]);
    expect(codes(validateStream(within.messages, { timeToleranceMs: 0 }))).toEqual([
      '1:TIME_WENT_BACKWARDS',
      '2:TIME_WENT_BACKWARDS',
    ]);
  });

  it('TURN_ALREADY_OPEN: turns do not nest or overlap', () => {
    const nested = new StreamWriter().turnStart('t1').turnStart('t2').text('t2', 'x').turnEnd('t2');
    expect(codes(validateStream(nested.messages))).toEqual(['1:TURN_ALREADY_OPEN']);
    const same = new StreamWriter().turnStart('t1').turnStart('t1');
    expect(codes(validateStream(same.messages))).toEqual(['1:TURN_ALREADY_OPEN']);
  });

  it('TURN_ID_REUSED: a turn id is started once', () => {
    const w = new StreamWriter().turnStart('t1').turnEnd('t1').turnStart('t1').turnEnd('t1');
    expect(codes(validateStream(w.messages))).toEqual(['2:TURN_ID_REUSED']);
  });

  it('TURN_NOT_OPEN: turn-end or a message of a turn that is not open', () => {
    const afterEnd = new StreamWriter().turnStart('t1').turnEnd('t1').text('t1', 'late').turnEnd('t1');
    expect(codes(validateStream(afterEnd.messages))).toEqual(['2:TURN_NOT_OPEN', '3:TURN_NOT_OPEN']);
    const userTurn = new StreamWriter().turnStart('t1').turnEnd('t1').user('x', { turn: 't1' });
    expect(codes(validateStream(userTurn.messages))).toEqual(['2:TURN_NOT_OPEN']);
  });

  it('TURN_NOT_OPEN at the head only with requireTurnStart, reported once', () => {
    const excerpt = new StreamWriter()
      .text('t1', 'a')
      .callStart('t1', 'c1')
      .callEnd('t1', 'c1')
      .turnEnd('t1');
    expect(validateStream(excerpt.messages)).toEqual([]);
    expect(codes(validateStream(excerpt.messages, { requireTurnStart: true }))).toEqual(['0:TURN_NOT_OPEN']);
    const endOnly = new StreamWriter().turnEnd('t0').user('hi').turnStart('t1').turnEnd('t1');
    expect(validateStream(endOnly.messages)).toEqual([]);
    expect(codes(validateStream(endOnly.messages, { requireTurnStart: true }))).toEqual(['0:TURN_NOT_OPEN']);
  });

  it('TURN_NOT_OPEN after the head: only the first turn may be implicit', () => {
    const w = new StreamWriter().text('t1', 'a').turnEnd('t1').text('t2', 'b');
    expect(codes(validateStream(w.messages))).toEqual(['2:TURN_NOT_OPEN']);
  });

  it('TURN_MISMATCH: a message names another turn than the open one', () => {
    const w = new StreamWriter().turnStart('t1').text('t2', 'x').turnEnd('t2').turnEnd('t1');
    expect(codes(validateStream(w.messages))).toEqual(['1:TURN_MISMATCH', '2:TURN_MISMATCH']);
  });

  it('CALL_ID_REUSED', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callStart('t1', 'c1')
      .callEnd('t1', 'c1')
      .callStart('t1', 'c1')
      .turnEnd('t1');
    expect(codes(validateStream(w.messages))).toEqual(['3:CALL_ID_REUSED']);
  });

  it('CALL_NOT_OPEN: an end without a start, or a second end', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callEnd('t1', 'nope')
      .callStart('t1', 'c1')
      .callEnd('t1', 'c1')
      .callEnd('t1', 'c1')
      .turnEnd('t1');
    expect(codes(validateStream(w.messages))).toEqual(['1:CALL_NOT_OPEN', '4:CALL_NOT_OPEN']);
  });

  it('CALL_NOT_OPEN: a call does not outlive its turn', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callStart('t1', 'c1')
      .turnEnd('t1', 'cancelled')
      .turnStart('t2')
      .callEnd('t2', 'c1')
      .turnEnd('t2');
    expect(codes(validateStream(w.messages))).toEqual(['4:CALL_NOT_OPEN']);
  });

  it('CALL_CONTEXT_MISMATCH: the end carries the start parentId and agentId', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callStart('t1', 'task')
      .callStart('t1', 'c1', { parentId: 'task', agentId: 'sub1' })
      .callEnd('t1', 'c1', { parentId: 'task' })
      .callEnd('t1', 'task', { agentId: 'sub1' })
      .turnEnd('t1');
    expect(codes(validateStream(w.messages))).toEqual(['3:CALL_CONTEXT_MISMATCH', '4:CALL_CONTEXT_MISMATCH']);
  });

  it('CALL_LEFT_OPEN: a completed turn ended every call', () => {
    const w = new StreamWriter().turnStart('t1').callStart('t1', 'c1').callStart('t1', 'c2').turnEnd('t1');
    const violations = validateStream(w.messages);
    expect(codes(violations)).toEqual(['3:CALL_LEFT_OPEN', '3:CALL_LEFT_OPEN']);
    expect(violations.map((v) => v.message).join()).toMatch(/"c1".*"c2"/);
  });

  it('PERMISSION_OUTSIDE_CALL: before the start, after the end, or for an unknown call', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .request('t1', 'c1')
      .callStart('t1', 'c1')
      .callEnd('t1', 'c1')
      .request('t1', 'c1')
      .request('t1', 'zz')
      .turnEnd('t1');
    expect(codes(validateStream(w.messages))).toEqual([
      '1:PERMISSION_OUTSIDE_CALL',
      '4:PERMISSION_OUTSIDE_CALL',
      '5:PERMISSION_OUTSIDE_CALL',
    ]);
  });

  it('PERMISSION_ALREADY_PENDING', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callStart('t1', 'c1')
      .request('t1', 'c1')
      .request('t1', 'c1')
      .response('c1', 'yes')
      .callEnd('t1', 'c1')
      .turnEnd('t1');
    expect(codes(validateStream(w.messages))).toEqual(['3:PERMISSION_ALREADY_PENDING']);
  });

  it('PERMISSION_RESPONSE_UNMATCHED: no request, already answered, or the call ended', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callStart('t1', 'c1')
      .response('c1', 'yes')
      .request('t1', 'c1')
      .response('c1', 'yes')
      .response('c1', 'yes')
      .request('t1', 'c1')
      .callEnd('t1', 'c1')
      .response('c1', 'yes')
      .response('c9', 'yes')
      .turnEnd('t1');
    expect(codes(validateStream(w.messages))).toEqual([
      '2:PERMISSION_RESPONSE_UNMATCHED',
      '5:PERMISSION_RESPONSE_UNMATCHED',
      '8:PERMISSION_RESPONSE_UNMATCHED',
      '9:PERMISSION_RESPONSE_UNMATCHED',
    ]);
  });

  it('PERMISSION_OPTION_UNKNOWN, after which the request is still open', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callStart('t1', 'c1')
      .request('t1', 'c1', ['allow', 'deny'])
      .response('c1', 'maybe')
      .response('c1', 'deny')
      .callEnd('t1', 'c1')
      .turnEnd('t1');
    const violations = validateStream(w.messages);
    expect(codes(violations)).toEqual(['3:PERMISSION_OPTION_UNKNOWN']);
    expect(violations[0]!.message).toContain('"allow", "deny"');
  });

  it('PARENT_UNKNOWN: parentId names a call started earlier', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .text('t1', 'orphan', { parentId: 'later' })
      .callStart('t1', 'later')
      .callStart('t1', 'self', { parentId: 'self' })
      .text('t1', 'child', { parentId: 'later' })
      .callEnd('t1', 'later')
      .text('t1', 'after its parent ended is still a known parent', { parentId: 'later' })
      .user('u', { parentId: 'ghost' });
    expect(codes(validateStream(w.messages))).toEqual([
      '1:PARENT_UNKNOWN',
      '3:PARENT_UNKNOWN',
      '7:PARENT_UNKNOWN',
    ]);
  });

  it('every rule code is documented', () => {
    for (const code of [
      'DUPLICATE_ID',
      'TURN_MISMATCH',
      'TURN_NOT_OPEN',
      'TURN_ALREADY_OPEN',
      'CALL_NOT_OPEN',
      'CALL_ID_REUSED',
      'PERMISSION_OUTSIDE_CALL',
      'PERMISSION_RESPONSE_UNMATCHED',
      'PERMISSION_OPTION_UNKNOWN',
      'PARENT_UNKNOWN',
      'TIME_WENT_BACKWARDS',
      'SCHEMA',
    ]) {
      expect(STREAM_RULES).toHaveProperty(code);
    }
  });
});

describe('stream validator: incremental use', () => {
  it('push returns the violations of each message as it arrives, same as the whole-stream result', () => {
    const w = new StreamWriter()
      .turnStart('t1')
      .callEnd('t1', 'c0')
      .user('a', { id: 'm0' })
      .callStart('t1', 'c1')
      .turnEnd('t1');
    const validator = createStreamValidator();
    const perMessage = w.messages.map((m) => validator.push(m).map((v) => v.code));
    expect(perMessage).toEqual([[], ['CALL_NOT_OPEN'], ['DUPLICATE_ID'], [], ['CALL_LEFT_OPEN']]);
    expect(validator.violations).toEqual(validateStream(w.messages));
    expect(validator.messageCount).toBe(5);
    expect(validator.openTurn).toBeUndefined();
  });

  it('pushUnreadable takes an index without disturbing the rules', () => {
    const validator = createStreamValidator();
    validator.push({ id: 'a', time: 1, role: 'agent', type: 'turn-start', turn: 't1' });
    expect(validator.openTurn).toBe('t1');
    expect(validator.pushUnreadable('INVALID_JSON', 'line 2 is not valid JSON')).toEqual({
      index: 1,
      code: 'INVALID_JSON',
      message: 'line 2 is not valid JSON',
    });
    expect(
      validator.push({ id: 'b', time: 2, role: 'agent', type: 'turn-end', turn: 't1', status: 'completed' }),
    ).toEqual([]);
    expect(validator.messageCount).toBe(3);
  });

  it('does not keep or mutate the pushed objects', () => {
    const messages = validTurn().messages;
    const before = structuredClone(messages);
    validateStream(messages);
    expect(messages).toEqual(before);
  });
});
