/**
 * The browser player for real, in headless Chromium (Debian's, driven by playwright-core): a Node test
 * server serves the esbuild-bundled page (universal entry only, platform "browser") and blobs encrypted
 * by the Node side. The page must show the ThumbHash placeholder first, then play the video with its real
 * duration and size, show the photo at its natural size, and show an error and no content for a tampered
 * blob or a wrong key. Skipped when /usr/bin/chromium is absent.
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
import { encryptBlob } from '../../src/core/blob/index.js';
import { randomBytes, toBase64 } from '../../src/core/bytes.js';
import { encryptV1Blob } from '../../src/core/envelope/index.js';
import { photoMessage, videoMessage } from '../../src/core/protocol/index.js';
import '../../src/node/blob/index.js';
import { makeTempDir } from '../helpers/tmp.js';
import { hasFfmpeg, makeMp4, makePng } from '../node/playback/helpers/samples.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const key = randomBytes(32);

let server: Server;
let origin: string;
let browser: Browser;
let tmp: { dir: string; cleanup: () => Promise<void> };
const routes = new Map<string, { body: Uint8Array | string; type: string; hold?: () => Promise<void> }>();
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

    png = await makePng(64, 48);
    thumbhash = await thumbhashOf(png);
    routes.set('/blobs/photo', { body: await encryptBlob(png, key), type: 'application/octet-stream' });
    routes.set('/blobs/photo-v1', { body: encryptV1Blob(png, key), type: 'application/octet-stream' });
    if (await hasFfmpeg()) {
      mp4 = await makeMp4(tmp.dir);
      const ct = await encryptBlob(mp4, key);
      routes.set('/blobs/video', { body: ct, type: 'application/octet-stream', hold: () => videoReleased });
      const tampered = ct.slice();
      tampered[56 + 16400 * 0 + 100]! ^= 0x01;
      routes.set('/blobs/video-tampered', { body: tampered, type: 'application/octet-stream' });
    }

    server = createServer((req, res) => {
      const route = routes.get((req.url ?? '').split('?')[0]!);
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      const send = () => {
        const body = typeof route.body === 'string' ? Buffer.from(route.body) : Buffer.from(route.body);
        res.writeHead(200, {
          'Content-Type': route.type,
          'Content-Length': body.length,
          'Cache-Control': 'no-store',
        });
        res.end(body);
      };
      if (route.hold) void route.hold().then(send);
      else send();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
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
      ref: 'media/browservideo000000000000',
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
    await page.close();
  });

  it('shows the decrypted photo at its natural size (v2 and v1 blobs)', async () => {
    const message = photoMessage({
      role: 'user',
      ref: 'media/browserphoto000000000000',
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
    await page.goto(pageUrl({ src: '/blobs/video-tampered', key: toBase64(key), mime: 'video/mp4' }));
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

  it('shows an error and no content for a wrong key (base64url in the fragment)', async () => {
    const page = await browser.newPage();
    const wrong = Buffer.from(randomBytes(32)).toString('base64url');
    await page.goto(pageUrl({ src: '/blobs/photo', key: wrong, mime: 'image/png' }));
    expect(await settle(page)).toBe('error');
    expect(await page.evaluate(() => document.body.dataset.error)).toBe('ERR_DECRYPTION_FAILED');
    expect(await page.$('#media')).toBeNull();
    await page.close();
  });
});
