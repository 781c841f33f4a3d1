/** fast-check arbitraries for envelope tests: valid v2 messages of a few types, and session keys. */
import fc from 'fast-check';
import { dataKey, legacyKey, type SessionKey } from '../../../src/core/envelope/index.js';
import type { SessionMessage } from '../../../src/core/protocol/index.js';

const id = fc.stringMatching(/^[a-z0-9_]{1,24}$/);
const time = fc.integer({ min: 0, max: 4_102_444_800_000 });

/** Valid v2 messages: agent text, service, user text and turn-end, with any Unicode text. */
export const sessionMessageArb: fc.Arbitrary<SessionMessage> = fc.oneof(
  fc.record({
    id,
    time,
    role: fc.constant('agent' as const),
    type: fc.constant('text' as const),
    turn: id,
    text: fc.string({ unit: 'grapheme', maxLength: 200 }),
  }),
  fc.record({
    id,
    time,
    role: fc.constant('agent' as const),
    type: fc.constant('service' as const),
    text: fc.string({ unit: 'binary', maxLength: 100 }),
  }),
  fc.record({
    id,
    time,
    role: fc.constant('user' as const),
    type: fc.constant('text' as const),
    text: fc.string({ maxLength: 300 }),
  }),
  fc.record({
    id,
    time,
    role: fc.constant('agent' as const),
    type: fc.constant('turn-end' as const),
    turn: id,
    status: fc.constantFrom('completed' as const, 'failed' as const, 'cancelled' as const),
  }),
) as fc.Arbitrary<SessionMessage>;

/** A random session key of either variant. */
export const sessionKeyArb: fc.Arbitrary<SessionKey> = fc
  .tuple(fc.boolean(), fc.uint8Array({ minLength: 32, maxLength: 32 }))
  .map(([legacy, bytes]) => (legacy ? legacyKey(bytes) : dataKey(bytes)));
