/**
 * The `Range` request header (RFC 9110 §14), reduced to the one byte range our endpoints serve:
 * `bytes=a-b`, `bytes=a-` and `bytes=-n` (the unit is case-insensitive; no spaces inside).
 *
 * One parser for every endpoint that answers Range (universal: it runs in the Service Worker too); what
 * to do with a header it cannot read is each caller's policy: the media server (storage) answers
 * `malformed` with 416, since its clients never send one and a silent whole download would hide the bug;
 * the playback endpoints (`serveMedia`, the Service Worker) serve the whole file with 200, as RFC 9110
 * allows a server that ignores Range, because players send what they like.
 *
 * @module
 */

/** What a `Range` header asks of a representation of a given size. `end` is inclusive. */
export type RangeDecision =
  /** No header: the whole representation. */
  | { kind: 'whole' }
  /** One satisfiable range, cut at the end of the representation. */
  | { kind: 'partial'; start: number; end: number }
  /** A well-formed range that lies outside the representation (answer 416). */
  | { kind: 'unsatisfiable' }
  /** Not one byte range we read: another unit, several ranges, bad syntax, `end < start`, huge numbers. */
  | { kind: 'malformed' };

const SINGLE_BYTE_RANGE = /^bytes=(\d*)-(\d*)$/i;

/**
 * Decides what `header` asks of a representation of `size` bytes.
 *
 * @example
 * ```ts
 * parseRangeHeader('bytes=0-99', 1000);  // { kind: 'partial', start: 0, end: 99 }
 * parseRangeHeader('bytes=-10', 1000);   // { kind: 'partial', start: 990, end: 999 }
 * parseRangeHeader('bytes=1000-', 1000); // { kind: 'unsatisfiable' }
 * parseRangeHeader('bytes=0-1,5-6', 10); // { kind: 'malformed' }: 416 from the media server, 200 from playback
 * ```
 */
export function parseRangeHeader(header: string | undefined, size: number): RangeDecision {
  if (header === undefined) return { kind: 'whole' };
  const match = SINGLE_BYTE_RANGE.exec(header.trim());
  if (!match) return { kind: 'malformed' };
  const [, first = '', last = ''] = match;
  if (first === '') {
    // Suffix range: the last n bytes.
    const length = Number(last);
    if (last === '' || !Number.isSafeInteger(length)) return { kind: 'malformed' };
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return { kind: 'malformed' };
  if (last !== '' && end < start) return { kind: 'malformed' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}
