/**
 * The `Range` request header (RFC 9110 §14), reduced to what a media endpoint needs: one byte range.
 *
 * A header we do not honour (another unit, several ranges, bad syntax) is ignored and the whole
 * representation is sent with 200, as RFC 9110 allows; a well-formed range that lies outside the
 * representation is unsatisfiable (416).
 *
 * @module
 */

/** The decision for one request. */
export type RangeDecision =
  | { kind: 'whole' }
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable' };

/**
 * Decides how to answer `header` for a representation of `size` bytes. `end` is inclusive, as in
 * `Content-Range`.
 *
 * @example
 * ```ts
 * parseRangeHeader('bytes=0-99', 1000); // { kind: 'partial', start: 0, end: 99 }
 * parseRangeHeader('bytes=-10', 1000);  // { kind: 'partial', start: 990, end: 999 }
 * parseRangeHeader('bytes=1000-', 1000); // { kind: 'unsatisfiable' }
 * ```
 */
export function parseRangeHeader(header: string | undefined, size: number): RangeDecision {
  if (header === undefined) return { kind: 'whole' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // Suffix range: the last N bytes.
    const length = Number(last);
    if (!Number.isSafeInteger(length)) return { kind: 'whole' };
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return { kind: 'whole' };
  if (last !== '' && end < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}
