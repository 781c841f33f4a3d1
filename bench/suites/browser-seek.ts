/**
 * Time to first frame after a seek in the browser: a 256 KiB range at a random offset of a big encrypted
 * video, fetched through the library's streaming Service Worker (`happy-media/web`:
 * `installMediaServiceWorker` in the worker, `registerMediaServiceWorker` + `openStreamingMedia` in the
 * page) the way a `<video>` asks after a seek, beside a plain range GET of the same bytes of the
 * unencrypted copy from the same loopback server, fetched by a page no worker controls, and beside the floor
 * of any worker design: that plain range fetched by a bare worker route and passed on untouched. Part of
 * the `browser` suite (it shares its Chromium).
 *
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { mediaBlobContext } from 'happy-media/blob';
import { encryptFile } from 'happy-media/node';
import type { openStreamingMedia, registerMediaServiceWorker } from 'happy-media/web';
import type { Browser, Page } from 'playwright-core';
import type { BenchContext, SuiteRecorder } from '../harness/context.js';
import { GiB, MiB, writeRandomFile } from '../harness/data.js';
import { STORE_DISTANCE_MS } from '../harness/distance.js';
import { summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';

/** Bytes of one seek: a keyframe's worth of 1080p, as the playback suite's `serveMedia` seek. */
const SEEK_SPAN = 256 * 1024;

/** One timed range fetch, as the page saw it. */
interface RangeTiming {
  /** ms from `fetch()` to the first body byte. */
  firstMs: number;
  /** ms from `fetch()` to the last body byte. */
  totalMs: number;
  /** SHA-256 (hex) of the body, computed after the clock stopped. */
  sha: string;
  status: number;
  contentRange: string | null;
}

/**
 * Runs inside a page (serialised by playwright): fetches `bytes=offset-(offset+span-1)` of `url` to the
 * last byte, the way a media element reads after a seek, and times the first and last byte.
 */
async function timeRange(job: { url: string; offset: number; span: number }): Promise<RangeTiming> {
  const start = performance.now();
  const res = await fetch(job.url, {
    headers: { range: `bytes=${job.offset}-${job.offset + job.span - 1}` },
    cache: 'no-store',
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const parts: Uint8Array[] = [];
  let firstMs = -1;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (firstMs < 0) firstMs = performance.now() - start;
    parts.push(value);
  }
  const totalMs = performance.now() - start;
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    body.set(p, at);
    at += p.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', body));
  return {
    firstMs,
    totalMs,
    sha: [...digest].map((x) => x.toString(16).padStart(2, '0')).join(''),
    status: res.status,
    contentRange: res.headers.get('content-range'),
  };
}

/** The ref the seek benchmark's blob is bound to and opened under. */
const SEEK_REF = 'media/benchseekvideo';

/** Runs inside the controlled page: registers the worker and opens the blob in it; returns its URL. */
async function openInWorker(job: {
  keyHex: string;
  ref: string;
  source: string;
}): Promise<{ url: string; size: number; registerMs: number; openMs: number }> {
  const api = (
    globalThis as unknown as {
      happySeek: {
        registerMediaServiceWorker: typeof registerMediaServiceWorker;
        openStreamingMedia: typeof openStreamingMedia;
      };
    }
  ).happySeek;
  const key = new Uint8Array(job.keyHex.match(/../g)!.map((h) => Number.parseInt(h, 16)));
  const t0 = performance.now();
  const registration = await api.registerMediaServiceWorker('/sw/sw.js');
  const t1 = performance.now();
  const media = await api.openStreamingMedia(
    registration,
    { ref: job.ref, mimeType: 'video/mp4' },
    { source: job.source, blobKey: key },
  );
  return { url: media.url, size: media.size, registerMs: t1 - t0, openMs: performance.now() - t1 };
}

/** Serves `path` (`size` bytes) with single-range support (206 / 416), as a blob store or CDN does. */
async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  size: number,
): Promise<void> {
  const match = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  const headers = {
    'content-type': 'application/octet-stream',
    'cache-control': 'no-store',
    'accept-ranges': 'bytes',
  };
  if (!match) {
    res.writeHead(200, { ...headers, 'content-length': String(size) });
    await pipeline(createReadStream(path), res);
    return;
  }
  const start = Number(match[1]);
  const end = Math.min(size - 1, match[2] === '' ? size - 1 : Number(match[2]));
  if (start >= size || end < start) {
    res.writeHead(416, { ...headers, 'content-range': `bytes */${size}` }).end();
    return;
  }
  res.writeHead(206, {
    ...headers,
    'content-length': String(end - start + 1),
    'content-range': `bytes ${start}-${end}/${size}`,
  });
  await pipeline(createReadStream(path, { start, end }), res);
}

/** SHA-256 (hex) of `length` bytes of a file at `offset`. */
async function sha256Range(path: string, offset: number, length: number): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const bytes = new Uint8Array(length);
    const { bytesRead } = await handle.read(bytes, 0, length, offset);
    return createHash('sha256').update(bytes.subarray(0, bytesRead)).digest('hex');
  } finally {
    await handle.close();
  }
}

/**
 * Measures seeks through the Service Worker (ours) and plain range GETs (reference) in `browser`, in ms
 * (first byte and last byte), after checking every body against the plaintext's SHA-256.
 */
export async function serviceWorkerSeekTimes(
  ctx: BenchContext,
  rec: SuiteRecorder,
  browser: Browser,
  esbuild: typeof import('esbuild'),
): Promise<void> {
  const size = ctx.quick ? 16 * MiB : GiB;
  const runs = ctx.quick ? 5 : 9;
  const tag = formatBytes(size);
  const key = new Uint8Array(randomBytes(32));
  const plainPath = join(ctx.scratchDir, 'sw-video.bin');
  const encPath = join(ctx.scratchDir, 'sw-video.enc');
  await writeRandomFile(plainPath, size);
  // Bound to the ref the page names, as every stored media blob is.
  await encryptFile(plainPath, encPath, key, { context: mediaBlobContext(SEEK_REF) });
  const encSize = (await stat(encPath)).size;

  const routes = await seekPages(ctx, esbuild);
  const server = createServer((req, res) => {
    const asked = (req.url ?? '').split('?')[0] ?? '';
    // /far/…: the same files from a store STORE_DISTANCE_MS of round trip away (answered that much later).
    const far = asked.startsWith('/far/');
    const path = far ? asked.slice('/far'.length) : asked;
    const file =
      path === '/blobs/video.enc'
        ? [encPath, encSize]
        : path === '/blobs/video.bin'
          ? [plainPath, size]
          : undefined;
    if (file) {
      setTimeout(
        () => sendFile(req, res, file[0] as string, file[1] as number).catch(() => res.destroy()),
        far ? STORE_DISTANCE_MS : 0,
      );
      return;
    }
    const route = routes[path];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': route[0], 'cache-control': 'no-store' }).end(route[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // http://127.0.0.1 is a secure context for Chromium, so Service Workers work without TLS.
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const context = await browser.newContext();
  try {
    const controlled: Page = await context.newPage();
    await controlled.goto(`${origin}/sw/page.html`);
    await controlled.waitForFunction(() => 'happySeek' in globalThis, undefined, { timeout: 30_000 });
    const keyHex = Buffer.from(key).toString('hex');
    const opened = await controlled.evaluate(openInWorker, {
      keyHex,
      ref: SEEK_REF,
      source: '/blobs/video.enc',
    });
    if (opened.size !== size) throw new Error(`the Service Worker opened ${opened.size} bytes, not ${size}`);
    const plain: Page = await context.newPage();
    await plain.goto(`${origin}/plain.html`);
    if (await plain.evaluate(() => navigator.serviceWorker.controller !== null)) {
      throw new Error('the reference page is controlled by the Service Worker');
    }

    const seeks = { controlled, plain, origin, plainPath, size, runs };
    const timings = await timeSeeks({ ...seeks, url: opened.url, blobs: '/blobs' });
    rec.check(
      `seek into ${tag} in Chromium: ${runs + 1} ranges of ${SEEK_SPAN} bytes through the Service Worker, plain GETs and the worker proxy equal the plaintext (SHA-256, 206, Content-Range)`,
    );
    recordSeeks(rec, timings, { size, openMs: opened.openMs });
    const farOpened = await controlled.evaluate(openInWorker, {
      keyHex,
      ref: SEEK_REF,
      source: '/far/blobs/video.enc',
    });
    const farTimings = await timeSeeks({ ...seeks, url: farOpened.url, blobs: '/far/blobs' });
    rec.check(
      `seek into ${tag} in Chromium, store ${STORE_DISTANCE_MS} ms away: the Service Worker's ranges and the plain GETs equal the plaintext`,
    );
    recordDistantSeeks(rec, farTimings, size);
  } finally {
    await context.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * The routes of the seek pages: the page and the worker bundled from the public web entry exactly as an app
 * would, the worker with one extra route that is the floor of any worker design.
 */
async function seekPages(
  ctx: BenchContext,
  esbuild: typeof import('esbuild'),
): Promise<Record<string, [string, string]>> {
  const web = fileURLToPath(import.meta.resolve('happy-media/web'));
  const bundle = async (contents: string, format: 'esm' | 'iife') =>
    (
      await esbuild.build({
        stdin: { contents, resolveDir: ctx.scratchDir, loader: 'js' },
        bundle: true,
        platform: 'browser',
        format,
        target: 'es2022',
        write: false,
        logLevel: 'silent',
      })
    ).outputFiles[0]!.text;
  const pageJs = await bundle(
    `import { openStreamingMedia, registerMediaServiceWorker } from ${JSON.stringify(web)}; globalThis.happySeek = { openStreamingMedia, registerMediaServiceWorker };`,
    'esm',
  );
  // The library's worker, plus one route that is the floor of any worker design: the same range of the
  // plain copy, fetched by the worker and passed on untouched (no decryption).
  const workerJs = await bundle(
    `import { installMediaServiceWorker } from ${JSON.stringify(web)};
installMediaServiceWorker(self);
self.addEventListener('fetch', (event) => {
  if (new URL(event.request.url).pathname !== '/sw/proxy/video.bin') return;
  event.respondWith(fetch('/blobs/video.bin', { headers: { range: event.request.headers.get('range') }, cache: 'no-store' }));
});`,
    'iife',
  );
  const html = (script: string) => `<!doctype html><meta charset="utf-8">${script}`;
  const routes: Record<string, [string, string]> = {
    // The worker's scope is /sw/: this page is controlled, /plain.html (the reference's page) is not.
    '/sw/page.html': ['text/html', html('<script type="module" src="/sw/page.js"></script>')],
    '/sw/page.js': ['text/javascript', pageJs],
    '/sw/sw.js': ['text/javascript', workerJs],
    '/plain.html': ['text/html', html('')],
  };
  return routes;
}

/** Timings of one seek path, per offset. */
type SeekTimings = Record<'ours' | 'reference' | 'proxied', RangeTiming[]>;

/**
 * Times `runs` seeks (after an untimed one) at random offsets in the second half, through the Service
 * Worker (ours), a plain range GET (reference) and the bare worker proxy, each body checked against the
 * plaintext's SHA-256.
 */
async function timeSeeks({
  controlled,
  plain,
  url,
  origin,
  blobs,
  plainPath,
  size,
  runs,
}: {
  controlled: Page;
  plain: Page;
  url: string;
  origin: string;
  /** Where the server answers the blobs: `/blobs` on loopback, `/far/blobs` from a distance (no proxy row there). */
  blobs: string;
  plainPath: string;
  size: number;
  runs: number;
}): Promise<SeekTimings> {
  const offsets = Array.from({ length: runs + 1 }, () =>
    Math.floor(size / 2 + Math.random() * (size / 2 - SEEK_SPAN)),
  );
  const ours = (offset: number) => controlled.evaluate(timeRange, { url, offset, span: SEEK_SPAN });
  const reference = (offset: number) =>
    plain.evaluate(timeRange, { url: `${origin}${blobs}/video.bin`, offset, span: SEEK_SPAN });
  const proxied = (offset: number) =>
    controlled.evaluate(timeRange, { url: `${origin}/sw/proxy/video.bin`, offset, span: SEEK_SPAN });
  const paths: Partial<Record<keyof SeekTimings, typeof ours>> =
    blobs === '/blobs' ? { ours, reference, proxied } : { ours, reference };
  const timings: SeekTimings = { ours: [], reference: [], proxied: [] };
  for (const [i, offset] of offsets.entries()) {
    const want = await sha256Range(plainPath, offset, SEEK_SPAN);
    const wantRange = `bytes ${offset}-${offset + SEEK_SPAN - 1}/${size}`;
    // A fresh random order per offset so load hits all alike; the first offset is the untimed warm-up.
    const order = (Object.keys(paths) as (keyof SeekTimings)[])
      .map((k) => [Math.random(), k] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, k]) => k);
    for (const which of order) {
      const t = await paths[which]!(offset);
      if (t.status !== 206 || t.contentRange !== wantRange || t.sha !== want) {
        throw new Error(
          `seek at ${offset} (${which}): ${t.status} ${t.contentRange}, body differs from the plaintext: ${t.sha !== want}`,
        );
      }
      if (i > 0) timings[which].push(t);
    }
  }
  return timings;
}

/** The seek figures: last byte beside the plain GET and the bare proxy, first byte beside the plain GET. */
function recordSeeks(
  rec: SuiteRecorder,
  timings: SeekTimings,
  { size, openMs }: { size: number; openMs: number },
): void {
  const tag = formatBytes(size);
  const add = (id: string, label: string, ms: number[], reference: boolean) =>
    rec.add({ id, suite: 'browser', label, unit: 'ms', reference, summary: summarize(ms) });
  const where = `at a random offset of ${tag}`;
  const last = add(
    `browser.seek.sw.${size}`,
    `seek: 256 KiB range ${where} via the Service Worker, last byte (worker open: ${openMs.toFixed(0)} ms)`,
    timings.ours.map((t) => t.totalMs),
    false,
  );
  rec.compare(
    last,
    add(
      `ref.browser.seek.${size}`,
      'plain range GET of the same 256 KiB in Chromium, last byte',
      timings.reference.map((t) => t.totalMs),
      true,
    ),
  );
  rec.compare(
    last,
    add(
      `ref.browser.seek.proxy.${size}`,
      'the same plain range passed through a bare Service Worker (fetch, no decryption), last byte',
      timings.proxied.map((t) => t.totalMs),
      true,
    ),
  );
  rec.compare(
    add(
      `browser.seek.sw.first.${size}`,
      `seek: 256 KiB range ${where} via the Service Worker, first byte`,
      timings.ours.map((t) => t.firstMs),
      false,
    ),
    add(
      `ref.browser.seek.first.${size}`,
      'plain range GET of the same 256 KiB in Chromium, first byte',
      timings.reference.map((t) => t.firstMs),
      true,
    ),
  );
}

/** The seek figures with the store {@link STORE_DISTANCE_MS} ms away: first and last byte beside the plain GET's. */
function recordDistantSeeks(rec: SuiteRecorder, timings: SeekTimings, size: number): void {
  const where = `at a random offset of ${formatBytes(size)}`;
  for (const [end, slug, of] of [
    ['first byte', 'first', (t: RangeTiming) => t.firstMs],
    ['last byte', 'last', (t: RangeTiming) => t.totalMs],
  ] as const) {
    rec.compare(
      rec.add({
        id: `browser.seek.sw.distant.${slug}.${size}`,
        suite: 'browser',
        label: `seek: 256 KiB range ${where} via the Service Worker, store ${STORE_DISTANCE_MS} ms away, ${end}`,
        unit: 'ms',
        summary: summarize(timings.ours.map(of)),
      }),
      rec.add({
        id: `ref.browser.seek.distant.${slug}.${size}`,
        suite: 'browser',
        label: `plain range GET of the same 256 KiB in Chromium, store ${STORE_DISTANCE_MS} ms away, ${end}`,
        unit: 'ms',
        reference: true,
        summary: summarize(timings.reference.map(of)),
      }),
    );
  }
}
