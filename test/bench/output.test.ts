import { describe, expect, it } from 'vitest';
import { type BenchContext, type BenchReport, SkipSuite, type Suite } from '../../bench/harness/context.js';
import type { Measurement } from '../../bench/harness/figures.js';
import { runSuite, selectSuites } from '../../bench/harness/runner.js';
import { summarize } from '../../bench/harness/stats.js';
import { chartSeries, escapeXml, renderSvg } from '../../bench/harness/svg.js';
import {
  formatBytes,
  formatRatio,
  formatValue,
  layoutColumns,
  renderTable,
} from '../../bench/harness/table.js';

const machine = {
  cpus: 2,
  cpuModel: 'Test CPU',
  totalMemoryBytes: 1,
  node: 'v20.0.0',
  platform: 'linux-x64',
};

function mb(id: string, median: number, extra: Partial<Measurement> = {}): Measurement {
  return {
    id,
    suite: 'playback',
    label: id,
    unit: 'MB/s',
    summary: summarize([median * 0.9, median, median * 1.1]),
    ...extra,
  };
}

function report(): BenchReport {
  const ours = [1, 64, 1024].map((m) =>
    mb(`ours.${m}`, 300 + m / 10, {
      sizeBytes: m * 2 ** 20,
      series: 'ours <play>',
      peakRssBytes: 80 * 2 ** 20,
    }),
  );
  const refs = [1, 64, 1024].map((m) =>
    mb(`ref.${m}`, 600, {
      sizeBytes: m * 2 ** 20,
      series: 'plain download',
      reference: true,
      peakRssBytes: 60 * 2 ** 20,
    }),
  );
  return {
    schema: 'happy-media-bench/1',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 12_000,
    mode: 'quick',
    machine,
    suites: [
      {
        name: 'playback',
        status: 'ok',
        checks: ['round-trips'],
        measurements: [...ours, ...refs, { ...mb('latency', 20), unit: 'ms' }],
        comparisons: ours.map((o, i) => ({
          suite: 'playback',
          ours: o.id,
          reference: refs[i]!.id,
          ratio: o.summary.median / 600,
        })),
        durationMs: 10,
      },
      {
        name: 'browser',
        status: 'skipped',
        reason: '/usr/bin/chromium not found',
        checks: [],
        measurements: [],
        comparisons: [],
        durationMs: 1,
      },
    ],
  };
}

describe('terminal table', () => {
  it('formats values in their unit, bytes in binary units and ratios with ×', () => {
    expect(formatValue(1234.4, 'MB/s')).toBe('1234 MB/s');
    expect(formatValue(52_100, 'msg/s')).toBe('52.1k msg/s');
    expect(formatValue(2_500_000, 'msg/s')).toBe('2.50M msg/s');
    expect(formatValue(27.64, 'ms')).toBe('27.6 ms');
    expect(formatBytes(64 * 2 ** 20)).toBe('64.0 MiB');
    expect(formatBytes(2 ** 30)).toBe('1.0 GiB');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatRatio(0.5)).toBe('0.50×');
  });

  it('aligns columns under a header rule', () => {
    const text = layoutColumns([
      ['a', 'bb', 'c'],
      ['long cell', 'x', 'y'],
    ]);
    const [head, rule, row] = text.split('\n');
    expect(rule).toBe('---------  --  -');
    expect(head!.indexOf('bb')).toBe(row!.indexOf('x'));
  });

  it('prints one row per comparison with both figures, the ratio and peak RSS, and each skipped suite', () => {
    const text = renderTable(report());
    const rows = text.split('\n').filter((l) => l.startsWith('playback'));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/ours\.1 .*300 MB\/s ±\d+%.*ref\.1 .*600 MB\/s.*0\.50×.*80\.0 MiB vs 60\.0 MiB/);
    expect(text).toMatch(/^browser: SKIPPED: \/usr\/bin\/chromium not found$/m);
    expect(text).toContain('2 CPUs (Test CPU), Node v20.0.0');
  });
});

describe('SVG chart', () => {
  it('groups sized MB/s figures into series sorted by size, leaving out other units', () => {
    const series = chartSeries(report());
    expect(series.map((s) => s.name)).toEqual(['ours <play>', 'plain download']);
    expect(series[0]!.points.map((p) => p.x)).toEqual([2 ** 20, 64 * 2 ** 20, 2 ** 30]);
    expect(series[1]!.reference).toBe(true);
  });

  it('draws a solid line for ours and a dashed one for references, escaping text', () => {
    const svg = renderSvg(report());
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    const paths = svg.match(/<path [^>]*>/g) ?? [];
    expect(paths).toHaveLength(2);
    expect(paths.filter((p) => p.includes('stroke-dasharray'))).toHaveLength(1);
    expect(svg).toContain('ours &#60;play&#62;');
    expect(svg).not.toContain('<play>');
    expect(svg.match(/<circle /g)).toHaveLength(3);
    expect(svg).toContain('1.0 GiB');
  });

  it('draws one panel per suite', () => {
    const base = report();
    const blob = {
      ...base.suites[0]!,
      name: 'blob',
      measurements: [{ ...mb('b', 1000, { sizeBytes: 2 ** 28, series: 'blob encrypt' }), suite: 'blob' }],
      comparisons: [],
    };
    const svg = renderSvg({ ...base, suites: [...base.suites, blob] });
    expect(svg).toMatch(/font-weight="bold">playback<\/text>/);
    expect(svg).toMatch(/font-weight="bold">blob<\/text>/);
    expect(svg).not.toMatch(/font-weight="bold">browser<\/text>/);
    expect(chartSeries({ ...base, suites: [blob] })[0]!.suite).toBe('blob');
  });

  it('says so when there is nothing to draw', () => {
    const empty = { ...report(), suites: [] };
    expect(renderSvg(empty)).toContain('no throughput figures');
    expect(escapeXml(`a<b>&"'`)).toBe('a&#60;b&#62;&#38;&#34;&#39;');
  });
});

describe('suite runner', () => {
  const ctx: BenchContext = {
    quick: true,
    scratchDir: '/nonexistent',
    inputsDir: '/nonexistent',
    log: () => {},
  };
  const suite = (name: string, run: Suite['run']): Suite => ({ name, description: name, run });

  it('selects suites by name and rejects unknown names', () => {
    const all = [suite('a', async () => {}), suite('b', async () => {})];
    expect(selectSuites(all, ['b']).map((s) => s.name)).toEqual(['b']);
    expect(selectSuites(all).map((s) => s.name)).toEqual(['a', 'b']);
    expect(() => selectSuites(all, ['b', 'zzz'])).toThrow(/zzz/);
  });

  it('records measurements, checks and ratios of a suite that runs', async () => {
    const r = await runSuite(
      suite('ok', async (_ctx, rec) => {
        rec.check('outputs compared');
        const ours = rec.add(mb('o', 100));
        const ref = rec.add(mb('r', 400, { reference: true }));
        rec.compare(ours, ref);
      }),
      ctx,
    );
    expect(r.status).toBe('ok');
    expect(r.checks).toEqual(['outputs compared']);
    expect(r.comparisons[0]!.ratio).toBe(0.25);
  });

  it('reports a missing dependency as skipped and any other error as failed', async () => {
    const skipped = await runSuite(
      suite('s', async () => {
        throw new SkipSuite('ffmpeg not found');
      }),
      ctx,
    );
    expect([skipped.status, skipped.reason]).toEqual(['skipped', 'ffmpeg not found']);
    const failed = await runSuite(
      suite('f', async (_ctx, rec) => {
        rec.add(mb('dup', 1));
        rec.add(mb('dup', 2));
      }),
      ctx,
    );
    expect(failed.status).toBe('failed');
    expect(failed.reason).toMatch(/duplicate measurement id dup/);
  });
});
