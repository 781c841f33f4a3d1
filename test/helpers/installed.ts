/**
 * Runs a test body on another runtime (the AES-GCM, base64 or arrays of the hot paths) and puts back the
 * one installed before, even when the body throws or its promise rejects.
 */
import { getRuntime, installRuntime, type Runtime } from '../../src/core/runtime/runtime.js';

/**
 * Installs `parts` (universal defaults for the parts left out, as `installRuntime` does), runs `fn`, then
 * reinstalls the runtime that was installed before; for an `fn` that returns a promise, once it settled.
 *
 * @example
 * ```ts
 * withRuntime({ aesGcm: nobleAesGcm }, () => sealMessage(m, key));
 * withRuntime({ ...nodeRuntime, alloc: dirtyAllocator }, () => sealRaw(value, key));
 * ```
 */
export function withRuntime<T>(parts: Partial<Runtime>, fn: () => T): T {
  const before = getRuntime();
  installRuntime(parts);
  let result: T;
  try {
    result = fn();
  } catch (error) {
    installRuntime(before);
    throw error;
  }
  if (result instanceof Promise) return result.finally(() => installRuntime(before)) as T;
  installRuntime(before);
  return result;
}
