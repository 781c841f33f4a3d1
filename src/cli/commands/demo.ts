/**
 * `happy-media demo`: the whole mission on the embedded default (see `src/cli/demo`), step by step.
 * Exits 0 only when every check held.
 *
 * @module
 */
import type { Command } from 'commander';
import { runAction } from '../run-action.js';

/** Registers `demo` on the program. */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'run the whole mission with nothing to set up: sample media → probe → encrypt → upload → sealed v2 stream → validate → play back and compare',
    )
    .option('--keep', 'keep the working directory (samples, stores, session JSONL) instead of removing it')
    .option('--dir <parent>', 'create the working directory under this directory (default: the OS temp dir)')
    .option('--json', 'print one JSON report on stdout instead of the step-by-step text')
    .addHelpText(
      'after',
      '\nThe rotated phone video needs ffmpeg/ffprobe: from FFMPEG_PATH/FFPROBE_PATH, the PATH, or the copies bundled by the optional dependencies; without any it is skipped.',
    )
    .action(
      runAction(async (opts: { keep?: boolean; dir?: string; json?: boolean }) => {
        // Loaded on demand: the demo pulls in every area (sharp, ffmpeg, servers).
        const { runDemo } = await import('../demo/index.js');
        const report = await runDemo({
          keep: opts.keep === true,
          parentDir: opts.dir,
          print: opts.json ? undefined : (line) => process.stdout.write(`${line}\n`),
        });
        if (opts.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        process.exitCode = report.ok ? 0 : 1;
      }),
    );
}
