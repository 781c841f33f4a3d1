import { describe, expect, it } from 'vitest';
import { type BenchContext, type BenchReport, SkipSuite, type Suite } from '../../bench/harness/context.js';
import type { Measurement } from '../../bench/harness/figures.js';
import { runSuite, selectSuites } from '../../bench/harness/runner.js';
import { summarize } from '../../bench/harness/stats.js';
import {
  type ChartPanel,
  chartPanels,
  escapeXml,
  fitLabel,
  linearTicks,
  logTicks,
  MAX_ROWS,
  MAX_SERIES,
  renderSvg,
} from '../../bench/harness/svg.js';
import {
  formatBytes,
  formatRatio,
  formatValue,
  renderTable,
  TABLE_WIDTH,
  wrapText,
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
    expect(formatValue(41_300, 'events/s')).toBe('41.3k events/s');
    expect(formatValue(27.64, 'ms')).toBe('27.6 ms');
    expect(formatBytes(64 * 2 ** 20)).toBe('64.0 MiB');
    expect(formatBytes(2 ** 30)).toBe('1.0 GiB');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatRatio(0.5)).toBe('0.50×');
  });

  it('wraps text at spaces within a width, cutting only a longer word', () => {
    expect(wrapText('a bb ccc dddd', 6)).toEqual(['a bb', 'ccc', 'dddd']);
    expect(wrapText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('', 4)).toEqual(['']);
  });

  it('prints per suite each figure of ours with its ratio to a lettered reference, each reference once, and each skipped suite', () => {
    const text = renderTable(report());
    const lines = text.split('\n');
    const start = lines.indexOf('playback');
    expect(start).toBeGreaterThan(0);
    expect(lines[start + 1]).toMatch(/^ {2}ours\.1 +300 MB\/s ±\d+% +0\.50× a +80\.0 MiB$/);
    expect(lines[start + 3]).toMatch(/^ {2}ours\.1024 +402 MB\/s ±\d+% +0\.67× c +80\.0 MiB$/);
    expect(lines[start + 4]).toMatch(/^ {2}a = ref\.1 +600 MB\/s ±\d+% +60\.0 MiB$/);
    expect(lines.filter((l) => l.includes('= ref.'))).toHaveLength(3);
    expect(text).toMatch(/^browser: SKIPPED: \/usr\/bin\/chromium not found$/m);
    expect(text).toContain('2 CPUs (Test CPU), Node v20.0.0');
  });

  it(`fits ${TABLE_WIDTH} columns whatever the labels, wrapping them in their column, nothing lost`, () => {
    const long = (id: string, reference = false) =>
      mb(id, 123.4, {
        suite: 'blob',
        reference,
        label: `${id}: a very long label that says which code path, at which size, with which backend and why ${'x'.repeat(30)}`,
        peakRssBytes: 1.5 * 2 ** 30,
      });
    const ours = [long('ours.a'), long('ours.b')];
    const refs = [long('ref.a', true), long('ref.b', true), long('ref.c', true)];
    const base = report();
    const text = renderTable({
      ...base,
      suites: [
        {
          name: 'blob',
          status: 'ok',
          checks: [],
          measurements: [...ours, ...refs],
          comparisons: ours.flatMap((o) =>
            refs.map((r) => ({ suite: 'blob', ours: o.id, reference: r.id, ratio: 12.345 })),
          ),
          durationMs: 1,
        },
        ...base.suites,
      ],
    });
    for (const line of text.split('\n')) expect([...line].length).toBeLessThanOrEqual(TABLE_WIDTH);
    // The labels, read back from their column: the other cells taken out, the wrapped lines joined.
    const labels = text
      .replaceAll(/12\.3× [abc]|123 MB\/s ±\d+%|1\.5 GiB/g, '')
      .split(/\s+/)
      .join(' ');
    for (const m of [...ours, ...refs]) expect(labels).toContain(m.label);
    expect(text).toMatch(/12\.3× a {2}12\.3× b {2}12\.3× c/);
  });
});

/** The panels of a kind. */
const panelsOf = <K extends ChartPanel['kind']>(panels: ChartPanel[], kind: K) =>
  panels.filter((p): p is Extract<ChartPanel, { kind: K }> => p.kind === kind);

describe('SVG chart', () => {
  it('draws figures measured at several sizes as lines against size, with their references and peak RSS', () => {
    const panels = chartPanels(report());
    expect(panels.map((p) => [p.title, p.unit])).toEqual([
      ['playback: throughput vs size', 'MB/s'],
      ['playback: peak RSS vs size', 'MiB'],
    ]);
    const [speed, memory] = panelsOf(panels, 'lines');
    expect(speed!.series.map((s) => [s.name, s.reference])).toEqual([
      ['ours <play>', false],
      ['plain download', true],
    ]);
    expect(speed!.series[0]!.points.map((p) => p.x)).toEqual([2 ** 20, 64 * 2 ** 20, 2 ** 30]);
    // Peak RSS in MiB, not a rate.
    expect(memory!.series[0]!.points.map((p) => p.y)).toEqual([80, 80, 80]);
    expect(memory!.series[1]!.points.map((p) => p.y)).toEqual([60, 60, 60]);
  });

  it('ticks the size axis at the sizes measured, draws ours solid and references dashed, escapes text', () => {
    const svg = renderSvg(report());
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    const sizeTicks = [...svg.matchAll(/text-anchor="middle">([\d.]+ [KMG]iB)<\/text>/g)].map((m) => m[1]);
    expect(new Set(sizeTicks)).toEqual(new Set(['1.0 MiB', '64.0 MiB', '1.0 GiB']));
    const paths = svg.match(/<path [^>]*>/g) ?? [];
    expect(paths).toHaveLength(4);
    expect(paths.filter((p) => p.includes('stroke-dasharray'))).toHaveLength(2);
    expect(svg).toContain('ours &#60;play&#62;');
    expect(svg).not.toContain('<play>');
    expect(svg).toMatch(/browser: SKIPPED: \/usr\/bin\/chromium not found/);
  });

  it('gives every suite that ran a panel: one-size and size-less figures as bars in their own unit', () => {
    const base = report();
    const suite = (name: string, unit: 'MB/s' | 'msg/s' | 'ms', extra: Partial<Measurement> = {}) => {
      const ours = { ...mb(`${name}.ours`, 40, extra), suite: name, unit, label: `${name} ours` };
      const ref = {
        ...mb(`${name}.ref`, 80, extra),
        suite: name,
        unit,
        label: `${name} ref`,
        reference: true,
      };
      return {
        name,
        status: 'ok' as const,
        checks: [],
        measurements: [ours, ref],
        comparisons: [{ suite: name, ours: ours.id, reference: ref.id, ratio: 0.5 }],
        durationMs: 1,
      };
    };
    const panels = chartPanels({
      ...base,
      suites: [
        suite('envelope', 'msg/s'),
        suite('probe', 'ms'),
        suite('cli-memory', 'MB/s', { sizeBytes: 2 ** 30, peakRssBytes: 100 * 2 ** 20 }),
      ],
    });
    expect(panels.map((p) => [p.title, p.kind, p.unit])).toEqual([
      ['envelope: messages per second', 'bars', 'msg/s'],
      ['probe: time (ms, lower is faster)', 'bars', 'ms'],
      ['cli-memory: throughput (MB/s)', 'bars', 'MB/s'],
      ['cli-memory: peak RSS (MiB)', 'bars', 'MiB'],
    ]);
    const [, , speed, memory] = panelsOf(panels, 'bars');
    expect(speed!.bars).toEqual([
      {
        ours: { label: 'cli-memory ours', value: 40, reference: false },
        versus: { label: 'cli-memory ref', value: 80 },
        ratio: 0.5,
      },
    ]);
    expect(memory!.bars.map((b) => [b.ours.label, b.ours.value, b.ours.reference])).toEqual([
      ['cli-memory ours', 100, false],
      ['cli-memory ref', 100, true],
    ]);
  });

  it('draws a bar panel for every unit a suite compares in, in the order it first uses them', () => {
    const base = report();
    const pair = (id: string, unit: Measurement['unit']) => [
      { ...mb(id, 10), suite: 'mappers', unit },
      { ...mb(`ref.${id}`, 20, { reference: true }), suite: 'mappers', unit },
    ];
    const measurements = [...pair('events', 'events/s'), ...pair('latency', 'ms')];
    const panels = chartPanels({
      ...base,
      suites: [
        {
          name: 'mappers',
          status: 'ok',
          checks: [],
          measurements,
          comparisons: ['events', 'latency'].map((id) => ({
            suite: 'mappers',
            ours: id,
            reference: `ref.${id}`,
            ratio: 0.5,
          })),
          durationMs: 1,
        },
      ],
    });
    expect(panels.map((p) => p.unit)).toEqual(['events/s', 'ms']);
  });

  it(`keeps panels small: at most ${MAX_SERIES} series or ${MAX_ROWS} rows, series compared together kept together`, () => {
    const base = report();
    const measurements: Measurement[] = [];
    const comparisons = [];
    for (let i = 0; i < 5; i++) {
      const sizes = [2 ** 20, 2 ** 24];
      const ours = sizes.map((x) => ({
        ...mb(`o${i}.${x}`, 100, { sizeBytes: x, series: `ours ${i}` }),
        suite: 'blob',
      }));
      const ref = sizes.map((x) => ({
        ...mb(`r${i}.${x}`, 200, { sizeBytes: x, series: `ref ${i}`, reference: true }),
        suite: 'blob',
      }));
      measurements.push(...ours, ...ref);
      comparisons.push(
        ...ours.map((o, j) => ({ suite: 'blob', ours: o.id, reference: ref[j]!.id, ratio: 0.5 })),
      );
    }
    for (let i = 0; i < 20; i++) {
      const o = { ...mb(`m${i}`, 10, { unit: 'msg/s' }), suite: 'blob', unit: 'msg/s' as const };
      const r = { ...mb(`mr${i}`, 20, { reference: true }), suite: 'blob', unit: 'msg/s' as const };
      measurements.push(o, r);
      comparisons.push({ suite: 'blob', ours: o.id, reference: r.id, ratio: 0.5 });
    }
    const panels = chartPanels({
      ...base,
      suites: [{ name: 'blob', status: 'ok', checks: [], measurements, comparisons, durationMs: 1 }],
    });
    const lines = panelsOf(panels, 'lines');
    const bars = panelsOf(panels, 'bars');
    expect(lines.map((p) => p.series.length)).toEqual([6, 4]);
    for (const p of lines) {
      for (const s of p.series.filter((x) => x.name.startsWith('ours'))) {
        expect(p.series.map((x) => x.name)).toContain(s.name.replace('ours', 'ref'));
      }
    }
    expect(bars.map((p) => p.bars.length)).toEqual([7, 7, 6]);
    expect(bars.map((p) => p.title)).toEqual([
      'blob: messages per second (1/3)',
      'blob: messages per second (2/3)',
      'blob: messages per second (3/3)',
    ]);
  });

  it('ticks log axes at 1-2-5 steps (at most six), linear axes from 0; cuts labels in the middle', () => {
    expect(logTicks(30, 700)).toEqual([50, 100, 200, 500]);
    expect(logTicks(300, 150_000)).toEqual([1000, 10_000, 100_000]);
    expect(logTicks(30, 60)).toEqual([30, 50]);
    expect(linearTicks(142)).toEqual([0, 50, 100, 150]);
    expect(fitLabel('seek: 256 KiB range at a random offset via the Service Worker, last byte', 200)).toMatch(
      /^seek: 256 KiB.*….*last byte$/,
    );
  });

  it('says so when there is nothing to draw', () => {
    const empty = { ...report(), suites: [] };
    expect(renderSvg(empty)).toContain('no figures in this run');
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
