/**
 * How far apart two ThumbHashes are, in the hash's own quantisation steps. A ThumbHash stores the average
 * colour as 6-bit (L, P, Q) and 4-bit (alpha) numbers, the AC scales as 5/6/4-bit numbers and each AC
 * coefficient as a 4-bit nibble: two decoders whose pixels differ by a few levels may round a value to
 * the neighbouring step, never further. `steps(a, b)` is the largest such difference over every field,
 * or Infinity when the layouts differ (alpha flag, orientation flag, coefficient counts, length).
 */
import { fromBase64 } from '../../src/core/bytes.js';

interface Fields {
  layout: string;
  values: number[];
}

function fields(hash: string): Fields {
  const h = fromBase64(hash);
  const header24 = h[0]! | (h[1]! << 8) | (h[2]! << 16);
  const header16 = h[3]! | (h[4]! << 8);
  const hasAlpha = (header24 >> 23) & 1;
  const isLandscape = (header16 >> 15) & 1;
  const values = [
    header24 & 63, // L DC
    (header24 >> 6) & 63, // P DC
    (header24 >> 12) & 63, // Q DC
    (header24 >> 18) & 31, // L scale
    (header16 >> 3) & 63, // P scale
    (header16 >> 9) & 63, // Q scale
  ];
  let at = 5;
  if (hasAlpha) {
    values.push(h[5]! & 15, h[5]! >> 4); // alpha DC, alpha scale
    at = 6;
  }
  for (let i = at; i < h.length; i++) values.push(h[i]! & 15, h[i]! >> 4);
  return { layout: `${hasAlpha}/${isLandscape}/${header16 & 7}/${h.length}`, values };
}

/** Largest per-field difference between two ThumbHashes in quantisation steps (Infinity: other layout). */
export function thumbhashSteps(a: string, b: string): number {
  const x = fields(a);
  const y = fields(b);
  if (x.layout !== y.layout) return Number.POSITIVE_INFINITY;
  let most = 0;
  for (let i = 0; i < x.values.length; i++) most = Math.max(most, Math.abs(x.values[i]! - y.values[i]!));
  return most;
}
