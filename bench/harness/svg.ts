/**
 * The chart: throughput against size, ours (solid) beside references (dashed), one panel per suite, as a
 * hand-built SVG (no charting dependency). Both axes are logarithmic: sizes span 1 MiB–1 GiB and rates 10–5000 MB/s.
 *
 * @module
 */
import type { BenchReport } from './context.js';
import type { Measurement } from './figures.js';
import { formatBytes } from './table.js';

/** One line of the chart. */
export interface ChartSeries {
  /** Suite the series belongs to (one panel per suite). */
  suite: string;
  /** Legend text. */
  name: string;
  /** Dashed when it is a reference. */
  reference: boolean;
  /** Points sorted by size: x = bytes, y = MB/s (median). */
  points: { x: number; y: number }[];
}

/** Escapes text for SVG/XML content and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Groups the report's MB/s measurements that have a size into series (by `series`, else by id). */
export function chartSeries(report: BenchReport): ChartSeries[] {
  const groups = new Map<string, ChartSeries>();
  const all: Measurement[] = report.suites.flatMap((s) => s.measurements);
  for (const m of all) {
    if (m.unit !== 'MB/s' || m.sizeBytes === undefined || !(m.summary.median > 0)) continue;
    const name = m.series ?? m.label;
    let g = groups.get(`${m.suite}\u0000${name}`);
    if (!g) {
      g = { suite: m.suite, name, reference: m.reference === true, points: [] };
      groups.set(`${m.suite}\u0000${name}`, g);
    }
    g.points.push({ x: m.sizeBytes, y: m.summary.median });
  }
  for (const g of groups.values()) g.points.sort((a, b) => a.x - b.x);
  return [...groups.values()];
}

const PALETTE = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#7f7f7f',
  '#bcbd22',
  '#393b79',
  '#ad494a',
];

/** Powers of `base` covering [lo, hi] for axis ticks. */
function ticks(lo: number, hi: number, base: number): number[] {
  const out: number[] = [];
  let t = base ** Math.floor(Math.log(lo) / Math.log(base));
  while (t <= hi * 1.0001) {
    if (t >= lo / 1.0001) out.push(t);
    t *= base;
  }
  return out;
}

/** 1-2-5 steps covering [lo, hi] (rate axes, where powers of ten alone leave narrow ranges bare). */
function ticks125(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let decade = 10 ** Math.floor(Math.log10(lo)); decade <= hi; decade *= 10) {
    for (const m of [1, 2, 5]) if (decade * m >= lo && decade * m <= hi) out.push(decade * m);
  }
  return out;
}

const r = (v: number) => v.toFixed(1);

/** One panel (one suite): axes, lines, points and its legend below, drawn at (x0, y0). */
function panel(
  title: string,
  series: ChartSeries[],
  x0: number,
  y0: number,
  width: number,
): { svg: string[]; height: number } {
  const plot = { left: x0 + 60, top: y0 + 28, width: width - 80, height: 190 };
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  // Pad the ranges so single points and flat lines sit inside the frame.
  const xLo = Math.min(...xs) / 2;
  const xHi = Math.max(...xs) * 2;
  const yLo = Math.min(...ys) / 2;
  const yHi = Math.max(...ys) * 2;
  const sx = (x: number) =>
    plot.left + ((Math.log(x) - Math.log(xLo)) / (Math.log(xHi) - Math.log(xLo))) * plot.width;
  const sy = (y: number) =>
    plot.top + plot.height - ((Math.log(y) - Math.log(yLo)) / (Math.log(yHi) - Math.log(yLo))) * plot.height;
  const out: string[] = [
    `<text x="${x0 + 10}" y="${y0 + 16}" font-size="13" font-weight="bold">${escapeXml(title)}</text>`,
    `<rect x="${plot.left}" y="${plot.top}" width="${plot.width}" height="${plot.height}" fill="none" stroke="#333"/>`,
  ];
  for (const t of ticks(xLo, xHi, 4)) {
    out.push(
      `<line x1="${r(sx(t))}" y1="${plot.top}" x2="${r(sx(t))}" y2="${plot.top + plot.height}" stroke="#eee"/>`,
      `<text x="${r(sx(t))}" y="${plot.top + plot.height + 14}" text-anchor="middle">${escapeXml(formatBytes(t))}</text>`,
    );
  }
  const decades = ticks(yLo, yHi, 10);
  for (const t of decades.length >= 3 ? decades : ticks125(yLo, yHi)) {
    out.push(
      `<line x1="${plot.left}" y1="${r(sy(t))}" x2="${plot.left + plot.width}" y2="${r(sy(t))}" stroke="#eee"/>`,
      `<text x="${plot.left - 6}" y="${r(sy(t) + 4)}" text-anchor="end">${t >= 1 ? t.toFixed(0) : t.toPrecision(1)}</text>`,
    );
  }
  out.push(
    `<text transform="translate(${x0 + 16} ${plot.top + plot.height / 2}) rotate(-90)" text-anchor="middle">MB/s</text>`,
  );
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const dash = s.reference ? ' stroke-dasharray="6 4"' : '';
    if (s.points.length > 1) {
      const d = s.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${r(sx(p.x))} ${r(sy(p.y))}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`);
    }
    for (const p of s.points) {
      const tip = `${s.name}: ${p.y.toFixed(1)} MB/s at ${formatBytes(p.x)}`;
      out.push(
        s.reference
          ? `<rect x="${r(sx(p.x) - 3.5)}" y="${r(sy(p.y) - 3.5)}" width="7" height="7" fill="#fff" stroke="${color}" stroke-width="2"><title>${escapeXml(tip)}</title></rect>`
          : `<circle cx="${r(sx(p.x))}" cy="${r(sy(p.y))}" r="4" fill="${color}"><title>${escapeXml(tip)}</title></circle>`,
      );
    }
    const ly = plot.top + plot.height + 32 + i * 15;
    out.push(
      `<line x1="${plot.left}" y1="${ly - 4}" x2="${plot.left + 24}" y2="${ly - 4}" stroke="${color}" stroke-width="2"${dash}/>`,
      `<text x="${plot.left + 30}" y="${ly}">${escapeXml(s.name)}</text>`,
    );
  });
  return { svg: out, height: plot.top - y0 + plot.height + 32 + series.length * 15 };
}

/**
 * Renders the chart as a standalone SVG document: one panel per suite (small multiples), so each
 * figure sits beside its own references with few enough lines to tell apart.
 *
 * @example
 * ```ts
 * await writeFile('bench.svg', renderSvg(report));
 * ```
 */
export function renderSvg(report: BenchReport): string {
  const bySuite = new Map<string, ChartSeries[]>();
  for (const s of chartSeries(report)) {
    const list = bySuite.get(s.suite) ?? [];
    list.push(s);
    bySuite.set(s.suite, list);
  }
  const columns = 2;
  const panelWidth = 520;
  const width = panelWidth * columns;
  const header = `happy-media throughput vs size (${report.mode} run, Node ${report.machine.node}, ${report.machine.cpus} CPUs): ours solid ●, references dashed ■; log scales`;
  const body: string[] = [];
  let y = 36;
  if (bySuite.size === 0) {
    body.push(`<text x="20" y="${y + 30}">no throughput figures in this run</text>`);
    y += 60;
  }
  const panels = [...bySuite.entries()];
  for (let i = 0; i < panels.length; i += columns) {
    let rowHeight = 0;
    panels.slice(i, i + columns).forEach(([suite, series], j) => {
      const p = panel(suite, series, j * panelWidth, y, panelWidth);
      body.push(...p.svg);
      rowHeight = Math.max(rowHeight, p.height);
    });
    y += rowHeight + 16;
  }
  return `${[
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" role="img" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(header)}</title>`,
    `<rect width="${width}" height="${y}" fill="#fff"/>`,
    `<text x="10" y="22" font-size="14" font-weight="bold">${escapeXml(header)}</text>`,
    ...body,
    '</svg>',
  ].join('\n')}\n`;
}
