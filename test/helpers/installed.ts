/**
 * Runs a test body with one implementation of a pluggable seam installed (the AES-GCM of envelopes,
 * scratch arrays, ...) and puts back whatever was installed before, even when the body throws.
 */

/**
 * Installs `value` with `set`, runs `fn`, then reinstalls what `get` returned before.
 *
 * @example
 * ```ts
 * withInstalled(getEnvelopeAesGcm, setEnvelopeAesGcm, nobleEnvelopeAesGcm, () => sealMessage(m, key));
 * ```
 */
export function withInstalled<V, T>(get: () => V, set: (value: V) => void, value: V, fn: () => T): T {
  const before = get();
  set(value);
  try {
    return fn();
  } finally {
    set(before);
  }
}
