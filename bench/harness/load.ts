/**
 * Loads a library area lazily and checks the exports a suite needs, so a suite whose area has not landed
 * (or whose tool is missing) is reported as skipped instead of crashing the whole run.
 *
 * @module
 */
import { SkipSuite } from './context.js';

/**
 * Imports `path` (relative to the package root, as compiled: e.g. `src/core/blob/index.js`) and checks
 * that every name in `names` is exported.
 *
 * @throws {SkipSuite} when the module cannot be loaded or lacks a name.
 * @example
 * ```ts
 * const blob = await loadArea<BlobApi>('src/core/blob/index.js', ['encryptBlob', 'decryptBlob']);
 * ```
 */
export async function loadArea<T>(path: string, names: readonly string[]): Promise<T> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(new URL(`../../${path}`, import.meta.url).href)) as Record<string, unknown>;
  } catch (error) {
    throw new SkipSuite(
      `${path} could not be loaded (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const missing = names.filter((n) => mod[n] === undefined);
  if (missing.length > 0) {
    throw new SkipSuite(`${path} does not export ${missing.join(', ')} yet (area not landed)`);
  }
  return mod as T;
}
