/**
 * Playback: download → decrypt → verified temp file (`openMedia`) of 1 MiB, 64 MiB and 1 GiB blobs
 * (quick: 1 MiB, 16 MiB) from the HTTP media server on loopback, beside a plain download of the same
 * number of bytes to a file. Each case runs in a child process of its own, so its peak RSS is its own:
 * memory must stay flat as the size grows.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createMediaRef } from '../../src/index.js';
import { encryptFile, HttpBlobStore, openMedia, startMediaServer } from '../../src/node/index.js';
import { runChild } from '../harness/child.js';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { GiB, MiB, sha256File, writeRandomFile } from '../harness/data.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';
import { fileStream } from './send.js';

interface CaseJob {
  url: string;
  ref: string;
  keyHex?: string;
  size: number;
  runs: number;
  tempRoot: string;
}

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const sizes = ctx.quick ? [MiB, 16 * MiB] : [MiB, 64 * MiB, GiB];
  const key = new Uint8Array(randomBytes(32));
  const keyHex = Buffer.from(key).toString('hex');
  const serverDir = join(ctx.scratchDir, 'server');
  const tempRoot = join(ctx.scratchDir, 'play');
  await mkdir(serverDir, { recursive: true });
  await mkdir(tempRoot, { recursive: true, mode: 0o700 });
  const server = await startMediaServer({ dir: serverDir, port: 0, host: '127.0.0.1' });
  const store = new HttpBlobStore(server.url);
  try {
    for (const size of sizes) {
      const tag = formatBytes(size);
      const runs = size >= GiB ? 3 : ctx.quick ? 2 : 5;
      const plainPath = join(ctx.scratchDir, `plain-${size}.bin`);
      const encPath = join(ctx.scratchDir, `blob-${size}.enc`);
      await writeRandomFile(plainPath, size);
      await encryptFile(plainPath, encPath, key);
      const encRef = createMediaRef();
      const plainRef = createMediaRef();
      await store.put(encRef, fileStream(encPath), (await stat(encPath)).size);
      await store.put(plainRef, fileStream(plainPath), size);
      const wantSha = await sha256File(plainPath);
      await rm(encPath);
      await rm(plainPath);

      const ours = await runChild<{ ms: number[]; sha: string }>('playback:open', {
        url: server.url,
        ref: encRef,
        keyHex,
        size,
        runs,
        tempRoot,
      } satisfies CaseJob);
      if (ours.result.sha !== wantSha)
        throw new Error(`openMedia ${tag}: the temp file differs from the original`);
      rec.check(`openMedia ${tag} over HTTP: the verified temp file equals the original (SHA-256)`);
      const plain = await runChild<{ ms: number[]; sha: string }>('playback:plain', {
        url: server.url,
        ref: plainRef,
        size,
        runs,
        tempRoot,
      } satisfies CaseJob);
      if (plain.result.sha !== wantSha) throw new Error(`plain download ${tag} differs from the original`);
      const o = rec.add({
        id: `playback.open.${size}`,
        suite: 'playback',
        label: `openMedia HTTP ${tag}`,
        unit: 'MB/s',
        sizeBytes: size,
        series: 'playback: download → decrypt → temp file',
        peakRssBytes: ours.maxRssBytes,
        summary: summarize(ours.result.ms.map((ms) => megabytesPerSecond(size, ms))),
      });
      const r = rec.add({
        id: `ref.playback.plain.${size}`,
        suite: 'playback',
        label: `plain download to file ${tag}`,
        unit: 'MB/s',
        sizeBytes: size,
        reference: true,
        series: 'plain download to file',
        peakRssBytes: plain.maxRssBytes,
        summary: summarize(plain.result.ms.map((ms) => megabytesPerSecond(size, ms))),
      });
      rec.compare(o, r);
      await store.delete(encRef);
      await store.delete(plainRef);
    }
  } finally {
    await server.close();
  }
}

/** Cases run in a child process (see `harness/child.ts`). */
export const childCases = {
  async open(payload: unknown): Promise<{ ms: number[]; sha: string }> {
    const job = payload as CaseJob;
    const store = new HttpBlobStore(job.url);
    const blobKey = new Uint8Array(Buffer.from(job.keyHex!, 'hex'));
    const ms: number[] = [];
    let sha = '';
    for (let i = 0; i < job.runs; i++) {
      const start = performance.now();
      const handle = await openMedia(
        { ref: job.ref, mimeType: 'application/octet-stream', size: job.size },
        { store, blobKey, tempRoot: job.tempRoot },
      );
      ms.push(performance.now() - start);
      if (i === job.runs - 1) sha = await sha256File(handle.path);
      await handle.dispose();
    }
    return { ms, sha };
  },
  async plain(payload: unknown): Promise<{ ms: number[]; sha: string }> {
    const job = payload as CaseJob;
    const store = new HttpBlobStore(job.url);
    const ms: number[] = [];
    let sha = '';
    const out = join(job.tempRoot, `plain-${process.pid}.bin`);
    for (let i = 0; i < job.runs; i++) {
      const start = performance.now();
      const body = await store.get(job.ref);
      await pipeline(Readable.fromWeb(body as never), createWriteStream(out, { mode: 0o600 }));
      ms.push(performance.now() - start);
      if (i === job.runs - 1) sha = await sha256File(out);
      await rm(out, { force: true });
    }
    return { ms, sha };
  },
};

/** The playback suite. */
export const playbackSuite: Suite = {
  name: 'playback',
  description:
    'openMedia (download → decrypt → temp file) over loopback HTTP vs a plain download; peak RSS per size',
  run,
};
