/**
 * fast-check arbitraries for JSON shapes, shared by the property tests that hold a hand-written reader to
 * the schema it replaces.
 */
import fc from 'fast-check';
import { expect } from 'vitest';

/** An object with each of `keys` absent or set to one of `value`'s values. */
export function objectOf(
  keys: string[],
  value: fc.Arbitrary<unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(...keys.map(() => fc.option(value, { nil: undefined })), fc.boolean())
    .map(([...values]) => {
      const present = values.pop() as boolean;
      const object: Record<string, unknown> = {};
      keys.forEach((key, i) => {
        if (values[i] !== undefined || present) object[key] = values[i];
      });
      return object;
    });
}

/** The part of a zod schema the property tests call. */
interface SafeParser {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false };
}

/**
 * Asserts over `numRuns` of `values` that `read` accepts a value exactly when `schema` does, and then
 * reads what the schema parses.
 */
export function assertReadsLikeSchema(
  values: fc.Arbitrary<unknown>,
  schema: SafeParser,
  read: (value: unknown) => unknown,
  numRuns: number,
): void {
  fc.assert(
    fc.property(values, (value) => {
      const parsed = schema.safeParse(value);
      const result = read(value);
      expect(result !== undefined).toBe(parsed.success);
      if (result !== undefined && parsed.success) expect(result).toEqual(parsed.data);
    }),
    { numRuns },
  );
}
