/**
 * Runs the selected suites one after another (never in parallel: they would measure each other), each in
 * its own try/catch, and assembles the report.
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchContext, BenchReport, MachineInfo, Suite, SuiteRecorder } from './context.js';
import { SkipSuite } from './context.js';
import { compare, type Measurement, type SuiteResult } from './figures.js';

/** Describes this machine for the report. */
export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    totalMemoryBytes: totalmem(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** Options of one run. */
export interface RunOptions {
  /** Quick mode. */
  quick: boolean;
  /** Cache directory of generated inputs. */
  inputsDir: string;
  /** Progress output (default: stderr). */
  log?: (line: string) => void;
}

/**
 * Picks suites by name (`--only blob,envelope`).
 *
 * @throws {RangeError} naming the unknown names and the known ones.
 */
export function selectSuites(all: readonly Suite[], only?: readonly string[]): Suite[] {
  if (!only || only.length === 0) return [...all];
  const known = new Set(all.map((s) => s.name));
  const unknown = only.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new RangeError(
      `expected suite names from ${[...known].join(', ')} for \`--only\` but received ${unknown.join(', ')}`,
    );
  }
  return all.filter((s) => only.includes(s.name));
}

/** Runs one suite into a {@link SuiteResult}; a {@link SkipSuite} becomes `skipped`, any other error `failed`. */
export async function runSuite(suite: Suite, ctx: BenchContext): Promise<SuiteResult> {
  const result: SuiteResult = {
    name: suite.name,
    status: 'ok',
    checks: [],
    measurements: [],
    comparisons: [],
    durationMs: 0,
  };
  const rec: SuiteRecorder = {
    check: (d) => {
      result.checks.push(d);
      ctx.log(`  check: ${d}`);
    },
    add: (m: Measurement) => {
      if (result.measurements.some((x) => x.id === m.id)) throw new Error(`duplicate measurement id ${m.id}`);
      result.measurements.push(m);
      return m;
    },
    compare: (ours, reference) => {
      result.comparisons.push(compare(ours, reference));
    },
  };
  const start = performance.now();
  ctx.log(`[${suite.name}] ${suite.description}`);
  try {
    await suite.run(ctx, rec);
  } catch (error) {
    if (error instanceof SkipSuite) {
      result.status = 'skipped';
      result.reason = error.message;
    } else {
      result.status = 'failed';
      result.reason = error instanceof Error ? error.message : String(error);
    }
    ctx.log(`  ${result.status}: ${result.reason}`);
  }
  result.durationMs = performance.now() - start;
  return result;
}

/** Runs `suites` in order with a private scratch directory (removed at the end) and returns the report. */
export async function runSuites(suites: readonly Suite[], options: RunOptions): Promise<BenchReport> {
  const startedAt = new Date();
  const start = performance.now();
  const scratchDir = await mkdtemp(join(tmpdir(), 'happy-media-bench-'));
  await mkdir(options.inputsDir, { recursive: true });
  const ctx: BenchContext = {
    quick: options.quick,
    scratchDir,
    inputsDir: options.inputsDir,
    log: options.log ?? ((line) => process.stderr.write(`${line}\n`)),
  };
  const results: SuiteResult[] = [];
  // Ctrl-C must not leave gigabytes of scratch files behind.
  const onSignal = (signal: NodeJS.Signals) => {
    rmSync(scratchDir, { recursive: true, force: true });
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const suite of suites) {
      const suiteDir = join(scratchDir, suite.name);
      await mkdir(suiteDir, { recursive: true, mode: 0o700 });
      results.push(await runSuite(suite, { ...ctx, scratchDir: suiteDir }));
      // Big temp files go as soon as their suite is done, not at the end.
      await rm(suiteDir, { recursive: true, force: true });
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await rm(scratchDir, { recursive: true, force: true });
  }
  return {
    schema: 'happy-media-bench/1',
    startedAt: startedAt.toISOString(),
    durationMs: performance.now() - start,
    mode: options.quick ? 'quick' : 'full',
    machine: machineInfo(),
    suites: results,
  };
}
