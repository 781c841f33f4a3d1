/**
 * Memory flatness of `happy-media encrypt` / `decrypt` through the CLI on 1 GiB (quick: 32 MiB): each
 * command runs in a child process of its own (the CLI in-process through `runCli`, so the child's peak RSS is
 * the command's), beside a bare streaming file copy in Node (the floor of reading and writing the bytes).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { runCli } from '../../src/node/internal.js';
import { runChild } from '../harness/child.js';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { GiB, MiB, sha256File, writeRandomFile } from '../harness/data.js';
import type { Measurement } from '../harness/figures.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';

interface CliJob {
  args: string[];
  keyB64?: string;
}

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const size = ctx.quick ? 32 * MiB : GiB;
  const tag = formatBytes(size);
  const input = join(ctx.scratchDir, 'in.bin');
  const enc = join(ctx.scratchDir, 'in.bin.enc');
  const out = join(ctx.scratchDir, 'out.bin');
  const copy = join(ctx.scratchDir, 'copy.bin');
  await writeRandomFile(input, size);
  const keyB64 = randomBytes(32).toString('base64');
  const cli = (args: string[]) =>
    runChild<{ ms: number }>('cli-memory:cli', { args, keyB64 } satisfies CliJob);
  const e = await cli(['encrypt', input, enc]);
  const d = await cli(['decrypt', enc, out]);
  if ((await sha256File(out)) !== (await sha256File(input)))
    throw new Error('decrypt(encrypt(file)) differs from the file');
  rec.check(`happy-media decrypt(encrypt(${tag} file)) equals the file (SHA-256)`);
  await rm(out);
  await rm(enc);
  const c = await runChild<{ ms: number }>('cli-memory:copy', { args: [input, copy] } satisfies CliJob);
  await rm(copy);
  const one = (
    id: string,
    label: string,
    o: { result: { ms: number }; maxRssBytes: number },
    reference = false,
  ): Measurement =>
    rec.add({
      id,
      suite: 'cli-memory',
      label,
      unit: 'MB/s',
      sizeBytes: size,
      reference,
      peakRssBytes: o.maxRssBytes,
      summary: summarize([megabytesPerSecond(size, o.result.ms)]),
    });
  const ref = one('ref.cli-memory.copy', `Node streaming file copy ${tag}`, c, true);
  rec.compare(one('cli-memory.encrypt', `happy-media encrypt ${tag}`, e), ref);
  rec.compare(one('cli-memory.decrypt', `happy-media decrypt ${tag}`, d), ref);
}

/** Cases run in a child process (see `harness/child.ts`). */
export const childCases = {
  async cli(payload: unknown): Promise<{ ms: number }> {
    const job = payload as CliJob;
    // The key travels on stdin to this child and reaches the CLI through its env variable, never argv.
    if (job.keyB64) process.env.HAPPY_MEDIA_KEY = job.keyB64;
    const start = performance.now();
    await runCli(['node', 'happy-media', ...job.args]);
    const ms = performance.now() - start;
    if (process.exitCode !== undefined && process.exitCode !== 0) {
      throw new Error(`happy-media ${job.args[0]} exited with ${process.exitCode}`);
    }
    return { ms };
  },
  async copy(payload: unknown): Promise<{ ms: number }> {
    const [from, to] = (payload as CliJob).args as [string, string];
    const start = performance.now();
    await pipeline(createReadStream(from, { highWaterMark: MiB }), createWriteStream(to, { mode: 0o600 }));
    return { ms: performance.now() - start };
  },
};

/** The CLI memory suite. */
export const cliMemorySuite: Suite = {
  name: 'cli-memory',
  description: 'peak RSS of happy-media encrypt/decrypt of a big file vs a bare streaming copy',
  run,
};
