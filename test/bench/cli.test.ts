/**
 * The benchmark program (`npm run bench`, built from bench/ by tsconfig.bench.json into bench/dist/):
 * its command line and the shape of its output, not its timings.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../bench/harness/context.js';
import { formatRatio, TABLE_WIDTH } from '../../bench/harness/table.js';
import { type RunOptions, runNodeProgram } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/tmp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BENCH = join(ROOT, 'bench', 'dist', 'index.js');
const runBench = (args: string[], options?: RunOptions) => runNodeProgram(BENCH, args, options);

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTempDir('happy-media-bench-test-');
  // The program compiles against the built package (dist/, which `npm test` builds first).
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.bench.json')], { stdio: 'inherit' });
}, 180_000);
afterAll(async () => {
  await tmp.cleanup();
});

describe('npm run bench (output shape, not timings)', () => {
  it('lists its suites', async () => {
    const r = await runBench(['--list']);
    expect(r.code).toBe(0);
    const names = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[0]);
    expect(names).toEqual([
      'blob',
      'random-access',
      'envelope',
      'mappers',
      'probe',
      'send',
      'happy-send',
      'playback',
      'cli-memory',
      'cli-start',
      'browser',
      'expo',
      'hermes',
    ]);
  }, 180_000);

  it('rejects an unknown suite or option with exit 2 and its usage, before running anything', async () => {
    const r = await runBench(['--quick', '--only', 'envelope,nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^bench: expected suite names from blob, .* but received nope$/m);
    expect(r.stderr).toContain('usage: npm run bench --');
    expect(r.stdout).toBe('');
    const option = await runBench(['--fast']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^bench: .*--fast/m);
  }, 180_000);

  it("skips the sends into Happy's server, saying why, when no server is named or it does not answer", async () => {
    for (const [url, why] of [
      ['', /^HAPPY_MEDIA_HAPPY_SERVER_URL is not set: start Happy's server/],
      ['http://127.0.0.1:1', /^Happy's server at http:\/\/127\.0\.0\.1:1 does not answer/],
    ] as const) {
      const json = join(tmp.dir, 'skip', 'bench.json');
      const r = await runBench(['--quick', '--only', 'happy-send', '--json', json], {
        timeoutMs: 60_000,
        env: { HAPPY_MEDIA_HAPPY_SERVER_URL: url },
      });
      expect(r.code).toBe(0);
      const report = JSON.parse(await readFile(json, 'utf8')) as BenchReport;
      expect(report.suites.map((s) => s.status)).toEqual(['skipped']);
      expect(report.suites[0]!.reason).toMatch(why);
      expect(report.suites[0]!.measurements).toEqual([]);
    }
  }, 180_000);

  it('writes the table, a JSON report and an SVG for the selected suites, each figure beside its reference', async () => {
    const json = join(tmp.dir, 'out', 'bench.json');
    const svg = join(tmp.dir, 'out', 'bench.svg');
    const r = await runBench(['--quick', '--only', 'envelope,cli-memory', '--json', json, '--svg', svg], {
      timeoutMs: 180_000,
      env: { HAPPY_MEDIA_BENCH_INPUTS: join(tmp.dir, 'inputs') },
    });
    expect(r.code).toBe(0);
    const report = JSON.parse(await readFile(json, 'utf8')) as BenchReport;
    expect(report.schema).toBe('happy-media-bench/1');
    expect(report.mode).toBe('quick');
    expect(report.machine.cpus).toBeGreaterThan(0);
    expect(report.suites.map((s) => [s.name, s.status])).toEqual([
      ['envelope', 'ok'],
      ['cli-memory', 'ok'],
    ]);
    // The table's label column read back: each line's text left of the figures, wrapped lines joined.
    const lines = r.stdout.split('\n');
    const figuresAt = lines.find((l) => l.includes('median ±IQR'))!.indexOf('median ±IQR');
    const labelColumn = lines.map((l) => l.slice(0, figuresAt).trim()).join(' ');
    for (const suite of report.suites) {
      expect(suite.checks.length).toBeGreaterThan(0);
      expect(suite.comparisons.length).toBeGreaterThan(0);
      const ids = new Map(suite.measurements.map((m) => [m.id, m]));
      for (const c of suite.comparisons) {
        const ours = ids.get(c.ours)!;
        const ref = ids.get(c.reference)!;
        expect(ours.reference ?? false).toBe(false);
        expect(ref.reference).toBe(true);
        expect(ours.unit).toBe(ref.unit);
        expect(c.ratio).toBeCloseTo(ours.summary.median / ref.summary.median, 9);
        // Table: our label on a row, the reference's on its own (labels wrap in their column), each ratio.
        expect(labelColumn).toContain(ours.label);
        expect(labelColumn).toMatch(
          new RegExp(`[a-z] = ${ref.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
        );
        expect(r.stdout).toContain(formatRatio(c.ratio));
      }
    }
    // Envelope: both variants at both sizes, seal and open, against the raw cipher; dataKey also against
    // the format's own floor; and the transcript batch, seal and open.
    expect(report.suites[0]!.comparisons).toHaveLength(16);
    expect(report.suites[0]!.comparisons.map((c) => c.reference)).toContain(
      'ref.envelope.format-open.datakey.65536',
    );
    expect(report.suites[0]!.comparisons.map((c) => c.ours)).toContain('envelope.transcript.open');
    // CLI memory: each command ran in a child of its own and has its peak RSS.
    const cli = report.suites[1]!.measurements;
    expect(cli.map((m) => m.id).sort()).toEqual([
      'cli-memory.decrypt',
      'cli-memory.encrypt',
      'ref.cli-memory.copy',
    ]);
    for (const m of cli) expect(m.peakRssBytes).toBeGreaterThan(0);
    expect(r.stdout).toMatch(/^ {2}happy-media encrypt 32\.0 MiB +\S+ MB\/s ±\d+% +[\d.]+× a +[\d.]+ MiB$/m);
    expect(r.stdout).toMatch(/^ {2}a = Node streaming file copy 32\.0 MiB +\S+ MB\/s ±\d+% +[\d.]+ MiB$/m);
    for (const line of r.stdout.split('\n')) expect([...line].length).toBeLessThanOrEqual(TABLE_WIDTH);
    // The chart: a panel for each suite, the CLI's memory in MiB.
    const chart = await readFile(svg, 'utf8');
    expect(chart.startsWith('<svg')).toBe(true);
    for (const title of [
      'envelope: messages per second',
      'cli-memory: throughput (MB/s)',
      'cli-memory: peak RSS (MiB)',
    ]) {
      expect(chart).toContain(`font-weight="bold">${title}`);
    }
    expect(chart).toMatch(/happy-media encrypt 32\.0 MiB: \d+(\.\d)? MiB<\/title>/);
  }, 180_000);
});
