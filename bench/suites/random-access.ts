/**
 * Random access: 1 MiB reads at random offsets of an encrypted blob file (1 GiB; quick: 64 MiB) through
 * `openBlobRandomAccess(fileRangeSource)`, beside reading the same ranges from the plaintext file.
 *
 * @module
 */
import { randomBytes, randomInt } from 'node:crypto';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { openBlobRandomAccess } from '../../src/index.js';
import { encryptFile, fileRangeSource } from '../../src/node/index.js';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { GiB, MiB, writeRandomFile } from '../harness/data.js';
import { timeInterleaved } from '../harness/measure.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const size = ctx.quick ? 64 * MiB : GiB;
  const reads = ctx.quick ? 16 : 32;
  const plan = ctx.quick ? { warmup: 1, runs: 3 } : { warmup: 1, runs: 5 };
  const plainPath = join(ctx.scratchDir, 'plain.bin');
  const encPath = join(ctx.scratchDir, 'blob.enc');
  const key = new Uint8Array(randomBytes(32));
  ctx.log(`  preparing ${formatBytes(size)} plain and encrypted files`);
  await writeRandomFile(plainPath, size);
  await encryptFile(plainPath, encPath, key);

  const source = fileRangeSource(encPath);
  const plain = await open(plainPath, 'r');
  try {
    const reader = await openBlobRandomAccess(source, key);
    if (reader.plaintextSize !== size) throw new Error(`plaintextSize ${reader.plaintextSize} ≠ ${size}`);
    // The same random offsets for ours and the reference; some unaligned on purpose.
    const offsets = Array.from({ length: reads }, () => randomInt(0, size - MiB + 1));
    const buf = Buffer.alloc(MiB);
    const readPlain = async (offset: number) => {
      const { bytesRead } = await plain.read(buf, 0, MiB, offset);
      return buf.subarray(0, bytesRead);
    };
    for (const offset of [0, size - MiB, ...offsets.slice(0, 4)]) {
      const ours = await reader.read(offset, MiB);
      if (!Buffer.from(ours.buffer, ours.byteOffset, ours.length).equals(await readPlain(offset))) {
        throw new Error(`random-access read at ${offset} differs from the plaintext`);
      }
    }
    rec.check(
      `plaintextSize = ${formatBytes(size)}; 1 MiB reads at first, last and random offsets equal the plaintext`,
    );
    const bytes = reads * MiB;
    const [oursMs, refMs] = await timeInterleaved(
      [
        async () => {
          for (const o of offsets) await reader.read(o, MiB);
        },
        async () => {
          for (const o of offsets) await readPlain(o);
        },
      ],
      plan,
    );
    const ours = rec.add({
      id: 'random-access.read',
      suite: 'random-access',
      label: `${reads}× 1 MiB random reads of ${formatBytes(size)} blob`,
      unit: 'MB/s',
      summary: summarize(oursMs!.map((ms) => megabytesPerSecond(bytes, ms))),
    });
    const ref = rec.add({
      id: 'ref.random-access.plain',
      suite: 'random-access',
      label: 'same ranges from the plain file',
      unit: 'MB/s',
      reference: true,
      summary: summarize(refMs!.map((ms) => megabytesPerSecond(bytes, ms))),
    });
    rec.compare(ours, ref);
  } finally {
    await plain.close();
    await (source as { close?: () => Promise<void> }).close?.();
  }
}

/** The random-access suite. */
export const randomAccessSuite: Suite = {
  name: 'random-access',
  description: '1 MiB reads at random offsets of a blob file vs the same ranges of the plain file',
  run,
};
