/**
 * `happy-media bench`: the benchmark suite (bench/README.md explains the output).
 *
 * The suite lives in `bench/` (compiled to `dist/bench/`) and is loaded only when this command runs.
 *
 * @module
 */
import type { Command } from 'commander';
import { UsageError } from '../../../index.js';
import { runAction } from '../run-action.js';

/** Registers `bench` on the program. */
export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('measure every hot path beside its limit in the same run (table, JSON, SVG)')
    .option('--quick', 'small sizes and few runs (under a minute)')
    .option('--only <suites>', 'comma-separated suites to run (see --list)')
    .option('--list', 'list the suites and exit')
    .option('--json <file>', 'write the JSON report here (default .tmp/bench/latest.json)')
    .option('--svg <file>', 'write the SVG chart here (default .tmp/bench/latest.svg)')
    .action(
      runAction(
        async (opts: { quick?: boolean; only?: string; list?: boolean; json?: string; svg?: string }) => {
          // A path computed at run time keeps tsc from pulling bench/ into the library's own build graph.
          const entry = new URL('../../../../bench/index.js', import.meta.url).href;
          const bench = (await import(entry)) as typeof import('../../../../bench/index.js');
          if (opts.list) {
            for (const s of bench.SUITES) process.stdout.write(`${s.name.padEnd(14)} ${s.description}\n`);
            return;
          }
          const only = opts.only
            ?.split(',')
            .map((s) => s.trim())
            .filter((s) => s.length > 0);
          const known = bench.SUITES.map((s) => s.name);
          const unknown = (only ?? []).filter((n) => !known.includes(n));
          if (unknown.length > 0) {
            throw new UsageError(
              `expected suite names from ${known.join(', ')} for \`--only\` but received ${unknown.join(', ')}`,
            );
          }
          const report = await bench.runBench({
            quick: opts.quick === true,
            only,
            json: opts.json,
            svg: opts.svg,
          });
          if (report.suites.some((s) => s.status === 'failed')) process.exitCode = 1;
        },
      ),
    );
}
