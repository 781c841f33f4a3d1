/**
 * How long the `happy-media` command takes to start and finish a command that does almost nothing
 * (`keygen`, which still loads what every named command loads: the Node entry, for the signal forwarding
 * and the crash sweep; and `--version`, which loads commander only), each process timed from its spawn to
 * its exit: happy-media's own `bin` (the package's modules, one by one) and the one-file CLI that
 * happy-media-cli ships (scripts/bundle-cli.mjs), beside Node starting an empty module (the floor: no
 * command starts faster than Node itself). Rounds interleaved; peak RSS of each.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { happyMediaBin, runProgram } from '../harness/child.js';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { timeInterleaved } from '../harness/measure.js';
import { summarize } from '../harness/stats.js';

/** The one-file CLI of the package being measured (written by its `npm run build`). */
function oneFileCli(): string {
  const root = dirname(fileURLToPath(import.meta.resolve('happy-media/package.json')));
  return join(root, 'dist/cli/happy-media.js');
}

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const packageBin = happyMediaBin();
  const oneFile = oneFileCli();
  if (!existsSync(oneFile)) throw new Error(`${oneFile} is missing: run \`npm run build\` first`);
  const empty = join(ctx.scratchDir, 'empty.mjs');
  await writeFile(empty, '');
  const plan = ctx.quick ? { warmup: 1, runs: 5 } : { warmup: 2, runs: 15 };
  const commands = [['keygen'], ['--version']] as const;
  const rss = new Map<string, number>();
  const timed = (id: string, script: string, args: readonly string[]) => async () => {
    const outcome = await runProgram(script, args);
    rss.set(id, Math.max(rss.get(id) ?? 0, outcome.maxRssBytes));
  };
  const cases = [
    { id: 'ref.cli-start.node', script: empty, args: [] as readonly string[] },
    ...commands.flatMap((args) => [
      { id: `cli-start.package.${args[0]}`, script: packageBin, args },
      { id: `cli-start.one-file.${args[0]}`, script: oneFile, args },
    ]),
  ];
  const ms = await timeInterleaved(
    cases.map((c) => timed(c.id, c.script, c.args)),
    plan,
  );
  const figure = (index: number, label: string, reference = false) =>
    rec.add({
      id: cases[index]!.id,
      suite: 'cli-start',
      label,
      unit: 'ms',
      reference,
      peakRssBytes: rss.get(cases[index]!.id),
      summary: summarize(ms[index]!),
    });
  const floor = figure(0, 'node starting an empty module (spawn to exit)', true);
  commands.forEach((args, k) => {
    const packaged = figure(
      1 + 2 * k,
      `happy-media ${args.join(' ')}: happy-media's bin (its modules one by one)`,
    );
    const bundled = figure(2 + 2 * k, `happy-media ${args.join(' ')}: the one-file CLI (happy-media-cli)`);
    rec.compare(packaged, floor);
    rec.compare(bundled, floor);
    rec.compare(bundled, packaged);
  });
}

/** The CLI start suite. */
export const cliStartSuite: Suite = {
  name: 'cli-start',
  description:
    'happy-media keygen and --version, spawn to exit: the package bin and the one-file CLI vs Node starting',
  run,
};
