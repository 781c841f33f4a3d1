/**
 * The chart: throughput against size, ours (solid) beside references (dashed), as a hand-built SVG (no
 * charting dependency). Both axes are logarithmic: sizes span 1 MiB–1 GiB and rates 10–5000 MB/s.
 *
 * @module
 */
import type { BenchReport } from './context.js';
import type { Measurement } from './figures.js';
import { formatBytes } from './table.js';

/** One line of the chart. */
export interface ChartSeries {
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
    const name = m.series ?? `${m.suite}: ${m.label}`;
    let g = groups.get(name);
    if (!g) {
      g = { name, reference: m.reference === true, points: [] };
      groups.set(name, g);
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
];

/** Powers of ten (or of 4 for bytes) covering [lo, hi] for axis ticks. */
function ticks(lo: number, hi: number, base: number): number[] {
  const out: number[] = [];
  let t = base ** Math.floor(Math.log(lo) / Math.log(base));
  while (t <= hi * 1.0001) {
    if (t >= lo / 1.0001) out.push(t);
    t *= base;
  }
  return out;
}

/**
 * Renders the chart as a standalone SVG document.
 *
 * @example
 * ```ts
 * await writeFile('bench.svg', renderSvg(report));
 * ```
 */
export function renderSvg(report: BenchReport): string {
  const series = chartSeries(report);
  const width = 960;
  const legendLine = 16;
  const plot = { left: 70, top: 40, width: 560, height: 380 };
  const height = Math.max(plot.top + plot.height + 60, plot.top + series.length * legendLine + 40);
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${plot.left}" y="22" font-size="15" font-weight="bold">${escapeXml(`happy-media throughput vs size (${report.mode} run, Node ${report.machine.node}, ${report.machine.cpus} CPUs)`)}</text>`,
  ];
  if (series.length === 0) {
    parts.push(
      `<text x="${plot.left}" y="${plot.top + 40}">no throughput figures in this run</text>`,
      '</svg>',
    );
    return `${parts.join('\n')}\n`;
  }
  // Pad the ranges so single points and flat lines sit inside the frame.
  const xLo = Math.min(...xs) / 2;
  const xHi = Math.max(...xs) * 2;
  const yLo = Math.min(...ys) / 2;
  const yHi = Math.max(...ys) * 2;
  const sx = (x: number) =>
    plot.left + ((Math.log(x) - Math.log(xLo)) / (Math.log(xHi) - Math.log(xLo))) * plot.width;
  const sy = (y: number) =>
    plot.top + plot.height - ((Math.log(y) - Math.log(yLo)) / (Math.log(yHi) - Math.log(yLo))) * plot.height;
  const r = (v: number) => v.toFixed(1);
  parts.push(
    `<rect x="${plot.left}" y="${plot.top}" width="${plot.width}" height="${plot.height}" fill="none" stroke="#333"/>`,
  );
  for (const t of ticks(xLo, xHi, 4)) {
    parts.push(
      `<line x1="${r(sx(t))}" y1="${plot.top}" x2="${r(sx(t))}" y2="${plot.top + plot.height}" stroke="#eee"/>`,
      `<text x="${r(sx(t))}" y="${plot.top + plot.height + 16}" text-anchor="middle">${escapeXml(formatBytes(t))}</text>`,
    );
  }
  for (const t of ticks(yLo, yHi, 10)) {
    parts.push(
      `<line x1="${plot.left}" y1="${r(sy(t))}" x2="${plot.left + plot.width}" y2="${r(sy(t))}" stroke="#eee"/>`,
      `<text x="${plot.left - 6}" y="${r(sy(t) + 4)}" text-anchor="end">${t >= 1 ? t.toFixed(0) : t}</text>`,
    );
  }
  parts.push(
    `<text x="${plot.left + plot.width / 2}" y="${plot.top + plot.height + 36}" text-anchor="middle">size per run (log scale)</text>`,
    `<text transform="translate(18 ${plot.top + plot.height / 2}) rotate(-90)" text-anchor="middle">MB/s, median (log scale)</text>`,
  );
  series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length]!;
    const dash = s.reference ? ' stroke-dasharray="6 4"' : '';
    if (s.points.length > 1) {
      const d = s.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${r(sx(p.x))} ${r(sy(p.y))}`).join(' ');
      parts.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`);
    }
    for (const p of s.points) {
      const title = `${s.name}: ${p.y.toFixed(1)} MB/s at ${formatBytes(p.x)}`;
      parts.push(
        s.reference
          ? `<rect x="${r(sx(p.x) - 3.5)}" y="${r(sy(p.y) - 3.5)}" width="7" height="7" fill="#fff" stroke="${color}" stroke-width="2"><title>${escapeXml(title)}</title></rect>`
          : `<circle cx="${r(sx(p.x))}" cy="${r(sy(p.y))}" r="4" fill="${color}"><title>${escapeXml(title)}</title></circle>`,
      );
    }
    const ly = plot.top + 8 + i * legendLine;
    const lx = plot.left + plot.width + 20;
    parts.push(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${color}" stroke-width="2"${dash}/>`,
      `<text x="${lx + 30}" y="${ly + 4}">${escapeXml(s.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
