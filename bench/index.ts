/**
 * The benchmark program: `npm run bench -- [--quick] [--only a,b] [--list] [--json FILE] [--svg FILE]`
 * (`npm run bench` builds the package and this program, then runs `node bench/dist/index.js`). It is not
 * part of the package: it measures the built package through its public entries, as an app would.
 *
 * Every suite checks its outputs before it times them, measures medians over several runs after a
 * warm-up, and measures its reference (the limit, or Happy's current path) in the same run, so each
 * figure is read as a ratio. See bench/README.md for how to read the output. Exit status: 0, 1 when a
 * suite failed, 2 on bad usage.
 *
 * @module
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchReport, Suite } from './harness/context.js';
import { runSuites, selectSuites } from './harness/runner.js';
import { renderSvg } from './harness/svg.js';
import { renderTable } from './harness/table.js';
import { blobSuite } from './suites/blob.js';
import { browserSuite } from './suites/browser.js';
import { cliMemorySuite } from './suites/cli-memory.js';
import { cliStartSuite } from './suites/cli-start.js';
import { envelopeSuite } from './suites/envelope.js';
import { expoSuite } from './suites/expo.js';
import { happySendSuite } from './suites/happy-send.js';
import { hermesSuite } from './suites/hermes.js';
import { mappersSuite } from './suites/mappers.js';
import { playbackSuite } from './suites/playback.js';
import { probeSuite } from './suites/probe.js';
import { randomAccessSuite } from './suites/random-access.js';
import { sendSuite } from './suites/send.js';

/** Every suite, in the order they run. */
const SUITES: readonly Suite[] = [
  blobSuite,
  randomAccessSuite,
  envelopeSuite,
  mappersSuite,
  probeSuite,
  sendSuite,
  happySendSuite,
  playbackSuite,
  cliMemorySuite,
  cliStartSuite,
  browserSuite,
  expoSuite,
  hermesSuite,
];

/**
 * Repository root (`bench/dist/index.js` → `../..`). Default outputs go under `.tmp/` (git-ignored and
 * outside the linter's scope: biome would reformat generated JSON).
 */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Options of {@link runBench}. */
export interface BenchOptions {
  /** Quick mode: small sizes and few runs (under a minute). */
  quick?: boolean;
  /** Suite names to run (default: all). */
  only?: string[];
  /** JSON report path (default `.tmp/bench/latest.json` in the repository). */
  json?: string;
  /** SVG chart path (default `.tmp/bench/latest.svg` in the repository). */
  svg?: string;
  /** Cache of generated inputs (default `.tmp/bench-inputs` in the repository, or env `HAPPY_MEDIA_BENCH_INPUTS`). */
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
async function runBench(options: BenchOptions = {}): Promise<BenchReport> {
  const suites = selectSuites(SUITES, options.only);
  const inputsDir =
    options.inputsDir ?? process.env.HAPPY_MEDIA_BENCH_INPUTS ?? resolve(REPO_ROOT, '.tmp/bench-inputs');
  const report = await runSuites(suites, { quick: options.quick === true, inputsDir });
  const jsonPath = resolve(options.json ?? resolve(REPO_ROOT, '.tmp/bench/latest.json'));
  const svgPath = resolve(options.svg ?? resolve(REPO_ROOT, '.tmp/bench/latest.svg'));
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

const USAGE = `usage: npm run bench -- [--quick] [--only SUITE,...] [--list] [--json FILE] [--svg FILE]
  --quick        small sizes and few runs (under a minute)
  --only LIST    comma-separated suites to run (see --list)
  --list         list the suites and exit
  --json FILE    write the JSON report here (default .tmp/bench/latest.json)
  --svg FILE     write the SVG chart here (default .tmp/bench/latest.svg)`;

/** Parses the program's arguments; `undefined` after printing the usage or the list. */
function parseCommandLine(argv: string[]): BenchOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean' },
      only: { type: 'string' },
      list: { type: 'boolean' },
      json: { type: 'string' },
      svg: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return undefined;
  }
  if (values.list) {
    for (const s of SUITES) process.stdout.write(`${s.name.padEnd(14)} ${s.description}\n`);
    return undefined;
  }
  const only = values.only
    ?.split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  // Checked before anything runs, so a typo costs no run.
  selectSuites(SUITES, only);
  return { quick: values.quick === true, only, json: values.json, svg: values.svg };
}

let options: BenchOptions | undefined;
try {
  options = parseCommandLine(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
  process.exit(2);
}
if (options !== undefined) {
  const report = await runBench(options);
  if (report.suites.some((s) => s.status === 'failed')) process.exitCode = 1;
}
