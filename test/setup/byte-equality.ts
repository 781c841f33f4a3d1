/**
 * Byte arrays compared as bytes. Vitest's `toEqual` walks a typed array as an object, key by key: a 70 KB
 * array took about 0.3 s per comparison, and the suite compares blobs and plaintexts of megabytes. This
 * tester answers for two byte arrays of the same class (Uint8Array, Buffer) with the same verdict, element
 * by element in a plain loop; anything else, including a Buffer against a Uint8Array, is left to Vitest's
 * own rules. A failing comparison still prints Vitest's diff.
 */
import { expect } from 'vitest';

function sameBytes(a: unknown, b: unknown): boolean | undefined {
  if (!(a instanceof Uint8Array) || !(b instanceof Uint8Array)) return undefined;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return undefined;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

expect.addEqualityTesters([sameBytes]);
