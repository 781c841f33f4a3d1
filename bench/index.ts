/**
 * The benchmark suite: `happy-media bench [--quick] [--only a,b] [--json FILE] [--svg FILE]`.
 *
 * Every suite checks its outputs before it times them, measures medians over several runs after a
 * warm-up, and measures its reference (the limit, or Happy's current path) in the same run, so each
 * figure is read as a ratio. See bench/README.md for how to read the output.
 *
 * @module
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchReport, Suite } from './harness/context.js';
import { runSuites, selectSuites } from './harness/runner.js';
import { renderSvg } from './harness/svg.js';
import { renderTable } from './harness/table.js';
import { blobSuite } from './suites/blob.js';
import { browserSuite } from './suites/browser.js';
import { cliMemorySuite } from './suites/cli-memory.js';
import { envelopeSuite } from './suites/envelope.js';
import { hermesSuite } from './suites/hermes.js';
import { playbackSuite } from './suites/playback.js';
import { probeSuite } from './suites/probe.js';
import { randomAccessSuite } from './suites/random-access.js';
import { sendSuite } from './suites/send.js';

export type { BenchReport, Suite } from './harness/context.js';

/** Every suite, in the order they run. */
export const SUITES: readonly Suite[] = [
  blobSuite,
  randomAccessSuite,
  envelopeSuite,
  probeSuite,
  sendSuite,
  playbackSuite,
  cliMemorySuite,
  browserSuite,
  hermesSuite,
];

/**
 * Package root (`dist/bench/index.js` → `../..`). Default outputs go under `.tmp/` (git-ignored and
 * outside the linter's scope: biome would reformat generated JSON).
 */
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Options of {@link runBench}. */
export interface BenchOptions {
  /** Quick mode: small sizes and few runs (under a minute). */
  quick?: boolean;
  /** Suite names to run (default: all). */
  only?: string[];
  /** JSON report path (default `.tmp/bench/latest.json` in the package). */
  json?: string;
  /** SVG chart path (default `.tmp/bench/latest.svg` in the package). */
  svg?: string;
  /** Cache of generated inputs (default `.tmp/bench-inputs` in the package, or env `HAPPY_MEDIA_BENCH_INPUTS`). */
  inputsDir?: string;
  /** Where the table goes (default stdout). */
  print?: (text: string) => void;
}

/**
 * Runs the selected suites, prints the table, writes the JSON report and the SVG chart, and returns
 * the report.
 *
 * @throws {RangeError} when `only` names an unknown suite.
 * @example
 * ```ts
 * const report = await runBench({ quick: true, only: ['blob'] });
 * ```
 */
export async function runBench(options: BenchOptions = {}): Promise<BenchReport> {
  const suites = selectSuites(SUITES, options.only);
  const inputsDir =
    options.inputsDir ?? process.env.HAPPY_MEDIA_BENCH_INPUTS ?? resolve(PACKAGE_ROOT, '.tmp/bench-inputs');
  const report = await runSuites(suites, { quick: options.quick === true, inputsDir });
  const jsonPath = resolve(options.json ?? resolve(PACKAGE_ROOT, '.tmp/bench/latest.json'));
  const svgPath = resolve(options.svg ?? resolve(PACKAGE_ROOT, '.tmp/bench/latest.svg'));
  for (const [path, text] of [
    [jsonPath, `${JSON.stringify(report, null, 2)}\n`],
    [svgPath, renderSvg(report)],
  ] as const) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  }
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  print(`\n${renderTable(report)}\nJSON: ${jsonPath}\nSVG:  ${svgPath}`);
  return report;
}
