/**
 * What a benchmark produces: measurements, and comparisons of one of ours with a reference measured in
 * the same run.
 *
 * Every ratio is a *speed* ratio, whatever the unit: above 1 we are faster than the reference, below 1
 * slower (0.5 = half the reference's speed). For rates (MB/s, msg/s) that is ours ÷ reference; for
 * durations (ms, lower is better) it is reference ÷ ours.
 *
 * @module
 */
import type { Summary } from './stats.js';

/** Units of a measurement. Rates are higher-is-better; `ms` is lower-is-better. */
export type Unit = 'MB/s' | 'msg/s' | 'events/s' | 'ms';

/** One measured figure (median and spread over several runs). */
export interface Measurement {
  /** Unique within the report, e.g. `blob.encrypt.node`. */
  id: string;
  /** Suite that produced it, e.g. `blob`. */
  suite: string;
  /** Human label, e.g. `encrypt (node)`. */
  label: string;
  /** Unit of `summary`. */
  unit: Unit;
  /** Statistics over the timed runs. */
  summary: Summary;
  /** Bytes processed per run, when the figure is a throughput of some size (used for the chart's x axis). */
  sizeBytes?: number;
  /** Peak resident set size of the process that ran the case, when measured in a child of its own. */
  peakRssBytes?: number;
  /** Chart series this point belongs to (points of one series are joined by a line). */
  series?: string;
  /** True for a reference (limit or incumbent) rather than our code path. */
  reference?: boolean;
}

/** One of ours beside one reference, with their speed ratio. */
export interface Comparison {
  /** Suite of both measurements. */
  suite: string;
  /** Id of our measurement. */
  ours: string;
  /** Id of the reference measurement. */
  reference: string;
  /** Speed ratio (see the module comment): > 1 faster than the reference. */
  ratio: number;
}

/** Outcome of one suite. */
export interface SuiteResult {
  /** Suite name, e.g. `blob`. */
  name: string;
  /** `ok`: measured; `skipped`: a tool is missing (no ffmpeg, no chromium); `failed`: a check or run failed. */
  status: 'ok' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  reason?: string;
  /** Checks that held before timing (e.g. "node, webcrypto, noble ciphertexts byte-identical"). */
  checks: string[];
  /** Figures measured. */
  measurements: Measurement[];
  /** Comparisons of ours with references. */
  comparisons: Comparison[];
  /** Wall-clock duration of the suite, ms. */
  durationMs: number;
}

/** Whether a unit is higher-is-better. */
export function isRate(unit: Unit): boolean {
  return unit !== 'ms';
}

/**
 * Speed ratio of ours to a reference, both medians in the same unit: > 1 means ours is faster.
 *
 * @throws {RangeError} when units differ or a median is not positive.
 * @example
 * ```ts
 * speedRatio({ unit: 'MB/s', median: 1500 }, { unit: 'MB/s', median: 3000 }); // 0.5
 * speedRatio({ unit: 'ms', median: 40 }, { unit: 'ms', median: 20 }); // 0.5
 * ```
 */
export function speedRatio(
  ours: { unit: Unit; median: number },
  reference: { unit: Unit; median: number },
): number {
  if (ours.unit !== reference.unit) {
    throw new RangeError(
      `expected the same unit for both figures but received ${ours.unit} and ${reference.unit}`,
    );
  }
  if (!(ours.median > 0) || !(reference.median > 0)) {
    throw new RangeError('expected positive medians to compare');
  }
  return isRate(ours.unit) ? ours.median / reference.median : reference.median / ours.median;
}

/** Builds the comparison of two measurements of one suite. */
export function compare(ours: Measurement, reference: Measurement): Comparison {
  return {
    suite: ours.suite,
    ours: ours.id,
    reference: reference.id,
    ratio: speedRatio(
      { unit: ours.unit, median: ours.summary.median },
      { unit: reference.unit, median: reference.summary.median },
    ),
  };
}
