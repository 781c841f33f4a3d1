/**
 * The builders' quick check against the strict schemas it stands in for: on valid messages of every
 * type it knows and on every kind of damage (a field missing, of the wrong type, out of range, an
 * unknown key, the wrong role), it never accepts what the schema refuses, returns what the schema
 * returns (the same fields in the same order), and accepts every valid message (so it is used).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkedMessage } from '../../../src/core/protocol/message-check.js';
import { SessionMessageSchema } from '../../../src/index.js';

const id = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9]{23}$/),
  fc.constantFrom('a1', 'toolu_01', 'call_1', 'x'.repeat(256)),
);
const badId = fc.constantFrom('', 'x'.repeat(257), 'a\u0000b', 'tab\there', 7, null, undefined);
const time = fc.oneof(fc.nat(), fc.constant(Number.MAX_SAFE_INTEGER));
const badTime = fc.constantFrom(-1, 1.5, Number.MAX_SAFE_INTEGER + 2, Number.NaN, '1', null);
const text = fc.string();
// An own `__proto__` key is left to the schema on purpose (see message-check.ts).
const args = fc.dictionary(
  fc.string().filter((key) => key !== '__proto__'),
  fc.jsonValue(),
  { maxKeys: 4 },
);
const option = fc.record({
  id,
  label: fc.string(),
  kind: fc.constantFrom('allow-once', 'allow-always', 'reject-once', 'reject-always'),
});

const placement = {
  parentId: fc.option(id, { nil: undefined }),
  agentId: fc.option(id, { nil: undefined }),
};

/** Valid messages of the types the check knows, fields in random order. */
const valid: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ id, time, role: fc.constant('agent'), type: fc.constant('turn-start'), turn: id }),
  fc.record({
    id,
    time,
    role: fc.constant('agent'),
    type: fc.constant('turn-end'),
    turn: id,
    status: fc.constantFrom('completed', 'failed', 'cancelled'),
  }),
  fc.record(
    {
      id,
      time,
      role: fc.constant('agent'),
      type: fc.constant('text'),
      turn: id,
      text,
      thinking: fc.boolean(),
      ...placement,
    },
    { requiredKeys: ['id', 'time', 'role', 'type', 'turn', 'text'] },
  ),
  fc.record(
    { id, time, role: fc.constant('user'), type: fc.constant('text'), turn: id, text, ...placement },
    { requiredKeys: ['id', 'time', 'role', 'type', 'text'] },
  ),
  fc.record(
    {
      id,
      time,
      role: fc.constant('agent'),
      type: fc.constant('tool-call-start'),
      turn: id,
      callId: id,
      toolName: fc.string({ minLength: 1 }),
      title: text,
      description: text,
      args,
      agentTitle: text,
      ...placement,
    },
    {
      requiredKeys: [
        'id',
        'time',
        'role',
        'type',
        'turn',
        'callId',
        'toolName',
        'title',
        'description',
        'args',
      ],
    },
  ),
  fc.record(
    {
      id,
      time,
      role: fc.constant('agent'),
      type: fc.constant('tool-call-end'),
      turn: id,
      callId: id,
      error: text,
      ...placement,
    },
    { requiredKeys: ['id', 'time', 'role', 'type', 'turn', 'callId'] },
  ),
  fc.record(
    {
      id,
      time,
      role: fc.constant('agent'),
      type: fc.constant('permission-request'),
      turn: id,
      callId: id,
      toolName: fc.string({ minLength: 1 }),
      title: text,
      description: text,
      args,
      options: fc.uniqueArray(option, { minLength: 1, maxLength: 4, selector: (o) => o.id }),
    },
    { requiredKeys: ['id', 'time', 'role', 'type', 'turn', 'callId', 'toolName', 'title', 'options'] },
  ),
  fc.record(
    {
      id,
      time,
      role: fc.constant('user'),
      type: fc.constant('permission-response'),
      callId: id,
      optionId: id,
      turn: id,
    },
    { requiredKeys: ['id', 'time', 'role', 'type', 'callId', 'optionId'] },
  ),
  fc.record(
    { id, time, role: fc.constant('agent'), type: fc.constant('service'), text, turn: id, ...placement },
    { requiredKeys: ['id', 'time', 'role', 'type', 'text'] },
  ),
);

/** One damage to a valid message. */
const damage = fc.oneof(
  fc.record({ kind: fc.constant('drop'), index: fc.nat() }),
  fc.record({ kind: fc.constant('id'), index: fc.nat(), value: badId }),
  fc.record({ kind: fc.constant('time'), value: badTime }),
  fc.record({
    kind: fc.constant('set'),
    index: fc.nat(),
    value: fc.constantFrom(undefined, null, 0, '', [], {}, [1], 'completed', true, { a: 1 }, new Date(0)),
  }),
  fc.record({
    kind: fc.constant('extra'),
    key: fc.constantFrom('thinking', 'status', 'options', 'foo', '__proto__', 'error'),
  }),
  fc.record({ kind: fc.constant('role'), value: fc.constantFrom('agent', 'user', 'system', undefined) }),
  fc.record({
    kind: fc.constant('type'),
    value: fc.constantFrom('text', 'service', 'turn-start', 'photo', 'bogus'),
  }),
  fc.record({
    kind: fc.constant('options'),
    value: fc.constantFrom(
      [],
      [
        { id: 'a', label: 'x', kind: 'allow-once' },
        { id: 'a', label: 'y', kind: 'reject-once' },
      ],
      [{ id: 'a', label: 'x', kind: 'maybe' }],
      [{ id: 'a', label: 'x', kind: 'allow-once', extra: 1 }],
    ),
  }),
);

function damaged(
  message: Record<string, unknown>,
  hurt: fc.Arbitrary<unknown> extends never ? never : Record<string, unknown>,
) {
  const copy: Record<string, unknown> = { ...message };
  const keys = Object.keys(copy);
  const key = keys[((hurt.index as number | undefined) ?? 0) % keys.length]!;
  switch (hurt.kind) {
    case 'drop':
      delete copy[key];
      break;
    case 'id':
      copy[['id', 'turn', 'callId', 'parentId', 'agentId', 'optionId'][(hurt.index as number) % 6]!] =
        hurt.value;
      break;
    case 'time':
      copy.time = hurt.value;
      break;
    case 'set':
      copy[key] = hurt.value;
      break;
    case 'extra':
      if (hurt.key === '__proto__') Object.defineProperty(copy, '__proto__', { value: 1, enumerable: true });
      else copy[hurt.key as string] = hurt.key === 'thinking' ? true : 'x';
      break;
    case 'role':
      copy.role = hurt.value;
      break;
    case 'type':
      copy.type = hurt.value;
      break;
    case 'options':
      copy.options = hurt.value;
      break;
  }
  return copy;
}

describe('the builders quick check', () => {
  it('accepts every valid message, returning what the schema returns', () => {
    fc.assert(
      fc.property(valid, (message) => {
        const parsed = SessionMessageSchema.safeParse(message);
        expect(parsed.success).toBe(true);
        const checked = checkedMessage(message);
        expect(checked).toBeDefined();
        expect(JSON.stringify(checked)).toBe(JSON.stringify(parsed.data));
      }),
      { numRuns: 2000 },
    );
  });

  it('never accepts what the schema refuses', () => {
    fc.assert(
      fc.property(valid, fc.array(damage, { minLength: 1, maxLength: 3 }), (message, hurts) => {
        let copy = message;
        for (const hurt of hurts) copy = damaged(copy, hurt as Record<string, unknown>);
        const checked = checkedMessage(copy);
        const parsed = SessionMessageSchema.safeParse(copy);
        if (checked !== undefined) {
          expect(parsed.success).toBe(true);
          expect(JSON.stringify(checked)).toBe(JSON.stringify(parsed.data));
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('leaves media and unusual values to the schema', () => {
    const base = { id: 'a1', time: 1, role: 'agent', turn: 't1' };
    expect(
      checkedMessage({
        ...base,
        type: 'photo',
        ref: 'media/x',
        thumbhash: '3OcRJYB4d3h/iIeHeEh3eIhw+j2w',
        width: 1,
        height: 1,
      }),
    ).toBeUndefined();
    expect(
      checkedMessage({
        ...base,
        type: 'tool-call-start',
        callId: 'c',
        toolName: 'n',
        title: '',
        description: '',
        args: new Map(),
      }),
    ).toBeUndefined();
    expect(
      checkedMessage(Object.assign(Object.create({ inherited: 1 }), { ...base, type: 'service', text: 'x' })),
    ).toBeUndefined();
  });
});
