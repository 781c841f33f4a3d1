import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../bench/harness/context.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/tmp.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTempDir('happy-media-bench-test-');
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('happy-media bench (output shape, not timings)', () => {
  it('lists its suites', async () => {
    const r = await runCli(['bench', '--list']);
    expect(r.code).toBe(0);
    const names = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[0]);
    expect(names).toEqual([
      'blob',
      'random-access',
      'envelope',
      'probe',
      'send',
      'playback',
      'cli-memory',
      'browser',
      'hermes',
    ]);
  }, 180_000);

  it('rejects an unknown suite with ERR_USAGE and exit 2', async () => {
    const r = await runCli(['bench', '--quick', '--only', 'envelope,nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^happy-media: ERR_USAGE: .*nope/m);
  }, 180_000);

  it('writes the table, a JSON report and an SVG for the selected suites, each figure beside its reference', async () => {
    const json = join(tmp.dir, 'out', 'bench.json');
    const svg = join(tmp.dir, 'out', 'bench.svg');
    const r = await runCli(
      ['bench', '--quick', '--only', 'envelope,cli-memory', '--json', json, '--svg', svg],
      {
        timeoutMs: 180_000,
        env: { HAPPY_MEDIA_BENCH_INPUTS: join(tmp.dir, 'inputs') },
      },
    );
    expect(r.code).toBe(0);
    const report = JSON.parse(await readFile(json, 'utf8')) as BenchReport;
    expect(report.schema).toBe('happy-media-bench/1');
    expect(report.mode).toBe('quick');
    expect(report.machine.cpus).toBeGreaterThan(0);
    expect(report.suites.map((s) => [s.name, s.status])).toEqual([
      ['envelope', 'ok'],
      ['cli-memory', 'ok'],
    ]);
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
        // Table row: our label, the reference's label and the same ratio.
        expect(r.stdout).toContain(ours.label);
        expect(r.stdout).toContain(ref.label);
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
    expect(r.stdout).toMatch(/happy-media encrypt 32\.0 MiB .* MiB vs .* MiB/);
    const chart = await readFile(svg, 'utf8');
    expect(chart.startsWith('<svg')).toBe(true);
    expect(chart).toContain('happy-media encrypt 32.0 MiB');
  }, 180_000);
});
