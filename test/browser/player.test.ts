/**
 * The browser player for real, in headless Chromium (Debian's, driven by playwright-core): a Node test
 * server serves the esbuild-bundled page (universal entry only, platform "browser") and blobs encrypted
 * by the Node side. The page must show the ThumbHash placeholder first, then play the video with its real
 * duration and size, show the photo at its natural size, and show an error and no content for a tampered
 * blob or a wrong key. Skipped, with a printed reason, when no Chromium is found (CHROMIUM_PATH, the PATH).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import sharp from 'sharp';
import { rgbaToThumbHash } from 'thumbhash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptBlob, mediaBlobContext } from '../../src/core/blob/index.js';
import { randomBytes, toBase64 } from '../../src/core/bytes.js';
import { photoMessage, videoMessage } from '../../src/core/protocol/index.js';
import '../../src/node/runtime/index.js';
import { CHROMIUM_ARGS } from '../../bench/harness/chromium.js';
import { encryptV1Blob } from '../../src/core/happy/index.js';
import { findOnPath } from '../../src/node/media/ffmpeg-binaries.js';
import { makeTempDir } from '../helpers/tmp.js';
import { hasFfmpeg, makeMp4, makePng } from '../node/playback/helpers/samples.js';

// Found like the package finds ffmpeg: CHROMIUM_PATH, else on the PATH (so a PATH without it skips).
const CHROMIUM = process.env.CHROMIUM_PATH ?? findOnPath('chromium') ?? findOnPath('chromium-browser');
const hasChromium = CHROMIUM !== undefined && existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `browser tests skipped: no Chromium (${CHROMIUM ?? 'none on the PATH'}); apt-get install chromium or set CHROMIUM_PATH`,
  );
}
const key = randomBytes(32);
// Each v2 blob is bound to the ref its message names.
const VIDEO_REF = 'media/browservideo000000000000';
const PHOTO_REF = 'media/browserphoto000000000000';
const LONG_REF = 'media/browserlong0000000000000';

let server: Server;
let origin: string;
let browser: Browser;
let tmp: { dir: string; cleanup: () => Promise<void> };
const routes = new Map<string, { body: Uint8Array | string; type: string; hold?: () => Promise<void> }>();
/** Every request the server saw: path, Range header, body bytes sent. */
const served: { path: string; range: string | undefined; bytes: number }[] = [];
let longVideo: Uint8Array | undefined;
let longBlobSize = 0;
// The video blob is held back until the test has seen the placeholder.
let releaseVideo: () => void = () => undefined;
const videoReleased = new Promise<void>((resolve) => {
  releaseVideo = resolve;
});
let mp4: Uint8Array | undefined;
let png: Uint8Array;
let thumbhash: string;

async function thumbhashOf(image: Uint8Array): Promise<string> {
  const { data, info } = await sharp(image)
    .resize(100, 100, { fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return toBase64(rgbaToThumbHash(info.width, info.height, data));
}

function pageUrl(params: Record<string, string>): string {
  return `${origin}/player.html#${new URLSearchParams(params).toString()}`;
}

async function settle(page: Page): Promise<string> {
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state ?? ''), null, {
    timeout: 30_000,
  });
  return page.evaluate(() => document.body.dataset.state ?? '');
}

describe.skipIf(!hasChromium)('browser player (headless Chromium)', () => {
  beforeAll(async () => {
    tmp = await makeTempDir('happy-media-browser-');
    const bundle = await build({
      entryPoints: ['web/player.ts'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
      metafile: true,
    });
    // The page must not pull anything from Node into the browser.
    expect(
      Object.keys(bundle.metafile.inputs).some((p) => p.startsWith('node:') || p.includes('/src/node/')),
    ).toBe(false);
    routes.set('/player.js', { body: bundle.outputFiles[0]!.text, type: 'text/javascript' });
    routes.set('/player.html', { body: await readFile('web/player.html', 'utf8'), type: 'text/html' });
    const worker = await build({
      entryPoints: ['web/sw.ts'],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    routes.set('/sw.js', { body: worker.outputFiles[0]!.text, type: 'text/javascript' });

    png = await makePng(64, 48);
    thumbhash = await thumbhashOf(png);
    routes.set('/blobs/photo', {
      body: await encryptBlob(png, key, { context: mediaBlobContext(PHOTO_REF) }),
      type: 'application/octet-stream',
    });
    routes.set('/blobs/photo-v1', { body: encryptV1Blob(png, key), type: 'application/octet-stream' });
    if (await hasFfmpeg()) {
      mp4 = await makeMp4(tmp.dir);
      const ct = await encryptBlob(mp4, key, { context: mediaBlobContext(VIDEO_REF) });
      routes.set('/blobs/video', { body: ct, type: 'application/octet-stream', hold: () => videoReleased });
      const tampered = ct.slice();
      tampered[56 + 16400 * 0 + 100]! ^= 0x01;
      routes.set('/blobs/video-tampered', { body: tampered, type: 'application/octet-stream' });
      // 20 s at 4 Mbit/s (~10 MB): big enough that seeking must not mean downloading everything (at
      // 1.5 Mbit/s, Chromium's read-ahead in 256 KiB windows came within 5 % of the whole blob).
      longVideo = await makeMp4(tmp.dir, 20, '4000k');
      const longCt = await encryptBlob(longVideo, key, { context: mediaBlobContext(LONG_REF) });
      longBlobSize = longCt.length;
      routes.set('/blobs/long', { body: longCt, type: 'application/octet-stream' });
      const longBad = longCt.slice();
      // A byte in the chunk around 75% of the plaintext (about 15 s in).
      longBad[56 + 16400 * Math.floor((longVideo.length * 0.75) / 16384) + 10]! ^= 0x01;
      routes.set('/blobs/long-tampered', { body: longBad, type: 'application/octet-stream' });
    }

    server = createServer((req, res) => {
      const route = routes.get((req.url ?? '').split('?')[0]!);
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      const send = () => {
        const whole = typeof route.body === 'string' ? Buffer.from(route.body) : Buffer.from(route.body);
        const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
        const headers: Record<string, string | number> = {
          'Content-Type': route.type,
          'Cache-Control': 'no-store',
          'Accept-Ranges': 'bytes',
        };
        let body = whole;
        let status = 200;
        if (range) {
          const start = Number(range[1]);
          const end = Math.min(whole.length - 1, range[2] ? Number(range[2]) : whole.length - 1);
          if (start >= whole.length) {
            res.writeHead(416, { 'Content-Range': `bytes */${whole.length}` }).end();
            return;
          }
          body = whole.subarray(start, end + 1);
          status = 206;
          headers['Content-Range'] = `bytes ${start}-${end}/${whole.length}`;
        }
        headers['Content-Length'] = body.length;
        served.push({
          path: req.url ?? '',
          range: req.headers.range,
          bytes: req.method === 'HEAD' ? 0 : body.length,
        });
        res.writeHead(status, headers);
        res.end(req.method === 'HEAD' ? undefined : body);
      };
      if (route.hold) void route.hold().then(send);
      else send();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await tmp?.cleanup();
  });

  it('shows the placeholder first, then plays the decrypted video with its duration and size', async (context) => {
    if (!mp4) context.skip();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const message = videoMessage({
      role: 'user',
      ref: VIDEO_REF,
      thumbhash,
      width: 320,
      height: 240,
      durationMs: 2000,
      mimeType: 'video/mp4',
      size: mp4!.length,
    });
    await page.goto(pageUrl({ src: '/blobs/video', key: toBase64(key), message: JSON.stringify(message) }));
    // While the blob is still on its way, the ThumbHash placeholder is there and nothing else.
    await page.waitForSelector('#placeholder', { timeout: 5000 });
    expect(await page.evaluate(() => document.body.dataset.state)).toBe('loading');
    expect(await page.getAttribute('#placeholder', 'src')).toMatch(/^data:image\/png;base64,/);
    expect(await page.$('#media')).toBeNull();
    releaseVideo();
    expect(await settle(page)).toBe('ready');
    const video = await page.evaluate(() => {
      const v = document.querySelector('video')!;
      return {
        readyState: v.readyState,
        duration: v.duration,
        width: v.videoWidth,
        height: v.videoHeight,
        src: v.src,
      };
    });
    expect(video.readyState).toBeGreaterThanOrEqual(1);
    expect(video.duration).toBeCloseTo(2, 1);
    expect(video.width).toBe(320);
    expect(video.height).toBe(240);
    expect(video.src).toMatch(/^blob:/);
    expect(errors).toEqual([]);
    // The page downloads through downloadMedia's fetch source into a Blob sink: the size comes from a
    // one-byte range, then the ciphertext from the first byte.
    const videoRequests = served.filter((r) => r.path === '/blobs/video').map((r) => r.range);
    expect(videoRequests.slice(0, 2)).toEqual([
      'bytes=0-0',
      `bytes=0-${routes.get('/blobs/video')!.body.length - 1}`,
    ]);
    await page.close();
  });

  it('shows the decrypted photo at its natural size (v2 and v1 blobs)', async () => {
    const message = photoMessage({
      role: 'user',
      ref: PHOTO_REF,
      thumbhash,
      width: 64,
      height: 48,
    });
    for (const [src, extra] of [
      ['/blobs/photo', {}],
      ['/blobs/photo-v1', { format: 'v1' }],
    ] as const) {
      const page = await browser.newPage();
      await page.goto(pageUrl({ src, key: toBase64(key), message: JSON.stringify(message), ...extra }));
      expect(await settle(page)).toBe('ready');
      const size = await page.evaluate(() => {
        const img = document.querySelector<HTMLImageElement>('#media')!;
        return { w: img.naturalWidth, h: img.naturalHeight, complete: img.complete };
      });
      expect(size).toEqual({ w: 64, h: 48, complete: true });
      await page.close();
    }
  });

  it('shows an error and no content for a tampered blob', async (context) => {
    if (!mp4) context.skip();
    const page = await browser.newPage();
    await page.goto(
      pageUrl({ src: '/blobs/video-tampered', key: toBase64(key), mime: 'video/mp4', ref: VIDEO_REF }),
    );
    expect(await settle(page)).toBe('error');
    const shown = await page.evaluate(() => ({
      code: document.body.dataset.error,
      alert: document.querySelector('[role="alert"]')?.textContent ?? '',
      media: document.querySelectorAll('video, #media').length,
      blobUrls: [...document.querySelectorAll('[src]')].filter((e) =>
        e.getAttribute('src')!.startsWith('blob:'),
      ).length,
    }));
    expect(shown.code).toBe('ERR_DECRYPTION_FAILED');
    expect(shown.alert).toMatch(/could not be verified/);
    expect(shown.media).toBe(0);
    expect(shown.blobUrls).toBe(0);
    await page.close();
  });

  it('refuses a blob served in place of the one the message names (bound to another ref): download and stream', async (context) => {
    // The photo's blob, bound to PHOTO_REF, under a message that names another ref.
    const substituted = photoMessage({
      role: 'user',
      ref: 'media/browserother00000000000',
      thumbhash,
      width: 64,
      height: 48,
    });
    const page = await browser.newPage();
    await page.goto(
      pageUrl({ src: '/blobs/photo', key: toBase64(key), message: JSON.stringify(substituted) }),
    );
    expect(await settle(page)).toBe('error');
    expect(await page.evaluate(() => document.body.dataset.error)).toBe('ERR_DECRYPTION_FAILED');
    expect(await page.$('#media')).toBeNull();
    await page.close();
    if (!longVideo) return context.skip();
    const streamed = await browser.newPage();
    await streamed.goto(
      pageUrl({ src: '/blobs/long', key: toBase64(key), mime: 'video/mp4', ref: VIDEO_REF, stream: '1' }),
    );
    expect(await settle(streamed)).toBe('error');
    expect(await streamed.evaluate(() => document.body.dataset.error)).toBe('ERR_DECRYPTION_FAILED');
    expect(await streamed.$('video')).toBeNull();
    await streamed.close();
  });

  it('shows an error and no content for a wrong key (base64url in the fragment)', async () => {
    const page = await browser.newPage();
    const wrong = Buffer.from(randomBytes(32)).toString('base64url');
    await page.goto(pageUrl({ src: '/blobs/photo', key: wrong, mime: 'image/png', ref: PHOTO_REF }));
    expect(await settle(page)).toBe('error');
    expect(await page.evaluate(() => document.body.dataset.error)).toBe('ERR_DECRYPTION_FAILED');
    expect(await page.$('#media')).toBeNull();
    await page.close();
  });

  it('streams through the Service Worker: plays and seeks, fetching only ranges (stretch goal)', async (context) => {
    if (!longVideo) context.skip();
    const page = await browser.newPage();
    const message = videoMessage({
      role: 'user',
      ref: LONG_REF,
      thumbhash,
      width: 320,
      height: 240,
      durationMs: 20_000,
      mimeType: 'video/mp4',
      size: longVideo!.length,
    });
    served.length = 0;
    await page.goto(
      pageUrl({ src: '/blobs/long', key: toBase64(key), message: JSON.stringify(message), stream: '1' }),
    );
    await settle(page);
    expect(
      await page.evaluate(
        () => `${document.body.dataset.state}: ${document.getElementById('status')?.textContent}`,
      ),
    ).toBe('ready: Streaming; every chunk is verified before it plays.');
    const seeked = await page.evaluate(async () => {
      const v = document.querySelector('video')!;
      await new Promise<void>((resolve, reject) => {
        v.addEventListener('seeked', () => resolve(), { once: true });
        v.addEventListener('error', () => reject(new Error('video error')), { once: true });
        v.currentTime = 15;
      });
      if (v.readyState < 2) await new Promise((r) => v.addEventListener('loadeddata', r, { once: true }));
      return {
        time: v.currentTime,
        duration: v.duration,
        readyState: v.readyState,
        width: v.videoWidth,
        src: v.src,
      };
    });
    expect(seeked.time).toBeCloseTo(15, 0);
    expect(seeked.duration).toBeCloseTo(20, 0);
    expect(seeked.readyState).toBeGreaterThanOrEqual(2);
    expect(seeked.width).toBe(320);
    expect(seeked.src).toContain('/__happy_media__/');
    const blobRequests = served.filter((r) => r.path === '/blobs/long');
    // Every ciphertext request was a range, and together they did not fetch the whole blob.
    expect(blobRequests.length).toBeGreaterThan(2);
    for (const r of blobRequests) expect(r.range).toMatch(/^bytes=\d+-\d+$/);
    const total = blobRequests.reduce((sum, r) => sum + r.bytes, 0);
    expect(total).toBeLessThan(longBlobSize);
    // The seek to 15 s (75%) fetched chunks around it directly, without reading everything before it.
    const starts = blobRequests.map((r) => Number(/^bytes=(\d+)-/.exec(r.range ?? '')?.[1]));
    expect(starts.some((start) => start > longBlobSize * 0.6)).toBe(true);
    // The worker reads Range with the one parser and serveMedia's policy: the unit in any case, a header
    // it cannot read served whole (200), a range past the end 416.
    const answers = await page.evaluate(async () => {
      const src = document.querySelector('video')!.src;
      const out: Record<string, [number, string | null, string | null]> = {};
      for (const range of ['BYTES=0-1', 'bytes=5-2', 'bytes=999999999-']) {
        const r = await fetch(src, { headers: { range } });
        out[range] = [r.status, r.headers.get('content-range'), r.headers.get('content-length')];
        await r.body?.cancel();
      }
      return out;
    });
    const size = longVideo!.length;
    expect(answers).toEqual({
      'BYTES=0-1': [206, `bytes 0-1/${size}`, '2'],
      'bytes=5-2': [200, null, String(size)],
      'bytes=999999999-': [416, `bytes */${size}`, null],
    });
    await page.close();
  });

  it('streaming stops with an error when a chunk fails verification on seek', async (context) => {
    if (!longVideo) context.skip();
    const page = await browser.newPage();
    await page.goto(
      pageUrl({
        src: '/blobs/long-tampered',
        key: toBase64(key),
        mime: 'video/mp4',
        ref: LONG_REF,
        stream: '1',
      }),
    );
    expect(await settle(page)).toBe('ready'); // header and final chunk verify; the bad chunk is in the middle
    await page.evaluate(() => {
      const v = document.querySelector('video');
      if (v) v.currentTime = 15;
    });
    await page.waitForFunction(() => document.body.dataset.state === 'error', null, { timeout: 30_000 });
    expect(await page.evaluate(() => document.body.dataset.error)).toBe('ERR_DECRYPTION_FAILED');
    expect(await page.$('video')).toBeNull();
    await page.close();
  });
});
