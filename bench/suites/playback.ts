/**
 * Playback: download → decrypt → verified temp file (`openMedia`) of 1 MiB, 64 MiB and 1 GiB blobs
 * (quick: 1 MiB, 16 MiB) from the HTTP media server on loopback, beside a plain download of the same
 * number of bytes to a file. Each download runs in a child process of its own (its peak RSS is its own:
 * memory must stay flat as the size grows), one per side per round, the sides' order reversed every round.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createMediaRef } from 'happy-media';
import { mediaBlobContext } from 'happy-media/blob';
import {
  encryptFile,
  HttpBlobStore,
  openMedia,
  sendMedia,
  serveMedia,
  startMediaServer,
} from 'happy-media/node';
import { runChild } from '../harness/child.js';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { GiB, MiB, sha256File, writeRandomFile } from '../harness/data.js';
import { delayingRelay, STORE_DISTANCE_MS } from '../harness/distance.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';
import { fileStream } from './send.js';

/** Parts of media in parts: Happy's attachment cap. */
const PART_BYTES = 10 * MiB;

interface CaseJob {
  url: string;
  ref: string;
  keyHex?: string;
  size: number;
  runs: number;
  tempRoot: string;
  /** Hash the last run's file (`sha`); the checking round asks, the others need not spend the time. */
  hash?: boolean;
}

/** One side of the playback comparison: a child case on one ref, its times and peak memory across rounds. */
interface PlaybackSide {
  kind: 'playback:open' | 'playback:plain';
  ref: string;
  ms: number[];
  maxRssBytes: number;
  sha: string;
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
      const encRef = createMediaRef();
      await encryptFile(plainPath, encPath, key, { context: mediaBlobContext(encRef) });
      const plainRef = createMediaRef();
      await store.put(encRef, fileStream(encPath), (await stat(encPath)).size);
      await store.put(plainRef, fileStream(plainPath), size);
      const wantSha = await sha256File(plainPath);
      // Media in parts (what a send into Happy's server makes past its 10 MiB cap): the same bytes sent in
      // parts of 10 MiB with a manifest, at the middle size.
      const inParts =
        size === sizes[1]
          ? await sendMedia(plainPath, {
              store,
              blobKey: key,
              partBytes: PART_BYTES,
              resume: false,
              keepMetadata: true,
            })
          : undefined;
      if (inParts && inParts.parts < 2) throw new Error(`the media was stored in ${inParts.parts} parts`);
      await rm(encPath);
      await rm(plainPath);

      // Round by round, each side in a fresh child (one warm-up and one timed download), the order
      // reversed every round: drift in the machine's load then reaches every side alike, where timing
      // all of one side, then all of the other, let it land on one of them.
      const side = (kind: PlaybackSide['kind'], ref: string): PlaybackSide => ({
        kind,
        ref,
        ms: [],
        maxRssBytes: 0,
        sha: '',
      });
      const ours = side('playback:open', encRef);
      const plain = side('playback:plain', plainRef);
      const parts = inParts === undefined ? undefined : side('playback:open', inParts.ref);
      const sides = parts === undefined ? [ours, plain] : [ours, plain, parts];
      for (let round = 0; round < runs; round++) {
        for (const one of round % 2 === 0 ? sides : [...sides].reverse()) {
          const child = await runChild<{ ms: number[]; sha: string }>(one.kind, {
            url: server.url,
            ref: one.ref,
            ...(one.kind === 'playback:open' ? { keyHex } : {}),
            size,
            runs: 1,
            tempRoot,
            hash: round === 0,
          } satisfies CaseJob);
          one.ms.push(...child.result.ms);
          one.maxRssBytes = Math.max(one.maxRssBytes, child.maxRssBytes);
          if (round === 0) one.sha = child.result.sha;
        }
      }
      if (ours.sha !== wantSha) throw new Error(`openMedia ${tag}: the temp file differs from the original`);
      rec.check(`openMedia ${tag} over HTTP: the verified temp file equals the original (SHA-256)`);
      if (plain.sha !== wantSha) throw new Error(`plain download ${tag} differs from the original`);
      const o = rec.add({
        id: `playback.open.${size}`,
        suite: 'playback',
        label: `openMedia HTTP ${tag}`,
        unit: 'MB/s',
        sizeBytes: size,
        series: 'playback: download → decrypt → temp file',
        peakRssBytes: ours.maxRssBytes,
        summary: summarize(ours.ms.map((ms) => megabytesPerSecond(size, ms))),
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
        summary: summarize(plain.ms.map((ms) => megabytesPerSecond(size, ms))),
      });
      rec.compare(o, r);
      if (inParts !== undefined && parts !== undefined) {
        if (parts.sha !== wantSha)
          throw new Error(`openMedia ${tag} in parts: the temp file differs from the original`);
        rec.check(
          `openMedia ${tag} in parts of ${formatBytes(PART_BYTES)} over HTTP: the verified temp file equals the original (SHA-256)`,
        );
        rec.compare(
          rec.add({
            id: `playback.open.parts.${size}`,
            suite: 'playback',
            label: `openMedia HTTP ${tag} in parts of ${formatBytes(PART_BYTES)} (a manifest and ${inParts.parts} parts)`,
            unit: 'MB/s',
            sizeBytes: size,
            peakRssBytes: parts.maxRssBytes,
            summary: summarize(parts.ms.map((ms) => megabytesPerSecond(size, ms))),
          }),
          r,
        );
      }
      if (size === sizes.at(-1)) {
        await seekTimes(rec, store, encRef, plainRef, key, size, ctx.quick ? 5 : 9);
        await distantSeekTimes(rec, server.url, encRef, plainRef, key, size, ctx.quick ? 5 : 9);
      }
      await store.delete(encRef);
      await store.delete(plainRef);
    }
  } finally {
    await server.close();
  }
}

/** Reads a whole response body; resolves with its length and when its first bytes arrived (`performance.now()`). */
async function drain(body: ReadableStream<Uint8Array>): Promise<{ bytes: number; firstAt: number }> {
  let bytes = 0;
  let firstAt = Number.NaN;
  for await (const piece of body as unknown as AsyncIterable<Uint8Array>) {
    if (bytes === 0 && piece.length > 0) firstAt = performance.now();
    bytes += piece.length;
  }
  return { bytes, firstAt };
}

/** Bytes of one seek: a keyframe's worth of 1080p. */
const SEEK_SPAN = 256 * 1024;

/** One way to read a seek's range: resolves with its length and when its first bytes arrived. */
type SeekWay = (offset: number) => Promise<{ bytes: number; firstAt: number }>;

/** The range at `offset` through `url` (`serveMedia`'s endpoint, the bare proxy), which must answer 206. */
function rangeThrough(url: string, who: string): SeekWay {
  return async (offset) => {
    const res = await fetch(url, { headers: { range: `bytes=${offset}-${offset + SEEK_SPAN - 1}` } });
    if (res.status !== 206 || !res.body) throw new Error(`${who} answered ${res.status} to a range`);
    return drain(res.body);
  };
}

/** The range at `offset` of `ref` straight from `store` (the plain reference). */
function rangeFromStore(store: HttpBlobStore, ref: string): SeekWay {
  return async (offset) => drain(await store.get(ref, { offset, length: SEEK_SPAN }));
}

/**
 * Times every way at `runs` random offsets past the first half of `size`, after an untimed offset that
 * checks each returns {@link SEEK_SPAN} bytes; which way goes first rotates so load hits all alike. Per
 * way: ms to the first byte and to the last.
 */
async function timeSeekWays<K extends string>(
  ways: Record<K, SeekWay>,
  size: number,
  runs: number,
): Promise<Record<K, { first: number[]; last: number[] }>> {
  const names = Object.keys(ways) as K[];
  const offsets = Array.from({ length: runs + 1 }, () =>
    Math.floor(size / 2 + Math.random() * (size / 2 - SEEK_SPAN)),
  );
  for (const name of names) {
    if ((await ways[name](offsets[0]!)).bytes !== SEEK_SPAN)
      throw new Error(`a seek range (${name}) came back with the wrong length`);
  }
  const times = {} as Record<K, { first: number[]; last: number[] }>;
  for (const name of names) times[name] = { first: [], last: [] };
  for (const [i, offset] of offsets.slice(1).entries()) {
    const turn = i % names.length;
    for (const name of [...names.slice(turn), ...names.slice(0, turn)]) {
      const start = performance.now();
      const { firstAt } = await ways[name](offset);
      times[name].last.push(performance.now() - start);
      times[name].first.push(firstAt - start);
    }
  }
  return times;
}

/**
 * Time to first frame after a seek: a player that seeks into the video asks its URL for a range at the new
 * position (here 256 KiB at a random offset past the first half, a keyframe's worth of 1080p). Ours goes
 * through `serveMedia` (range → covering chunks fetched from the store, verified, cut); the reference is the
 * same range of the plaintext fetched straight from the same store, and beside it the same range through a
 * bare proxy (what the second hop costs alone). The endpoint is opened once (its start-up, which reads and
 * verifies the header and final chunk, is measured separately). Durations in ms, to the last byte (the
 * whole range) and to the first (what a player waits for before it can show the frame).
 */
async function seekTimes(
  rec: SuiteRecorder,
  store: HttpBlobStore,
  encRef: string,
  plainRef: string,
  key: Uint8Array,
  size: number,
  runs: number,
): Promise<void> {
  const tag = formatBytes(size);
  const openStart = performance.now();
  const endpoint = await serveMedia({ ref: encRef, mimeType: 'video/mp4', size }, { store, blobKey: key });
  const openMs = performance.now() - openStart;
  const proxy = await bareProxy(store, plainRef);
  try {
    const times = await timeSeekWays(
      {
        ours: rangeThrough(endpoint.url, 'serveMedia'),
        plain: rangeFromStore(store, plainRef),
        proxied: rangeThrough(proxy.url, 'the bare proxy'),
      },
      size,
      runs,
    );
    rec.check(`seek into ${tag}: serveMedia and the plain store return ${SEEK_SPAN}-byte ranges`);
    const o = rec.add({
      id: `playback.seek.${size}`,
      suite: 'playback',
      label: `seek: 256 KiB range at a random offset of ${tag} via serveMedia, last byte (endpoint open: ${openMs.toFixed(0)} ms)`,
      unit: 'ms',
      summary: summarize(times.ours.last),
    });
    const r = rec.add({
      id: `ref.playback.seek.${size}`,
      suite: 'playback',
      label: `plain range GET of the same 256 KiB from the store, last byte`,
      unit: 'ms',
      reference: true,
      summary: summarize(times.plain.last),
    });
    rec.compare(o, r);
    const hop = rec.add({
      id: `ref.playback.seek.proxy.${size}`,
      suite: 'playback',
      label:
        'the same plain range through a bare Node proxy (the same store client, no decryption), last byte',
      unit: 'ms',
      reference: true,
      summary: summarize(times.proxied.last),
    });
    rec.compare(o, hop);
    const firstByte = rec.add({
      id: `playback.seek.first.${size}`,
      suite: 'playback',
      label: `seek: 256 KiB range at a random offset of ${tag} via serveMedia, first byte`,
      unit: 'ms',
      summary: summarize(times.ours.first),
    });
    const plainFirst = rec.add({
      id: `ref.playback.seek.first.${size}`,
      suite: 'playback',
      label: `plain range GET of the same 256 KiB from the store, first byte`,
      unit: 'ms',
      reference: true,
      summary: summarize(times.plain.first),
    });
    rec.compare(firstByte, plainFirst);
    rec.compare(
      firstByte,
      rec.add({
        id: `ref.playback.seek.proxy.first.${size}`,
        suite: 'playback',
        label: 'the same plain range through a bare Node proxy, first byte',
        unit: 'ms',
        reference: true,
        summary: summarize(times.proxied.first),
      }),
    );
  } finally {
    await endpoint.close();
    await new Promise((resolve) => proxy.server.close(resolve));
  }
}

/**
 * Seek with the store where a real one is: across a network, {@link STORE_DISTANCE_MS} ms of round trip
 * away (a relay delays each direction half of it), while the player and `serveMedia` share the machine as
 * they do in `happy-media play --serve`. The loopback rows above put the store, `serveMedia` and the player
 * on one thread, where the second HTTP hop is most of the time; here it is a part of a seek as a user
 * waits for it. Measured as {@link seekTimes} does, first and last byte.
 */
async function distantSeekTimes(
  rec: SuiteRecorder,
  storeUrl: string,
  encRef: string,
  plainRef: string,
  key: Uint8Array,
  size: number,
  runs: number,
): Promise<void> {
  const relay = await delayingRelay(new URL(storeUrl), STORE_DISTANCE_MS / 2);
  const store = new HttpBlobStore(relay.url);
  const tag = formatBytes(size);
  let endpoint: Awaited<ReturnType<typeof serveMedia>> | undefined;
  try {
    endpoint = await serveMedia({ ref: encRef, mimeType: 'video/mp4', size }, { store, blobKey: key });
    const times = await timeSeekWays(
      {
        ours: rangeThrough(endpoint.url, 'serveMedia'),
        plain: rangeFromStore(store, plainRef),
      },
      size,
      runs,
    );
    rec.check(`seek into ${tag}, store ${STORE_DISTANCE_MS} ms away: both return ${SEEK_SPAN}-byte ranges`);
    for (const [end, slug] of [
      ['first byte', 'first'],
      ['last byte', 'last'],
    ] as const) {
      rec.compare(
        rec.add({
          id: `playback.seek.distant.${slug}.${size}`,
          suite: 'playback',
          label: `seek: 256 KiB range at a random offset of ${tag} via serveMedia, store ${STORE_DISTANCE_MS} ms away, ${end}`,
          unit: 'ms',
          summary: summarize(times.ours[slug]),
        }),
        rec.add({
          id: `ref.playback.seek.distant.${slug}.${size}`,
          suite: 'playback',
          label: `plain range GET of the same 256 KiB from the store ${STORE_DISTANCE_MS} ms away, ${end}`,
          unit: 'ms',
          reference: true,
          summary: summarize(times.plain[slug]),
        }),
      );
    }
  } finally {
    await endpoint?.close();
    await relay.close();
  }
}

/**
 * A bare proxy in front of the store for one plaintext ref: a player's `Range` GET answered with the
 * same range fetched through the same store client, no decryption. What a second hop costs on its own
 * (serveMedia is one: player → serveMedia → store).
 */
async function bareProxy(store: HttpBlobStore, ref: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!range) {
      res.writeHead(416).end();
      return;
    }
    const offset = Number(range[1]);
    const length = Number(range[2]) - offset + 1;
    void (async () => {
      try {
        const body = await store.get(ref, { offset, length });
        res.writeHead(206, { 'content-length': length, 'content-type': 'video/mp4' });
        for await (const piece of body as unknown as AsyncIterable<Uint8Array>) res.write(piece);
        res.end();
      } catch {
        res.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** Cases run in a child process (see `harness/child.ts`). */
export const childCases = {
  async open(payload: unknown): Promise<{ ms: number[]; sha: string }> {
    const job = payload as CaseJob;
    const store = new HttpBlobStore(job.url);
    const blobKey = new Uint8Array(Buffer.from(job.keyHex!, 'hex'));
    const ms: number[] = [];
    let sha = '';
    // One untimed run first (both cases), as every other figure: module loading and JIT are not playback.
    for (let i = -1; i < job.runs; i++) {
      const start = performance.now();
      const handle = await openMedia(
        { ref: job.ref, mimeType: 'application/octet-stream', size: job.size },
        { store, blobKey, tempRoot: job.tempRoot },
      );
      if (i >= 0) ms.push(performance.now() - start);
      if (i === job.runs - 1 && job.hash !== false) sha = await sha256File(handle.path);
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
    for (let i = -1; i < job.runs; i++) {
      const start = performance.now();
      const body = await store.get(job.ref);
      await pipeline(Readable.fromWeb(body as never), createWriteStream(out, { mode: 0o600 }));
      if (i >= 0) ms.push(performance.now() - start);
      if (i === job.runs - 1 && job.hash !== false) sha = await sha256File(out);
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
