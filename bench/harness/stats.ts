/**
 * Statistics of repeated runs: medians and spread, never a single timing.
 *
 * The machine is noisy (2 cores shared; ../shared/MEASURED.md, the machine measurements, saw 2–3× between runs), so every figure is the median
 * of several runs after a warm-up, and its spread is reported beside it so a reader can tell a real
 * difference from noise.
 *
 * @module
 */

/** Summary of a set of samples (all in the same unit). */
export interface Summary {
  /** Number of samples. */
  n: number;
  /** Median: the figure we report. */
  median: number;
  /** Smallest sample. */
  min: number;
  /** Largest sample. */
  max: number;
  /** Arithmetic mean (reported, not used for ratios: one outlier moves it). */
  mean: number;
  /** First quartile (linear interpolation). */
  q1: number;
  /** Third quartile (linear interpolation). */
  q3: number;
  /** Interquartile range relative to the median, in percent (0 when the median is 0). */
  spreadPct: number;
}

/**
 * Quantile `q` (0..1) of an ascending sorted array, by linear interpolation between closest ranks.
 *
 * @throws {RangeError} when `sorted` is empty or `q` is outside [0, 1].
 */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0)
    throw new RangeError('expected at least one sample for `sorted` but received none');
  if (!(q >= 0 && q <= 1)) throw new RangeError(`expected a quantile in [0, 1] for \`q\` but received ${q}`);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (at - lo);
}

/**
 * Summarizes samples: median, quartiles, min, max, mean and relative spread.
 *
 * @throws {RangeError} when `samples` is empty or holds a non-finite number.
 * @example
 * ```ts
 * summarize([3, 1, 2]).median; // 2
 * ```
 */
export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) throw new RangeError('expected at least one sample but received none');
  for (const s of samples) {
    if (!Number.isFinite(s)) throw new RangeError(`expected finite samples but received ${s}`);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const median = quantile(sorted, 0.5);
  const q1 = quantile(sorted, 0.25);
  const q3 = quantile(sorted, 0.75);
  const mean = sorted.reduce((sum, s) => sum + s, 0) / sorted.length;
  return {
    n: sorted.length,
    median,
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    mean,
    q1,
    q3,
    spreadPct: median === 0 ? 0 : ((q3 - q1) / Math.abs(median)) * 100,
  };
}

/** Decimal megabytes per second for `bytes` processed in `ms` milliseconds (MB = 10^6 bytes, as in ../shared/MEASURED.md). */
export function megabytesPerSecond(bytes: number, ms: number): number {
  if (!(ms > 0)) throw new RangeError(`expected a positive duration for \`ms\` but received ${ms}`);
  return bytes / 1e6 / (ms / 1000);
}

/** Operations per second for `count` operations in `ms` milliseconds. */
export function perSecond(count: number, ms: number): number {
  if (!(ms > 0)) throw new RangeError(`expected a positive duration for \`ms\` but received ${ms}`);
  return count / (ms / 1000);
}
