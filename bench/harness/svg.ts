/**
 * The chart: small panels, each of one suite, one unit and few series, as a hand-built SVG (no charting
 * dependency).
 *
 * - **lines**: a figure measured at several sizes (playback's download 1 MiB → 1 GiB) against size, ours
 *   solid with dots, references dashed with squares; the x ticks are the sizes measured; at most
 *   {@link MAX_SERIES} series a panel (series that are compared with each other stay in one panel).
 * - **bars**: a figure measured at one size, or one that has no size (msg/s, ms): one row per comparison,
 *   our bar above its reference's, each with its value, and the speed ratio; at most {@link MAX_ROWS} rows
 *   a panel, one unit a panel.
 * - **memory**: peak RSS (MiB) where it was measured, as lines against size when there are several sizes
 *   (flat = bounded memory), else as bars.
 *
 * Every suite that ran has at least one panel; skipped and failed suites are listed at the bottom.
 *
 * @module
 */
import type { BenchReport } from './context.js';
import type { Measurement, SuiteResult, Unit } from './figures.js';
import { formatBytes, formatRatio, formatValue } from './table.js';

/** Most series in a line panel. */
export const MAX_SERIES = 6;
/** Most rows (comparisons or figures) in a bar panel. */
export const MAX_ROWS = 8;

/** One line of a line panel. */
export interface ChartSeries {
  /** Legend text. */
  name: string;
  /** Dashed with squares when it is a reference. */
  reference: boolean;
  /** Points sorted by size: x = bytes, y = the value in the panel's unit. */
  points: { x: number; y: number }[];
}

/** One row of a bar panel: our figure and, when it is a comparison, its reference's and the ratio. */
export interface ChartBar {
  /** Our figure's label and value. */
  ours: { label: string; value: number; reference: boolean };
  /** The reference it is compared with. */
  versus?: { label: string; value: number };
  /** Speed ratio (ours ÷ reference speed). */
  ratio?: number;
}

/** One panel of the chart. */
export type ChartPanel =
  | { kind: 'lines'; suite: string; title: string; unit: string; logY: boolean; series: ChartSeries[] }
  | { kind: 'bars'; suite: string; title: string; unit: string; logX: boolean; bars: ChartBar[] };

/** Escapes text for SVG/XML content and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const MiB = 1024 * 1024;

/** Splits `items` into chunks of at most `size`, as evenly as possible. */
function chunks<T>(items: readonly T[], size: number): T[][] {
  const count = Math.ceil(items.length / size);
  const each = Math.ceil(items.length / Math.max(count, 1));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += each) out.push(items.slice(i, i + each));
  return out;
}

/** Adds `(1/2)` … to titles of a split panel. */
function numbered<P extends { title: string }>(panels: P[]): P[] {
  return panels.length < 2
    ? panels
    : panels.map((p, i) => ({ ...p, title: `${p.title} (${i + 1}/${panels.length})` }));
}

/** Series of a suite's measurements in `unit` that carry a size, by `series` name (else label). */
function seriesOf(measurements: readonly Measurement[], value: (m: Measurement) => number | undefined) {
  const groups = new Map<string, { series: ChartSeries; ids: string[] }>();
  for (const m of measurements) {
    const y = value(m);
    if (m.sizeBytes === undefined || y === undefined || !(y > 0)) continue;
    const name = m.series ?? m.label;
    let g = groups.get(name);
    if (!g) {
      g = { series: { name, reference: m.reference === true, points: [] }, ids: [] };
      groups.set(name, g);
    }
    g.series.points.push({ x: m.sizeBytes, y });
    g.ids.push(m.id);
  }
  for (const g of groups.values()) g.series.points.sort((a, b) => a.x - b.x);
  return [...groups.values()];
}

/**
 * The series worth a line: ours measured at several sizes, and the references they are compared with.
 * (A reference measured at several sizes for figures of ours at one size each is read as bars.)
 */
function onSeveralSizes(
  groups: { series: ChartSeries; ids: string[] }[],
  suite: SuiteResult,
): { series: ChartSeries; ids: string[] }[] {
  const lines = groups.filter((g) => !g.series.reference && g.series.points.length > 1);
  const ourIds = new Set(lines.flatMap((g) => g.ids));
  const referenceIds = new Set(suite.comparisons.filter((c) => ourIds.has(c.ours)).map((c) => c.reference));
  const references = groups.filter((g) => g.series.reference && g.ids.some((id) => referenceIds.has(id)));
  return [...lines, ...references];
}

/**
 * Packs series into panels of at most {@link MAX_SERIES}, keeping series that are compared with each
 * other together (connected through the suite's comparisons) as long as a group fits.
 */
function packSeries(groups: { series: ChartSeries; ids: string[] }[], suite: SuiteResult): ChartSeries[][] {
  const owner = new Map<string, number>();
  groups.forEach((g, i) => {
    for (const id of g.ids) owner.set(id, i);
  });
  const parent = groups.map((_, i) => i);
  const find = (i: number): number => {
    let root = i;
    while (parent[root] !== root) root = parent[root]!;
    return root;
  };
  for (const c of suite.comparisons) {
    const a = owner.get(c.ours);
    const b = owner.get(c.reference);
    if (a !== undefined && b !== undefined) parent[find(a)] = find(b);
  }
  const components = new Map<number, ChartSeries[]>();
  groups.forEach((g, i) => {
    const list = components.get(find(i)) ?? [];
    list.push(g.series);
    components.set(find(i), list);
  });
  const panels: ChartSeries[][] = [];
  for (const component of components.values()) {
    for (const part of chunks(component, MAX_SERIES)) {
      const open = panels.find((p) => p.length + part.length <= MAX_SERIES);
      if (open) open.push(...part);
      else panels.push([...part]);
    }
  }
  return panels;
}

const UNIT_TEXT: Record<Unit, string> = {
  'MB/s': 'throughput (MB/s)',
  'msg/s': 'messages per second',
  'events/s': 'events per second',
  ms: 'time (ms, lower is faster)',
};

/** The panels of one suite. */
function suitePanels(suite: SuiteResult): ChartPanel[] {
  const byId = new Map(suite.measurements.map((m) => [m.id, m]));
  const panels: ChartPanel[] = [];

  // Throughput against size, for figures of ours measured at several sizes, with their references.
  const sized = onSeveralSizes(
    seriesOf(
      suite.measurements.filter((m) => m.unit === 'MB/s'),
      (m) => m.summary.median,
    ),
    suite,
  );
  const onLines = new Set(sized.flatMap((g) => g.ids));
  panels.push(
    ...numbered(
      packSeries(sized, suite).map(
        (series): ChartPanel => ({
          kind: 'lines',
          suite: suite.name,
          title: `${suite.name}: throughput vs size`,
          unit: 'MB/s',
          logY: true,
          series,
        }),
      ),
    ),
  );

  // Every other comparison as a pair of bars, one panel per unit, in the order the suite first uses them
  // (so a unit added to figures.ts is drawn without a list here to keep up).
  const units = [
    ...new Set(suite.comparisons.map((c) => byId.get(c.ours)?.unit).filter((u) => u !== undefined)),
  ];
  for (const unit of units) {
    const bars: ChartBar[] = [];
    for (const c of suite.comparisons) {
      const ours = byId.get(c.ours);
      const ref = byId.get(c.reference);
      if (!ours || !ref || ours.unit !== unit || onLines.has(ours.id)) continue;
      bars.push({
        ours: { label: ours.label, value: ours.summary.median, reference: false },
        versus: { label: ref.label, value: ref.summary.median },
        ratio: c.ratio,
      });
    }
    const title = `${suite.name}: ${UNIT_TEXT[unit]}`;
    panels.push(
      ...numbered(
        chunks(bars, MAX_ROWS).map(
          (rows): ChartPanel => ({ kind: 'bars', suite: suite.name, title, unit, logX: true, bars: rows }),
        ),
      ),
    );
  }

  // Peak memory: lines against size where several sizes were measured, else bars.
  const rss = (m: Measurement) => (m.peakRssBytes === undefined ? undefined : m.peakRssBytes / MiB);
  const memorySeries = onSeveralSizes(seriesOf(suite.measurements, rss), suite);
  const onMemoryLines = new Set(memorySeries.flatMap((g) => g.ids));
  panels.push(
    ...numbered(
      packSeries(memorySeries, suite).map(
        (series): ChartPanel => ({
          kind: 'lines',
          suite: suite.name,
          title: `${suite.name}: peak RSS vs size`,
          unit: 'MiB',
          logY: false,
          series,
        }),
      ),
    ),
  );
  const memoryBars: ChartBar[] = suite.measurements
    .filter((m) => m.peakRssBytes !== undefined && !onMemoryLines.has(m.id))
    .map((m) => ({ ours: { label: m.label, value: rss(m)!, reference: m.reference === true } }));
  panels.push(
    ...numbered(
      chunks(memoryBars, MAX_ROWS).map(
        (rows): ChartPanel => ({
          kind: 'bars',
          suite: suite.name,
          title: `${suite.name}: peak RSS (MiB)`,
          unit: 'MiB',
          logX: false,
          bars: rows,
        }),
      ),
    ),
  );
  return panels;
}

/** The chart's panels, suite by suite (suites that did not run have none). */
export function chartPanels(report: BenchReport): ChartPanel[] {
  return report.suites.filter((s) => s.status === 'ok').flatMap(suitePanels);
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b'];
const OURS_BAR = '#1f77b4';
const REFERENCE_BAR = '#bbbbbb';
const PANEL_WIDTH = 620;
/** Average advance of a character at font-size 11 (for truncating labels to a width). */
const CHAR_PX = 6.2;

const r = (v: number) => v.toFixed(1);

/**
 * `text` cut to at most `px` pixels wide, with an ellipsis in the middle: labels carry their variant and
 * size at the end (`…, last byte`, `… 16.0 MiB`), as worth keeping as their start.
 */
export function fitLabel(text: string, px: number): string {
  const max = Math.max(5, Math.floor(px / CHAR_PX));
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) * 0.6);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

/**
 * Ticks covering [lo, hi] on a log axis: 1-2-5 steps, thinned to powers of ten (then every other one) so
 * at most six remain, or finer steps for a narrow range.
 */
export function logTicks(lo: number, hi: number): number[] {
  const steps = (multiples: number[], every: number) => {
    const out: number[] = [];
    for (let e = Math.floor(Math.log10(lo)); 10 ** e <= hi; e++) {
      if (e % every !== 0) continue;
      for (const m of multiples) if (m * 10 ** e >= lo && m * 10 ** e <= hi) out.push(m * 10 ** e);
    }
    return out;
  };
  const fine = steps([1, 2, 5], 1);
  // A narrow range (say 30–60) has one 1-2-5 step or none: finer steps then.
  if (fine.length < 2) return steps([1, 1.5, 2, 3, 5, 7], 1);
  if (fine.length <= 6) return fine;
  const decades = steps([1], 1);
  return decades.length <= 6 ? decades : steps([1], 2);
}

/** Round steps from 0 to at least `hi`, for linear axes (about five). */
export function linearTicks(hi: number): number[] {
  const raw = hi / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let t = 0; t <= hi + step / 2; t += step) out.push(Number(t.toPrecision(6)));
  return out;
}

/** A value on an axis: `1.2k`, `350`, `0.5`. */
function tickText(v: number): string {
  if (v >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (v >= 1e3) return `${+(v / 1e3).toPrecision(3)}k`;
  return `${+v.toPrecision(3)}`;
}

/** A value in its panel's unit, for labels and tooltips. */
function valueText(value: number, unit: string): string {
  if (unit === 'MiB') return formatBytes(value * MiB);
  return formatValue(value, unit as Unit);
}

function title(text: string, x: number, y: number): string {
  return `<text x="${x + 10}" y="${y + 16}" font-size="13" font-weight="bold">${escapeXml(text)}</text>`;
}

/** A line panel at (x0, y0). */
function linePanel(p: Extract<ChartPanel, { kind: 'lines' }>, x0: number, y0: number) {
  const plot = { left: x0 + 62, top: y0 + 28, width: PANEL_WIDTH - 84, height: 180 };
  const sizes = [...new Set(p.series.flatMap((s) => s.points.map((q) => q.x)))].sort((a, b) => a - b);
  const ys = p.series.flatMap((s) => s.points.map((q) => q.y));
  // Padding so the first and last sizes, and the extreme values, sit inside the frame.
  const xLo = sizes[0]! / 1.6;
  const xHi = sizes[sizes.length - 1]! * 1.6;
  const yLo = p.logY ? Math.min(...ys) / 1.5 : 0;
  const yHi = Math.max(...ys) * (p.logY ? 1.5 : 1.15);
  const yTicks = p.logY ? logTicks(yLo, yHi) : linearTicks(yHi);
  const yTop = p.logY ? yHi : Math.max(yHi, yTicks[yTicks.length - 1]!);
  const sx = (x: number) =>
    plot.left + ((Math.log(x) - Math.log(xLo)) / (Math.log(xHi) - Math.log(xLo))) * plot.width;
  const sy = (y: number) =>
    plot.top +
    plot.height -
    (p.logY ? (Math.log(y) - Math.log(yLo)) / (Math.log(yTop) - Math.log(yLo)) : (y - yLo) / (yTop - yLo)) *
      plot.height;
  const out = [
    title(p.title, x0, y0),
    `<rect x="${plot.left}" y="${plot.top}" width="${plot.width}" height="${plot.height}" fill="none" stroke="#333"/>`,
  ];
  for (const t of sizes) {
    out.push(
      `<line x1="${r(sx(t))}" y1="${plot.top}" x2="${r(sx(t))}" y2="${plot.top + plot.height}" stroke="#eee"/>`,
      `<text x="${r(sx(t))}" y="${plot.top + plot.height + 14}" text-anchor="middle">${escapeXml(formatBytes(t))}</text>`,
    );
  }
  for (const t of yTicks) {
    out.push(
      `<line x1="${plot.left}" y1="${r(sy(t))}" x2="${plot.left + plot.width}" y2="${r(sy(t))}" stroke="#eee"/>`,
      `<text x="${plot.left - 6}" y="${r(sy(t) + 4)}" text-anchor="end">${tickText(t)}</text>`,
    );
  }
  out.push(
    `<text transform="translate(${x0 + 14} ${plot.top + plot.height / 2}) rotate(-90)" text-anchor="middle">${escapeXml(p.unit)}${p.logY ? ' (log)' : ''}</text>`,
    `<text x="${plot.left + plot.width / 2}" y="${plot.top + plot.height + 28}" text-anchor="middle" fill="#555">size (log)</text>`,
  );
  p.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const dash = s.reference ? ' stroke-dasharray="6 4"' : '';
    if (s.points.length > 1) {
      const d = s.points.map((q, j) => `${j === 0 ? 'M' : 'L'}${r(sx(q.x))} ${r(sy(q.y))}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`);
    }
    for (const q of s.points) {
      const tip = `${s.name}: ${valueText(q.y, p.unit)} at ${formatBytes(q.x)}`;
      out.push(
        s.reference
          ? `<rect x="${r(sx(q.x) - 3.5)}" y="${r(sy(q.y) - 3.5)}" width="7" height="7" fill="#fff" stroke="${color}" stroke-width="2"><title>${escapeXml(tip)}</title></rect>`
          : `<circle cx="${r(sx(q.x))}" cy="${r(sy(q.y))}" r="4" fill="${color}"><title>${escapeXml(tip)}</title></circle>`,
      );
    }
    const ly = plot.top + plot.height + 46 + i * 15;
    out.push(
      `<line x1="${plot.left}" y1="${ly - 4}" x2="${plot.left + 24}" y2="${ly - 4}" stroke="${color}" stroke-width="2"${dash}/>`,
      `<text x="${plot.left + 30}" y="${ly}">${escapeXml(fitLabel(s.name, plot.width - 30))}${s.reference ? ' (reference)' : ''}</text>`,
    );
  });
  return { svg: out, height: plot.top - y0 + plot.height + 46 + p.series.length * 15 };
}

/** A bar panel at (x0, y0): per row our bar (solid) above the reference's (grey), values and ratio. */
function barPanel(p: Extract<ChartPanel, { kind: 'bars' }>, x0: number, y0: number) {
  const labelWidth = 290;
  // Right of the bars: room for a value's text, then the ratio column.
  const plot = { left: x0 + 10 + labelWidth, top: y0 + 40, width: PANEL_WIDTH - labelWidth - 10 - 150 };
  const barHeight = 11;
  const rowHeight = p.bars.some((b) => b.versus) ? 2 * barHeight + 14 : barHeight + 10;
  const values = p.bars.flatMap((b) => [b.ours.value, ...(b.versus ? [b.versus.value] : [])]);
  const lo = p.logX ? Math.min(...values) / 2 : 0;
  const hi = Math.max(...values) * (p.logX ? 1.05 : 1.02);
  const ticks = p.logX ? logTicks(lo, hi) : linearTicks(hi);
  const top = p.logX ? hi : Math.max(hi, ticks[ticks.length - 1]!);
  const sx = (v: number) =>
    plot.left +
    (p.logX ? (Math.log(v) - Math.log(lo)) / (Math.log(top) - Math.log(lo)) : (v - lo) / (top - lo)) *
      plot.width;
  const height = p.bars.length * rowHeight;
  const out = [title(p.title, x0, y0)];
  out.push(
    `<text x="${x0 + 10}" y="${plot.top - 8}" fill="#555">${escapeXml(p.unit)}${p.logX ? ', log scale' : ''}${p.bars.some((b) => b.versus) ? ' · ours (blue) above its reference (grey) · right: speed ratio' : ' · ours (blue), references (grey)'}</text>`,
  );
  for (const t of ticks) {
    out.push(
      `<line x1="${r(sx(t))}" y1="${plot.top}" x2="${r(sx(t))}" y2="${plot.top + height}" stroke="#eee"/>`,
      `<text x="${r(sx(t))}" y="${plot.top + height + 13}" text-anchor="middle">${tickText(t)}</text>`,
    );
  }
  p.bars.forEach((b, i) => {
    const y = plot.top + i * rowHeight + 4;
    const bar = (value: number, yy: number, fill: string, label: string) => {
      const w = Math.max(1, sx(value) - plot.left);
      out.push(
        `<rect x="${plot.left}" y="${r(yy)}" width="${r(w)}" height="${barHeight}" fill="${fill}"><title>${escapeXml(`${label}: ${valueText(value, p.unit)}`)}</title></rect>`,
        `<text x="${r(plot.left + w + 4)}" y="${r(yy + barHeight - 2)}">${escapeXml(valueText(value, p.unit))}</text>`,
      );
    };
    out.push(
      `<text x="${x0 + 10}" y="${r(y + barHeight - 2)}"${b.ours.reference ? ' fill="#666"' : ''}>${escapeXml(fitLabel(b.ours.label, labelWidth - 8))}</text>`,
    );
    bar(b.ours.value, y, b.ours.reference ? REFERENCE_BAR : OURS_BAR, b.ours.label);
    if (b.versus) {
      out.push(
        `<text x="${x0 + 18}" y="${r(y + 2 * barHeight)}" fill="#666">${escapeXml(fitLabel(`vs ${b.versus.label}`, labelWidth - 16))}</text>`,
      );
      bar(b.versus.value, y + barHeight + 1, REFERENCE_BAR, b.versus.label);
    }
    if (b.ratio !== undefined) {
      out.push(
        `<text x="${x0 + PANEL_WIDTH - 10}" y="${r(y + barHeight + 4)}" text-anchor="end" font-weight="bold">${formatRatio(b.ratio)}</text>`,
      );
    }
  });
  return { svg: out, height: plot.top - y0 + height + 20 };
}

/**
 * Renders the chart as a standalone SVG document: the panels of {@link chartPanels} in two columns, and
 * a line for each suite that was skipped or failed.
 *
 * @example
 * ```ts
 * await writeFile('bench.svg', renderSvg(report));
 * ```
 */
export function renderSvg(report: BenchReport): string {
  const panels = chartPanels(report);
  const columns = 2;
  const width = PANEL_WIDTH * columns;
  const header = `happy-media benchmarks (${report.mode} run, Node ${report.machine.node}, ${report.machine.cpus} CPUs): ours solid/blue, references dashed/grey`;
  const body: string[] = [];
  let y = 36;
  if (panels.length === 0) {
    body.push(`<text x="20" y="${y + 30}">no figures in this run</text>`);
    y += 60;
  }
  for (let i = 0; i < panels.length; i += columns) {
    let rowHeight = 0;
    panels.slice(i, i + columns).forEach((p, j) => {
      const drawn = p.kind === 'lines' ? linePanel(p, j * PANEL_WIDTH, y) : barPanel(p, j * PANEL_WIDTH, y);
      body.push(...drawn.svg);
      rowHeight = Math.max(rowHeight, drawn.height);
    });
    y += rowHeight + 18;
  }
  for (const s of report.suites.filter((s) => s.status !== 'ok')) {
    body.push(
      `<text x="10" y="${y + 4}" fill="#a00">${escapeXml(fitLabel(`${s.name}: ${s.status.toUpperCase()}: ${s.reason ?? ''}`, width - 20))}</text>`,
    );
    y += 16;
  }
  y += 8;
  return `${[
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" role="img" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(header)}</title>`,
    `<rect width="${width}" height="${y}" fill="#fff"/>`,
    `<text x="10" y="22" font-size="14" font-weight="bold">${escapeXml(header)}</text>`,
    ...body,
    '</svg>',
  ].join('\n')}\n`;
}
