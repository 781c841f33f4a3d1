/**
 * Shrinks 8-bit RGBA by area averaging: each output pixel is the mean of the input area it covers
 * (fractional edges weighted by coverage), with alpha premultiplied as libvips does, so a transparent
 * pixel's colour does not bleed into its neighbours. ThumbHash keeps only the lowest frequencies, so
 * this and sharp's Lanczos resize give the same hash within its rounding.
 *
 * @module
 */

/** For each output index along one axis: the first input index and the weight of each covered input. */
function contributions(inSize: number, outSize: number): { first: number; weights: Float64Array }[] {
  const scale = inSize / outSize;
  const out: { first: number; weights: Float64Array }[] = [];
  for (let o = 0; o < outSize; o++) {
    const start = o * scale;
    const end = Math.min(inSize, (o + 1) * scale);
    const first = Math.floor(start);
    const last = Math.min(inSize - 1, Math.ceil(end) - 1);
    const weights = new Float64Array(last - first + 1);
    for (let i = first; i <= last; i++) {
      weights[i - first] = Math.min(end, i + 1) - Math.max(start, i);
    }
    out.push({ first, weights });
  }
  return out;
}

/**
 * Area-averages `width`×`height` RGBA to `outWidth`×`outHeight` (never larger than the input).
 *
 * @example
 * ```ts
 * const small = downscale(4000, 3000, rgba, 100, 75); // 100 × 75 × 4 bytes
 * ```
 */
export function downscale(
  width: number,
  height: number,
  rgba: Uint8Array,
  outWidth: number,
  outHeight: number,
): Uint8Array {
  if (outWidth === width && outHeight === height) return rgba;
  // Horizontal pass into premultiplied floats (outWidth × height), then the vertical pass.
  const columns = contributions(width, outWidth);
  const rows = contributions(height, outHeight);
  const mid = new Float64Array(outWidth * height * 4);
  for (let y = 0; y < height; y++) {
    const row = y * width * 4;
    for (let x = 0; x < outWidth; x++) {
      const { first, weights } = columns[x]!;
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      let w = 0;
      for (let k = 0; k < weights.length; k++) {
        const i = row + (first + k) * 4;
        const alpha = rgba[i + 3]! * weights[k]!;
        r += rgba[i]! * alpha;
        g += rgba[i + 1]! * alpha;
        b += rgba[i + 2]! * alpha;
        a += alpha;
        w += weights[k]!;
      }
      const o = (y * outWidth + x) * 4;
      mid[o] = r / w;
      mid[o + 1] = g / w;
      mid[o + 2] = b / w;
      mid[o + 3] = a / w;
    }
  }
  const out = new Uint8Array(outWidth * outHeight * 4);
  for (let y = 0; y < outHeight; y++) {
    const { first, weights } = rows[y]!;
    for (let x = 0; x < outWidth; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      let w = 0;
      for (let k = 0; k < weights.length; k++) {
        const i = ((first + k) * outWidth + x) * 4;
        const weight = weights[k]!;
        r += mid[i]! * weight;
        g += mid[i + 1]! * weight;
        b += mid[i + 2]! * weight;
        a += mid[i + 3]! * weight;
        w += weight;
      }
      const o = (y * outWidth + x) * 4;
      // Un-premultiply; a fully transparent area has no colour.
      out[o] = a > 0 ? Math.min(255, Math.round(r / a)) : 0;
      out[o + 1] = a > 0 ? Math.min(255, Math.round(g / a)) : 0;
      out[o + 2] = a > 0 ? Math.min(255, Math.round(b / a)) : 0;
      out[o + 3] = Math.min(255, Math.round(a / w));
    }
  }
  return out;
}
