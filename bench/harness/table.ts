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
  if (unit === 'msg/s') {
    if (value >= 1e6) return `${(value / 1e6).toFixed(2)}M msg/s`;
    if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k msg/s`;
    return `${value.toFixed(0)} msg/s`;
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

/** Lays out rows as fixed-width columns (the first row is the header). */
export function layoutColumns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(rows[0] ?? []), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const row of rows.slice(1)) out.push(line(row));
  return out.join('\n');
}

/**
 * Renders the report as a table: one row per comparison (figure, reference, ratio, peak RSS), then one
 * line per skipped or failed suite.
 */
export function renderTable(report: BenchReport): string {
  const rows: string[][] = [
    ['suite', 'ours', 'median ±IQR', 'reference', 'median ±IQR', 'ratio', 'peak RSS'],
  ];
  for (const suite of report.suites) {
    const byId = new Map(suite.measurements.map((m) => [m.id, m]));
    for (const c of suite.comparisons) {
      const ours = byId.get(c.ours);
      const ref = byId.get(c.reference);
      if (!ours || !ref) continue;
      const rss =
        ours.peakRssBytes === undefined
          ? ''
          : `${formatBytes(ours.peakRssBytes)}${ref.peakRssBytes === undefined ? '' : ` vs ${formatBytes(ref.peakRssBytes)}`}`;
      rows.push([
        suite.name,
        ours.label,
        formatFigure(ours),
        ref.label,
        formatFigure(ref),
        formatRatio(c.ratio),
        rss,
      ]);
    }
  }
  const lines = [layoutColumns(rows)];
  const notes = report.suites.filter((s) => s.status !== 'ok');
  if (notes.length > 0) lines.push('');
  for (const s of notes) lines.push(`${s.name}: ${s.status.toUpperCase()}: ${s.reason ?? ''}`);
  lines.push(
    '',
    'ratio = our speed ÷ reference speed in the same run (1.00× = as fast; < 1 slower); ±IQR = interquartile range / median.',
    `${report.mode} run on ${report.machine.cpus} CPUs (${report.machine.cpuModel}), Node ${report.machine.node}, ${report.machine.platform}; ${(report.durationMs / 1000).toFixed(0)} s.`,
  );
  return lines.join('\n');
}
