/**
 * The `Range` request header, the single-range subset we serve (RFC 9110 §14): `bytes=a-b`, `bytes=a-`
 * and `bytes=-n`. Our clients never ask for more, so anything else (several ranges, other units,
 * malformed text) is answered `416` rather than silently served whole.
 *
 * @module
 */

/** A parsed range: satisfiable (inclusive `start`..`end`), or not satisfiable for a blob of this size. */
export type RangeAnswer = { ok: true; start: number; end: number } | { ok: false };

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/;

/**
 * Resolves a `Range` header against a blob of `size` bytes.
 *
 * @example
 * ```ts
 * parseRangeHeader('bytes=0-99', 1000);  // { ok: true, start: 0, end: 99 }
 * parseRangeHeader('bytes=-100', 1000);  // { ok: true, start: 900, end: 999 }
 * parseRangeHeader('bytes=2000-', 1000); // { ok: false } → 416, Content-Range: bytes *\/1000
 * ```
 */
export function parseRangeHeader(header: string, size: number): RangeAnswer {
  const match = SINGLE_RANGE.exec(header.trim());
  if (!match) return { ok: false };
  const [, first = '', last = ''] = match;
  if (first.length > 15 || last.length > 15) return { ok: false };
  if (first === '') {
    // Suffix range: the last n bytes.
    if (last === '') return { ok: false };
    const n = Number(last);
    if (n === 0 || size === 0) return { ok: false };
    return { ok: true, start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return { ok: false };
  if (last === '') return { ok: true, start, end: size - 1 };
  const end = Number(last);
  if (end < start) return { ok: false };
  return { ok: true, start, end: Math.min(end, size - 1) };
}
