/**
 * Memory flatness of `happy-media encrypt` / `decrypt` through the CLI on 1 GiB (quick: 32 MiB): each
 * command runs as users run it, the package's `happy-media` bin in a process of its own (its peak RSS
 * reported by a preloaded hook, harness/peak-rss-hook.ts), beside a bare streaming file copy in Node
 * (the floor of reading and writing the bytes).
 * Three rounds (quick: one) in rotating order, each case's output removed before the next case.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { happyMediaBin, runChild, runProgram } from '../harness/child.js';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { GiB, MiB, sha256File, writeRandomFile } from '../harness/data.js';
import type { Measurement } from '../harness/figures.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';

interface CopyJob {
  args: string[];
}

/** A timed case: its command (argv after `happy-media`, or the copy's paths) and the file it writes. */
interface TimedCase {
  kind: 'cli' | 'copy';
  args: string[];
  output: string;
}

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const size = ctx.quick ? 32 * MiB : GiB;
  const tag = formatBytes(size);
  const input = join(ctx.scratchDir, 'in.bin');
  const enc = join(ctx.scratchDir, 'in.bin.enc');
  const out = join(ctx.scratchDir, 'out.bin');
  await writeRandomFile(input, size);
  // The key reaches the CLI through its environment variable, never argv.
  const env = { HAPPY_MEDIA_KEY: randomBytes(32).toString('base64') };
  const bin = happyMediaBin();
  const runCase = async (c: TimedCase): Promise<{ ms: number; maxRssBytes: number }> => {
    if (c.kind === 'cli') return runProgram(bin, c.args, { env });
    const copied = await runChild<{ ms: number }>('cli-memory:copy', { args: c.args } satisfies CopyJob);
    return { ms: copied.result.ms, maxRssBytes: copied.maxRssBytes };
  };
  // The blob the decrypt cases read (untimed; it also warms the page cache for every case alike).
  await runCase({ kind: 'cli', args: ['encrypt', input, enc], output: enc });
  await runCase({ kind: 'cli', args: ['decrypt', enc, out], output: out });
  if ((await sha256File(out)) !== (await sha256File(input)))
    throw new Error('decrypt(encrypt(file)) differs from the file');
  rec.check(`happy-media decrypt(encrypt(${tag} file)) equals the file (SHA-256)`);
  await rm(out);
  const again = join(ctx.scratchDir, 'again.enc');
  const copy = join(ctx.scratchDir, 'copy.bin');
  const cases: Record<'encrypt' | 'decrypt' | 'copy', TimedCase> = {
    encrypt: { kind: 'cli', args: ['encrypt', input, again], output: again },
    decrypt: { kind: 'cli', args: ['decrypt', enc, out], output: out },
    copy: { kind: 'copy', args: [input, copy], output: copy },
  };
  // Rounds in rotating order, each output removed at once: a 1 GiB case run right after others wrote
  // gigabytes (and kept them) was slowed by the kernel's writeback of their pages, not by its own code
  // (a single decrypt right after the encrypt measured 0.6x of the encrypt; alternated, they are even).
  const names = ['encrypt', 'decrypt', 'copy'] as const;
  const rounds = ctx.quick ? 1 : 3;
  const ms: Record<(typeof names)[number], number[]> = { encrypt: [], decrypt: [], copy: [] };
  const rss: Record<(typeof names)[number], number> = { encrypt: 0, decrypt: 0, copy: 0 };
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length] as (typeof names)[number];
      const result = await runCase(cases[name]);
      ms[name].push(result.ms);
      rss[name] = Math.max(rss[name], result.maxRssBytes);
      await rm(cases[name].output, { force: true });
    }
  }
  await rm(enc);
  const one = (id: string, label: string, name: (typeof names)[number], reference = false): Measurement =>
    rec.add({
      id,
      suite: 'cli-memory',
      label,
      unit: 'MB/s',
      sizeBytes: size,
      reference,
      peakRssBytes: rss[name],
      summary: summarize(ms[name].map((t) => megabytesPerSecond(size, t))),
    });
  const ref = one('ref.cli-memory.copy', `Node streaming file copy ${tag}`, 'copy', true);
  rec.compare(one('cli-memory.encrypt', `happy-media encrypt ${tag}`, 'encrypt'), ref);
  rec.compare(one('cli-memory.decrypt', `happy-media decrypt ${tag}`, 'decrypt'), ref);
}

/** Cases run in a child process (see `harness/child.ts`). */
export const childCases = {
  async copy(payload: unknown): Promise<{ ms: number }> {
    const [from, to] = (payload as CopyJob).args as [string, string];
    const start = performance.now();
    // 256 KiB pieces, as the library writes (src/node/fs/write-size.ts): 1 MiB aligned writes make this
    // kernel allocate huge page-cache folios, which slowed the copy below the commands it is the floor of.
    await pipeline(
      createReadStream(from, { highWaterMark: 256 * 1024 }),
      createWriteStream(to, { mode: 0o600 }),
    );
    return { ms: performance.now() - start };
  },
};

/** The CLI memory suite. */
export const cliMemorySuite: Suite = {
  name: 'cli-memory',
  description: 'peak RSS of happy-media encrypt/decrypt of a big file vs a bare streaming copy',
  run,
};
