/**
 * The Service Worker streams media stored in parts from Happy's REAL server (HAPPY_MEDIA_HAPPY_SERVER_URL),
 * in headless Chromium: a 20 s video sent in small parts (`partBytes`) plays through `openStreamingMedia`
 * with `HappyServerStore` as its source, a range the worker answers (what a seek asks) comes back byte
 * for byte (SHA-256) and fetches, of the parts, only the one holding it (downloads counted by a proxy in
 * front of the server), and the video seeks to 15 s and plays there. Skipped, with a printed reason,
 * without the server, Chromium or ffmpeg.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS } from '../../bench/harness/chromium.js';
import { openPartsManifest, type PartsManifest } from '../../src/core/blob/manifest.js';
import { toHex } from '../../src/core/bytes.js';
import type { HappyServerStore } from '../../src/core/happy/attachment-store.js';
import type { MediaInput } from '../../src/core/playback/index.js';
import { readStoreRange } from '../../src/core/playback/store-reads.js';
import '../../src/node/runtime/index.js';
import { sendToSession } from '../../src/node/happy/index.js';
import { findOnPath } from '../../src/node/media/ffmpeg-binaries.js';
import type { openStreamingMedia, registerMediaServiceWorker } from '../../src/web/index.js';
import { newHappyAccount } from '../helpers/happy-account.js';
import { makeTempDir } from '../helpers/tmp.js';
import {
  downloadedAttachments,
  type FaultProxy,
  startFaultProxy,
} from '../node/playback/helpers/fault-proxy.js';
import { hasFfmpeg, makeMp4 } from '../node/playback/helpers/samples.js';
import { bundleForBrowser } from './helpers/bundle.js';

const SERVER = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
const CHROMIUM = process.env.CHROMIUM_PATH ?? findOnPath('chromium') ?? findOnPath('chromium-browser');
const ready = SERVER !== undefined && CHROMIUM !== undefined && existsSync(CHROMIUM) && (await hasFfmpeg());
if (!ready) {
  console.warn(
    "happy-server-parts.test: skipped: it needs HAPPY_MEDIA_HAPPY_SERVER_URL (Happy's server: scripts/happy-server.sh), Chromium and ffmpeg",
  );
}

/** 63 chunks (1 032 192 plaintext bytes) a part: a 20 s video at 1500 kbit/s is four parts. */
const CHUNKS_PER_PART = 63;
const PART_PLAIN = CHUNKS_PER_PART * 16384;

type Lib = {
  HappyServerStore: typeof HappyServerStore;
  openStreamingMedia: typeof openStreamingMedia;
  registerMediaServiceWorker: typeof registerMediaServiceWorker;
};

/** Runs in the page: opens the message in the worker, its source Happy's attachment store. */
async function openInWorker(job: {
  api: string;
  token: string;
  sid: string;
  keyHex: string;
  message: unknown;
}) {
  const lib = (globalThis as unknown as { happyStream: Lib }).happyStream;
  const key = new Uint8Array(job.keyHex.match(/../g)!.map((h) => Number.parseInt(h, 16)));
  const registration = await lib.registerMediaServiceWorker('/sw.js');
  const media = await lib.openStreamingMedia(registration, job.message as MediaInput, {
    source: new lib.HappyServerStore({ url: job.api, token: job.token, sessionId: job.sid }),
    blobKey: key,
  });
  (globalThis as unknown as { media: unknown }).media = media;
  return media.size;
}

/** Runs in the page: a Range request to the stream URL, as a `<video>`'s seek makes; its SHA-256. */
async function readRange(job: { offset: number; length: number }) {
  const { url } = (globalThis as unknown as { media: { url: string } }).media;
  const response = await fetch(url, {
    headers: { range: `bytes=${job.offset}-${job.offset + job.length - 1}` },
  });
  const digest = await crypto.subtle.digest('SHA-256', await response.arrayBuffer());
  return {
    status: response.status,
    sha: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join(''),
  };
}

/** Runs in the page: plays the stream URL in a `<video>`, seeks to `time`; where it landed. */
async function playAndSeek(time: number) {
  const { url } = (globalThis as unknown as { media: { url: string } }).media;
  const element = document.createElement('video');
  element.muted = true;
  const failed = (reject: (error: Error) => void) => () =>
    reject(new Error(`video error ${element.error?.code}`));
  await new Promise<void>((resolve, reject) => {
    element.addEventListener('loadedmetadata', () => resolve(), { once: true });
    element.addEventListener('error', failed(reject), { once: true });
    element.src = url;
    document.body.append(element);
  });
  const duration = element.duration;
  await new Promise<void>((resolve, reject) => {
    element.addEventListener('seeked', () => resolve(), { once: true });
    element.addEventListener('error', failed(reject), { once: true });
    element.currentTime = time;
  });
  if (element.readyState < 2) {
    await new Promise((resolve) => element.addEventListener('loadeddata', resolve, { once: true }));
  }
  const status = await (
    globalThis as unknown as { media: { status(): Promise<string | undefined> } }
  ).media.status();
  return { duration, time: element.currentTime, readyState: element.readyState, failure: status ?? null };
}

describe.skipIf(!ready)("streaming media in parts from Happy's real server in Chromium", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let page: { server: Server; origin: string };
  let proxy: FaultProxy;
  let browser: Browser;
  let video: Uint8Array;
  let manifest: PartsManifest;
  let job: { api: string; token: string; sid: string; keyHex: string; message: unknown };

  beforeAll(async () => {
    tmp = await makeTempDir('happy-media-parts-stream-');
    video = await makeMp4(tmp.dir, 20, '1500k');
    const file = join(tmp.dir, 'clip.mp4');
    await writeFile(file, video);
    const account = await newHappyAccount(SERVER as string, { name: 'parts streaming' });
    const sent = await sendToSession(file, {
      client: account.client,
      session: account.session,
      partBytes: 56 + CHUNKS_PER_PART * 16400,
    });
    const store = account.client.attachmentStore(account.session);
    manifest = await openPartsManifest(
      await readStoreRange(store, sent.ref, 0, (await store.head(sent.ref)).size),
      account.session.blobKey,
      sent.ref,
    );
    proxy = await startFaultProxy(SERVER as string);
    job = {
      api: proxy.url,
      token: account.token,
      sid: account.sessionId,
      keyHex: toHex(account.session.blobKey),
      message: sent.message,
    };
    const bundle = bundleForBrowser;
    const routes: Record<string, [string, string]> = {
      '/page.html': [
        'text/html',
        '<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>',
      ],
      '/page.js': [
        'text/javascript',
        await bundle(
          `import { HappyServerStore } from './src/index.ts';
import { openStreamingMedia, registerMediaServiceWorker } from './src/web/index.ts';
globalThis.happyStream = { HappyServerStore, openStreamingMedia, registerMediaServiceWorker };`,
          'esm',
        ),
      ],
      '/sw.js': [
        'text/javascript',
        await bundle(
          `import { installMediaServiceWorker } from './src/web/index.ts'; installMediaServiceWorker(self);`,
          'iife',
        ),
      ],
    };
    const server = createServer((req, res) => {
      const route = routes[req.url ?? ''];
      if (!route) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': route[0], 'cache-control': 'no-store' }).end(route[1]);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    page = { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    page?.server.closeAllConnections();
    await new Promise<void>((resolve) => (page ? page.server.close(() => resolve()) : resolve()));
    await proxy?.close();
    await tmp?.cleanup();
  });

  const uuid = (ref: string | undefined) => (ref as string).slice('media/'.length);

  it('plays and seeks; a range fetches only the part that holds it', async () => {
    expect(manifest.parts.length).toBeGreaterThanOrEqual(4);
    const context = await browser.newContext();
    try {
      const tab = await context.newPage();
      await tab.goto(`${page.origin}/page.html`);
      await tab.waitForFunction(() => 'happyStream' in globalThis);
      expect(await tab.evaluate(openInWorker, job)).toBe(video.length);

      // A range inside part 2: of the parts, only part 2 is downloaded for it.
      proxy.requests.length = 0;
      const offset = 2 * PART_PLAIN + 4321;
      const range = await tab.evaluate(readRange, { offset, length: 200_000 });
      expect(range.status).toBe(206);
      expect(range.sha).toBe(
        createHash('sha256')
          .update(video.subarray(offset, offset + 200_000))
          .digest('hex'),
      );
      const parts = manifest.parts.map(uuid);
      const seen = downloadedAttachments(proxy);
      expect(seen.has(parts[2] as string)).toBe(true);
      for (const [index, part] of parts.entries())
        if (index !== 2) expect(seen.has(part), `part ${index}`).toBe(false);

      // The video plays from the worker and seeks to 15 s, in another part, with no failure.
      const played = await tab.evaluate(playAndSeek, 15);
      expect(played.duration).toBeCloseTo(20, 0);
      expect(played.time).toBeCloseTo(15, 0);
      expect(played.readyState).toBeGreaterThanOrEqual(2);
      expect(played.failure).toBeNull();
      // The tail of the video, read after the seek, is the sent bytes.
      const tail = await tab.evaluate(readRange, { offset: video.length - 100_000, length: 100_000 });
      expect(tail.sha).toBe(
        createHash('sha256')
          .update(video.subarray(video.length - 100_000))
          .digest('hex'),
      );
    } finally {
      await context.close();
    }
  }, 180_000);
});
