/**
 * What every suite receives, and what it gives back.
 *
 * @module
 */
import type { Measurement, SuiteResult } from './figures.js';

/** Shared settings and helpers of one benchmark run. */
export interface BenchContext {
  /** Quick mode (`--quick`): small sizes, fewer runs, the whole suite in under a minute. */
  quick: boolean;
  /** Private scratch directory for this run (under the OS temp dir; removed at the end). */
  scratchDir: string;
  /** Cache of generated inputs kept between runs (`.tmp/bench-inputs`). */
  inputsDir: string;
  /** Prints a progress line (stderr, so a `--json -` on stdout stays clean). */
  log(line: string): void;
}

/** Collects a suite's figures, checks and comparisons. */
export interface SuiteRecorder {
  /** Records a check that held before timing. */
  check(description: string): void;
  /** Records a measurement and returns it. */
  add(measurement: Measurement): Measurement;
  /** Records `ours` beside `reference` (ratio computed from their medians). */
  compare(ours: Measurement, reference: Measurement): void;
}

/** Thrown by a suite to say it cannot run here (a dependency is missing); the runner reports it as skipped. */
export class SkipSuite extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SkipSuite';
  }
}

/** A benchmark suite. */
export interface Suite {
  /** Short name used by `--only`, e.g. `blob`. */
  name: string;
  /** One line: what it measures and against what. */
  description: string;
  /** Runs the suite, recording into `rec`. Throws {@link SkipSuite} to be reported as skipped. */
  run(ctx: BenchContext, rec: SuiteRecorder): Promise<void>;
}

/** Result of a whole run, as written to the JSON file. */
export interface BenchReport {
  /** Format tag of this JSON. */
  schema: 'happy-media-bench/1';
  /** ISO time the run started. */
  startedAt: string;
  /** Wall-clock duration of the whole run, ms. */
  durationMs: number;
  /** `quick` or `full`. */
  mode: 'quick' | 'full';
  /** Where it was measured. */
  machine: MachineInfo;
  /** One entry per suite considered (run, skipped or failed). */
  suites: SuiteResult[];
}

/** The machine a report was measured on. */
export interface MachineInfo {
  /** Logical CPUs. */
  cpus: number;
  /** CPU model string. */
  cpuModel: string;
  /** Total memory in bytes. */
  totalMemoryBytes: number;
  /** `process.version`. */
  node: string;
  /** `process.platform`-`process.arch`. */
  platform: string;
}
