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
import { metadataTailExitCode, outputError } from '../../../src/core/mappers/codex/codex-tools.js';
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

describe("a Codex result's exit code read from the end of its JSON output", () => {
  /** The exit code `JSON.parse` finds: what the tail read has to agree with. */
  function parsedExitCode(text: string): unknown {
    const parsed: unknown = JSON.parse(text);
    const metadata =
      typeof parsed === 'object' && parsed !== null
        ? (parsed as Record<string, unknown>).metadata
        : undefined;
    return typeof metadata === 'object' && metadata !== null
      ? (metadata as Record<string, unknown>).exit_code
      : undefined;
  }

  /** Outputs that look like the member, inside strings and in other places. */
  const tricky = fc.oneof(
    fc.string(),
    fc.constantFrom(
      ',"metadata":{"exit_code":7,"duration_seconds":0.1}}',
      '\\",\\"metadata\\":{\\"exit_code\\":3,\\"duration_seconds\\":1}}',
      '"}},"metadata":{"exit_code":9,"duration_seconds":2}}',
    ),
  );
  const number = fc.oneof(
    fc.integer({ min: -300, max: 300 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
  const metadata = fc.oneof(
    fc.record({ exit_code: number, duration_seconds: number }),
    fc.record({ duration_seconds: number, exit_code: number }),
    fc.record({ exit_code: fc.oneof(number, fc.constant(null)) }),
    fc.record({ exit_code: number, duration_seconds: number, extra: tricky }),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const output = fc.oneof(
    fc.record({ output: tricky, metadata }),
    fc.record({ metadata, output: tricky }),
    fc.record({ output: tricky, nested: fc.record({ metadata }), metadata }),
    fc.record({ output: tricky, nested: fc.record({ output: tricky, metadata }) }),
  );

  it('agrees with JSON.parse on every valid text, and reads the last member of the outputs codex-rs writes', () => {
    fc.assert(
      fc.property(output, fc.boolean(), (value, spaced) => {
        const text = spaced ? JSON.stringify(value, null, 1) : JSON.stringify(value);
        const tail = metadataTailExitCode(text);
        if (tail !== undefined) expect(tail).toBe(parsedExitCode(text));
        const code = parsedExitCode(text);
        expect(outputError(text)).toBe(
          typeof code === 'number' && code !== 0 ? `Command exited with code ${code}` : undefined,
        );
      }),
      { numRuns: 5000 },
    );
    const written = JSON.stringify({ output: 'x', metadata: { exit_code: 2, duration_seconds: 0.25 } });
    expect(metadataTailExitCode(written)).toBe(2);
    expect(metadataTailExitCode('{"output":"x","metadata":{"exit_code":-1,"duration_seconds":1.5e-3}}')).toBe(
      -1,
    );
  });

  it('leaves every other ending to the parse', () => {
    for (const text of [
      '{"output":"x","metadata":{"exit_code":1,"duration_seconds":0.1}} ',
      '{"output":"x","metadata":{"exit_code":1.5,"duration_seconds":0.1}}',
      '{"output":"x","metadata":{"exit_code":01,"duration_seconds":0.1}}',
      '{"output":"x","metadata":{"duration_seconds":0.1,"exit_code":1}}',
      '{"output":"x","metadata":{"exit_code":1,"duration_seconds":0.1},"more":1}',
      '{"output":"x"}',
    ])
      expect(metadataTailExitCode(text), text).toBeUndefined();
  });
});
