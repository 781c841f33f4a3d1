/**
 * Reading provider events, which are JSON values of unknown shape: the few checks every provider mapper
 * makes before its schemas do the rest, and the one way to name a value in a skip's detail.
 *
 * @module
 */

/** A JSON object as a provider wrote it. */
export type JsonObject = Record<string, unknown>;

/** True for a plain object (not `null`, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is a plain object, else `undefined`. */
export function jsonObject(value: unknown): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

/** `value` when it is a non-empty string, else `undefined`. */
export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * A type name fit for a skip's detail: a string value quoted and cut to 48 characters, anything else its
 * `typeof`. Skip details name types, never message text.
 */
export function typeName(value: unknown): string {
  return typeof value === 'string' ? `"${value.slice(0, 48)}"` : typeof value;
}

/**
 * True when `value` nests objects and arrays more than `maxDepth` levels deep (or refers to itself).
 * Iterative, and it stops at the first path too deep: a value nested 200,000 levels costs as much as one
 * nested `maxDepth`.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= maxDepth) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
