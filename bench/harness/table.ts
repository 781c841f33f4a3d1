/**
 * The terminal table: each figure of ours beside its same-run reference, the speed ratio and peak RSS.
 *
 * @module
 */
import type { BenchReport } from './context.js';
import type { Measurement, Unit } from './figures.js';

/** Formats a value in its unit with sensible precision, e.g. `1234 MB/s`, `52.1k msg/s`, `27.6 ms`. */
export function formatValue(value: number, unit: Unit): string {
  if (unit === 'ms')
    return `${value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0)} ms`;
  if (unit === 'msg/s' || unit === 'events/s') {
    if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M ${unit}`;
    if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k ${unit}`;
    return `${value.toFixed(0)} ${unit}`;
  }
  return `${value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0)} MB/s`;
}

/** Formats a byte count in binary units (`512 KiB`, `1.0 GiB`). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 || v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`;
}

/** A median with its spread, e.g. `1234 MB/s ±4%`. */
export function formatFigure(m: Measurement): string {
  return `${formatValue(m.summary.median, m.unit)} ±${m.summary.spreadPct.toFixed(0)}%`;
}

/** Formats a speed ratio, e.g. `0.62×`. */
export function formatRatio(ratio: number): string {
  return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}

/** Width the table fits in (a terminal of 120 columns); the JSON has every detail. */
export const TABLE_WIDTH = 120;

/** Splits `text` into lines of at most `width` characters at spaces (a longer word is cut). */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    const pieces: string[] = [];
    for (let rest = word; rest.length > 0; rest = rest.slice(width)) pieces.push(rest.slice(0, width));
    for (const piece of pieces) {
      if (line.length === 0) line = piece;
      else if (line.length + 1 + piece.length <= width) line = `${line} ${piece}`;
      else {
        lines.push(line);
        line = piece;
      }
    }
  }
  return line.length > 0 ? [...lines, line] : [''];
}

/** Reference tags: a, b, …, z, aa, ab, … */
function tagOf(index: number): string {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  return index < 26 ? letters[index]! : `${tagOf(Math.floor(index / 26) - 1)}${letters[index % 26]}`;
}

/** One row of the table: a label (wrapped in its column) and the cells after it. */
interface TableRow {
  label: string;
  cells: [figure: string, ratios: string, rss: string];
}

/**
 * Renders the report as a table that fits {@link TABLE_WIDTH} columns. Per suite: one row per figure of
 * ours with its speed ratio to each reference it is compared with (`0.53× a`), then the references once
 * each (`a = …`) with their own figures; long labels wrap in their column. Then one line per skipped or
 * failed suite.
 */
export function renderTable(report: BenchReport, width = TABLE_WIDTH): string {
  const sections: { name: string; rows: TableRow[] }[] = [];
  for (const suite of report.suites) {
    const byId = new Map(suite.measurements.map((m) => [m.id, m]));
    const refTags = new Map<string, string>();
    const ours = new Map<string, string[]>();
    for (const c of suite.comparisons) {
      if (!byId.has(c.ours) || !byId.has(c.reference)) continue;
      if (!refTags.has(c.reference)) refTags.set(c.reference, tagOf(refTags.size));
      const ratios = ours.get(c.ours) ?? [];
      ratios.push(`${formatRatio(c.ratio)} ${refTags.get(c.reference)}`);
      ours.set(c.ours, ratios);
    }
    if (ours.size === 0) continue;
    const rss = (m: Measurement) => (m.peakRssBytes === undefined ? '' : formatBytes(m.peakRssBytes));
    const rows: TableRow[] = [];
    for (const [id, ratios] of ours) {
      const m = byId.get(id)!;
      rows.push({ label: m.label, cells: [formatFigure(m), ratios.join('  '), rss(m)] });
    }
    for (const [id, tag] of refTags) {
      const m = byId.get(id)!;
      rows.push({ label: `${tag} = ${m.label}`, cells: [formatFigure(m), '', rss(m)] });
    }
    sections.push({ name: suite.name, rows });
  }
  const header: TableRow = {
    label: 'suite: ours, then the references (a = …)',
    cells: ['median ±IQR', 'ratio vs ref', 'peak RSS'],
  };
  const all = [header, ...sections.flatMap((s) => s.rows)];
  const cellWidths = [0, 1, 2].map((i) => Math.max(...all.map((r) => r.cells[i]!.length)));
  const indent = 2;
  const gap = 2;
  const longest = Math.max(...all.map((r) => r.label.length));
  const labelWidth = Math.max(
    24,
    Math.min(longest, width - indent - cellWidths.reduce((a, b) => a + b + gap, 0)),
  );
  const render = (row: TableRow, pad: number): string[] => {
    const labels = wrapText(row.label, labelWidth - pad);
    const first = [
      `${' '.repeat(pad)}${labels[0]!.padEnd(labelWidth - pad)}`,
      ...row.cells.map((cell, i) => cell.padEnd(cellWidths[i]!)),
    ]
      .join(' '.repeat(gap))
      .trimEnd();
    return [
      first,
      ...labels
        .slice(1)
        .map((l) => `${' '.repeat(pad + (row.label.match(/^[a-z]+ = /)?.[0].length ?? 0))}${l}`.trimEnd()),
    ];
  };
  const lines = [...render(header, 0)];
  lines.push('-'.repeat(Math.min(width, labelWidth + cellWidths.reduce((a, b) => a + b + gap, 0))));
  for (const section of sections) {
    lines.push(section.name);
    for (const row of section.rows) lines.push(...render(row, indent));
  }
  const notes = report.suites.filter((s) => s.status !== 'ok');
  if (notes.length > 0) lines.push('');
  for (const s of notes)
    lines.push(...wrapText(`${s.name}: ${s.status.toUpperCase()}: ${s.reason ?? ''}`, width));
  lines.push(
    '',
    ...wrapText(
      "ratio = our speed ÷ the reference's speed in the same run (1.00× = as fast; < 1 slower), against the reference of that letter; ±IQR = interquartile range / median. Every figure, with its sizes, runs and checks, is in the JSON report.",
      width,
    ),
    ...wrapText(
      `${report.mode} run on ${report.machine.cpus} CPUs (${report.machine.cpuModel}), Node ${report.machine.node}, ${report.machine.platform}; ${(report.durationMs / 1000).toFixed(0)} s.`,
      width,
    ),
  );
  return lines.join('\n');
}
