/**
 * Send: a ~100 MB video (quick: a 10 MB clip) through `sendMedia` (probe → encrypt → upload → v2
 * message) to the embedded local store and to the HTTP media server on loopback, beside the floor of
 * that work: probe + a plain upload of the same bytes to the same store.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ciphertextSize, decryptBlob, mediaBlobContext } from 'happy-media/blob';
import { HttpBlobStore, LocalBlobStore, probeMedia, sendMedia, startMediaServer } from 'happy-media/node';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { sha256, sha256File } from '../harness/data.js';
import { requireFfmpeg, video100mb, video1080p } from '../harness/inputs.js';
import { timeInterleaved } from '../harness/measure.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';

/** Reads a whole stream into one array (for the check only, at ~100 MB). */
export async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A file (or its bytes `[start, end)`) as a Web stream. */
export function fileStream(path: string, start?: number, end?: number): ReadableStream<Uint8Array> {
  return Readable.toWeb(
    createReadStream(path, {
      highWaterMark: 1 << 20,
      ...(start === undefined ? {} : { start }),
      ...(end === undefined ? {} : { end: end - 1 }),
    }),
  ) as unknown as ReadableStream<Uint8Array>;
}

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  await requireFfmpeg();
  const video = ctx.quick ? await video1080p(ctx.inputsDir) : await video100mb(ctx.inputsDir);
  const size = (await stat(video)).size;
  const tag = formatBytes(size);
  const plan = ctx.quick ? { warmup: 0, runs: 1 } : { warmup: 1, runs: 3 };
  const blobKey = new Uint8Array(randomBytes(32));
  const wantSha = await sha256File(video);
  const was = await probeMedia(video);

  const localDir = join(ctx.scratchDir, 'local-store');
  const serverDir = join(ctx.scratchDir, 'server-store');
  await mkdir(localDir, { recursive: true });
  await mkdir(serverDir, { recursive: true });
  const server = await startMediaServer({ dir: serverDir, port: 0, host: '127.0.0.1' });
  try {
    const stores: [string, LocalBlobStore | HttpBlobStore][] = [
      ['local store', new LocalBlobStore(localDir)],
      ['HTTP server', new HttpBlobStore(server.url)],
    ];
    for (const [name, store] of stores) {
      // Each timed send's output is kept; the first is checked before any figure is recorded. Ours and
      // the reference run interleaved so the machine's load hits both alike.
      const sent: { ref: string; ciphertextSize: number; kind: string }[] = [];
      const plain: string[] = [];
      const [ms, refMs] = await timeInterleaved(
        [
          async () => {
            const r = await sendMedia(video, { store, blobKey, role: 'user' });
            sent.push({ ref: r.ref, ciphertextSize: r.ciphertextSize, kind: r.probe.kind });
          },
          async () => {
            await probeMedia(video);
            const { ref: r } = await store.create(size, () => fileStream(video));
            plain.push(r);
          },
        ],
        plan,
      );
      const first = sent[0]!;
      const stored = await store.head(first.ref);
      if (stored.size !== ciphertextSize(size) || first.ciphertextSize !== stored.size) {
        throw new Error(`${name}: stored ${stored.size} bytes, expected ciphertextSize(${size})`);
      }
      const back = await decryptBlob(await collect(await store.get(first.ref)), blobKey, {
        context: mediaBlobContext(first.ref),
      });
      // A send neutralises the video's identifying metadata (ffmpeg's udta tags become a free box, the
      // same size), so the blob decrypts to the video byte for byte only where it held none: the check is
      // the same size and the same video as ffprobe reads it, and the bytes too when nothing was changed.
      if (back.length !== size)
        throw new Error(`${name}: the blob decrypts to ${back.length} bytes, not ${size}`);
      const backPath = join(ctx.scratchDir, `${name.split(' ')[0]}-back.mp4`);
      await writeFile(backPath, back);
      const is = await probeMedia(backPath);
      await rm(backPath);
      for (const field of ['mimeType', 'width', 'height', 'durationMs'] as const) {
        if (was[field] !== is[field]) {
          throw new Error(
            `${name}: the decrypted blob's ${field} is ${is[field]}, the video's ${was[field]}`,
          );
        }
      }
      const identical = sha256(back) === wantSha;
      if (first.kind !== 'video') throw new Error(`${name}: sent as ${first.kind}, not video`);
      rec.check(
        `${name}: stored size = ciphertextSize(${size}); the blob decrypts to the video (same size, type, dimensions and duration; ${identical ? 'byte-identical' : 'its metadata neutralised'}); kind video`,
      );
      const ours = rec.add({
        id: `send.${name.split(' ')[0]!.toLowerCase()}`,
        suite: 'send',
        label: `sendMedia ${tag} video → ${name}`,
        unit: 'MB/s',
        sizeBytes: size,
        series: `send → ${name}`,
        summary: summarize(ms!.map((t) => megabytesPerSecond(size, t))),
      });
      const ref = rec.add({
        id: `ref.send.${name.split(' ')[0]!.toLowerCase()}`,
        suite: 'send',
        label: `probeMedia + plain put → ${name}`,
        unit: 'MB/s',
        sizeBytes: size,
        reference: true,
        series: `probe + plain upload → ${name}`,
        summary: summarize(refMs!.map((t) => megabytesPerSecond(size, t))),
      });
      rec.compare(ours, ref);
      for (const r of [...sent.map((x) => x.ref), ...plain]) await store.delete(r);
    }
  } finally {
    await server.close();
  }
}

/** The send suite. */
export const sendSuite: Suite = {
  name: 'send',
  description: 'sendMedia of a ~100 MB video to the local store and the HTTP server vs probe + plain upload',
  run,
};
