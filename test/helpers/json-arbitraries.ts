/**
 * fast-check arbitraries for JSON shapes, shared by the property tests that hold a hand-written reader to
 * the schema it replaces.
 */
import fc from 'fast-check';

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
