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
