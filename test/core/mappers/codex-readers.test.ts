/**
 * The Codex mapper reads the common response items and rollout events by hand: on any JSON it says yes
 * exactly when the schemas that state Codex's shapes do, and reads the same fields.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EVENT_MSG_READERS,
  EVENT_MSG_SCHEMAS,
  RESPONSE_ITEM_READERS,
  RESPONSE_ITEM_SCHEMAS,
} from '../../../src/core/mappers/codex/codex-events.js';
import { objectOf } from '../../helpers/json-arbitraries.js';

/** Values that sit on either side of each field's type. */
const scalar = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant([]),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Lists of parts (a message's content, reasoning's summary), mostly well formed. */
const part = fc.oneof(
  scalar,
  objectOf(['type', 'text', 'image_url'], scalar),
  fc.record({ type: fc.string({ maxLength: 6 }), text: fc.string({ maxLength: 6 }) }),
);
const field = fc.oneof(scalar, fc.array(part, { maxLength: 3 }), fc.array(fc.string(), { maxLength: 3 }));

function holds(
  readers: Readonly<Record<string, (raw: Record<string, unknown>) => unknown>>,
  schemas: Readonly<Record<string, { safeParse(value: unknown): { success: boolean; data?: unknown } }>>,
  keys: string[],
): void {
  const value = fc
    .tuple(fc.constantFrom(...Object.keys(readers)), objectOf(keys, field))
    .map(([type, object]) => ({ ...object, type }));
  fc.assert(
    fc.property(value, (raw) => {
      const parsed = schemas[raw.type]!.safeParse(raw);
      const read = readers[raw.type]!(raw);
      expect(read !== undefined, raw.type).toBe(parsed.success);
      if (read !== undefined) expect(read).toEqual(parsed.data);
    }),
    { numRuns: 5000 },
  );
}

describe('the Codex rollout read by hand', () => {
  it('each read response item: accepted when its schema accepts it, with the same fields', () => {
    holds(RESPONSE_ITEM_READERS, RESPONSE_ITEM_SCHEMAS, [
      'role',
      'content',
      'summary',
      'name',
      'arguments',
      'call_id',
      'input',
      'output',
    ]);
  });

  it('each read event: accepted when its schema accepts it, with the same fields', () => {
    holds(EVENT_MSG_READERS, EVENT_MSG_SCHEMAS, ['message', 'text', 'images']);
  });

  it('every reader has the schema of its type', () => {
    for (const type of Object.keys(RESPONSE_ITEM_READERS))
      expect(Object.hasOwn(RESPONSE_ITEM_SCHEMAS, type)).toBe(true);
    for (const type of Object.keys(EVENT_MSG_READERS))
      expect(Object.hasOwn(EVENT_MSG_SCHEMAS, type)).toBe(true);
  });
});
