/**
 * Joining a batch's per-chunk arrays into one, for backends whose primitive returns one array per chunk.
 *
 * @module
 */

/** Concatenates a batch's per-chunk results (for backends whose primitive returns one array per chunk). */
export function concatChunks(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
