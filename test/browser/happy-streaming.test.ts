/**
 * The web app streams from Happy's server, in headless Chromium: `openStreamingMedia` with the same
 * `source` as `downloadMedia`, against three origins as a deployed web app meets them: the app's page (and
 * its Service Worker), Happy's API (bearer token on every request, `request-download` handing out download
 * URLs, CORS as Happy's server answers it) and a download host whose URLs expire, as S3's presigned GET
 * URLs do (a 403 after the expiry; HEAD refused on a URL signed for GET; Range; CORS exposing
 * `Content-Range`). A 20 s video plays, then after its download URL expired it seeks to 15 s and plays
 * on, with Happy's attachment store (`HappyServerStore`, which renews a refused URL) and with a function
 * of the ref (called per request, so every request has a fresh URL). A refused token is
 * `ERR_UNAUTHORIZED`. Skipped, with a printed reason, without Chromium or ffmpeg.
 */
import { createHash, createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { CHROMIUM_ARGS } from '../../bench/harness/chromium.js';
import { encryptBlob, mediaBlobContext } from '../../src/core/blob/index.js';
import { randomBytes, toHex } from '../../src/core/bytes.js';
import type { HappyServerStore } from '../../src/core/happy/attachment-store.js';
import type { MediaInput } from '../../src/core/playback/index.js';
import { videoMessage } from '../../src/core/protocol/index.js';
import '../../src/node/runtime/index.js';
import { findOnPath } from '../../src/node/media/ffmpeg-binaries.js';
import type {
  openStreamingMedia,
  registerMediaServiceWorker,
  StreamingMediaOptions,
} from '../../src/web/index.js';
import { makeTempDir } from '../helpers/tmp.js';
import { hasFfmpeg, makeMp4 } from '../node/playback/helpers/samples.js';
import { bundleForBrowser } from './helpers/bundle.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? findOnPath('chromium') ?? findOnPath('chromium-browser');
const hasChromium = CHROMIUM !== undefined && existsSync(CHROMIUM);
const hasVideo = hasChromium && (await hasFfmpeg());
if (!hasVideo) console.warn('Happy streaming tests skipped: they need Chromium and ffmpeg');

const SID = 'cmx6k89sd00016q7dnk5axjpq';
const UUID = '3f2b8c1e-9d4a-4e6b-8f1c-2a7d5e9b0c41';
const REF = `media/${UUID}`;
const TOKEN = 'happy-token-for-the-browser-test';
/** How long a download URL lives (S3's are 15 minutes; short here so the test meets an expired one). */
const URL_TTL_MS = 4000;
const SIGNING = randomBytes(32);

interface Seen {
  host: 'api' | 'files';
  method: string;
  path: string;
  status: number;
  auth?: string | undefined;
  range?: string | undefined;
  sig?: string | null;
}

let page: { server: Server; origin: string };
let api: { server: Server; origin: string };
let files: { server: Server; origin: string };
let browser: Browser;
let video: Uint8Array;
let blob: Uint8Array;
const seen: Seen[] = [];
let issued = 0;

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1') {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, origin: `http://${host}:${(server.address() as AddressInfo).port}` };
}

/** CORS as Happy's server answers it (any origin), with the request's headers allowed (Authorization). */
function cors(req: IncomingMessage, res: ServerResponse): boolean {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-expose-headers', 'content-range, content-length');
  if (req.method !== 'OPTIONS') return false;
  res.writeHead(204, {
    'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
    'access-control-max-age': '600',
  });
  res.end();
  return true;
}

const sign = (path: string, expires: number) =>
  createHmac('sha256', SIGNING).update(`${path}\n${expires}`).digest('hex');

/** Happy's API: request-download behind the bearer token, answering a presigned URL of the files host. */
function apiHandler(req: IncomingMessage, res: ServerResponse): void {
  if (cors(req, res)) return;
  const path = req.url ?? '';
  const record = (status: number) =>
    seen.push({ host: 'api', method: req.method ?? '', path, status, auth: req.headers.authorization });
  if (req.headers.authorization !== `Bearer ${TOKEN}`) {
    record(401);
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"Invalid token"}');
    return;
  }
  if (req.method !== 'POST' || path !== `/v1/sessions/${SID}/attachments/request-download`) {
    record(404);
    res.writeHead(404).end();
    return;
  }
  let body = '';
  req.on('data', (chunk: Buffer) => {
    body += chunk.toString();
  });
  req.on('end', () => {
    const { ref } = JSON.parse(body) as { ref: string };
    if (ref !== `sessions/${SID}/attachments/${UUID}.enc`) {
      record(400);
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"Invalid attachment ref"}');
      return;
    }
    record(200);
    issued += 1;
    const file = `/bucket/${ref}`;
    const expires = Date.now() + URL_TTL_MS;
    const downloadUrl = `${files.origin}${file}?n=${issued}&expires=${expires}&sig=${sign(file, expires)}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ downloadUrl }));
  });
}

/** The download host: presigned GET URLs that expire (403 after), Range, HEAD refused as on S3. */
function filesHandler(req: IncomingMessage, res: ServerResponse): void {
  if (cors(req, res)) return;
  const url = new URL(req.url ?? '', files.origin);
  const expires = Number(url.searchParams.get('expires'));
  const record = (status: number) =>
    seen.push({
      host: 'files',
      method: req.method ?? '',
      path: url.pathname,
      status,
      range: req.headers.range,
      sig: url.searchParams.get('n'),
    });
  const valid = url.searchParams.get('sig') === sign(url.pathname, expires);
  if (!valid || Date.now() > expires || req.method !== 'GET') {
    record(403);
    res
      .writeHead(403, { 'content-type': 'application/xml' })
      .end(`<Error><Code>${valid ? 'AccessDenied' : 'SignatureDoesNotMatch'}</Code></Error>`);
    return;
  }
  const match = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  const start = match ? Number(match[1]) : 0;
  const end = match?.[2] ? Math.min(blob.length - 1, Number(match[2])) : blob.length - 1;
  const status = match ? 206 : 200;
  record(status);
  res.writeHead(status, {
    'content-type': 'application/octet-stream',
    'content-length': String(end - start + 1),
    ...(match ? { 'content-range': `bytes ${start}-${end}/${blob.length}` } : {}),
  });
  res.end(blob.subarray(start, end + 1));
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Runs in the page: opens the message in the worker from the given source and starts the video. */
async function openVideo(job: {
  kind: 'store' | 'function';
  api: string;
  token: string;
  sid: string;
  keyHex: string;
  message: unknown;
}): Promise<{ size: number; duration: number } | { code: string }> {
  const lib = (
    globalThis as unknown as {
      happyStream: {
        HappyServerStore: typeof HappyServerStore;
        openStreamingMedia: typeof openStreamingMedia;
        registerMediaServiceWorker: typeof registerMediaServiceWorker;
      };
    }
  ).happyStream;
  const key = new Uint8Array(job.keyHex.match(/../g)!.map((h) => Number.parseInt(h, 16)));
  const source: StreamingMediaOptions['source'] =
    job.kind === 'store'
      ? new lib.HappyServerStore({ url: job.api, token: job.token, sessionId: job.sid })
      : async (ref: string) => {
          // What Happy's app does: request-download with the bearer, for every request.
          const answer = await fetch(`${job.api}/v1/sessions/${job.sid}/attachments/request-download`, {
            method: 'POST',
            headers: { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              ref: `sessions/${job.sid}/attachments/${ref.slice('media/'.length)}.enc`,
            }),
          });
          return ((await answer.json()) as { downloadUrl: string }).downloadUrl;
        };
  try {
    const registration = await lib.registerMediaServiceWorker('/sw.js');
    const media = await lib.openStreamingMedia(registration, job.message as MediaInput, {
      source,
      blobKey: key,
    });
    (globalThis as unknown as { media: unknown }).media = media;
    const element = document.createElement('video');
    element.muted = true;
    element.preload = 'metadata';
    const ready = new Promise<void>((resolve, reject) => {
      element.addEventListener('loadedmetadata', () => resolve(), { once: true });
      element.addEventListener('error', () => reject(new Error(`video error ${element.error?.code}`)), {
        once: true,
      });
    });
    element.src = media.url;
    document.body.append(element);
    await ready;
    return { size: media.size, duration: element.duration };
  } catch (error) {
    return { code: (error as { code?: string }).code ?? String(error) };
  }
}

/** Runs in the page: seeks the video and reads a range of the stream URL. */
async function seekAndRead(job: { time: number; offset: number; length: number }) {
  const element = document.querySelector('video') as HTMLVideoElement;
  await new Promise<void>((resolve, reject) => {
    element.addEventListener('seeked', () => resolve(), { once: true });
    element.addEventListener('error', () => reject(new Error(`video error ${element.error?.code}`)), {
      once: true,
    });
    element.currentTime = job.time;
  });
  if (element.readyState < 2) {
    await new Promise((resolve) => element.addEventListener('loadeddata', resolve, { once: true }));
  }
  const { url } = (globalThis as unknown as { media: { url: string } }).media;
  const response = await fetch(url, {
    headers: { range: `bytes=${job.offset}-${job.offset + job.length - 1}` },
  });
  const digest = await crypto.subtle.digest('SHA-256', await response.arrayBuffer());
  const status = await (
    globalThis as unknown as { media: { status(): Promise<string | undefined> } }
  ).media.status();
  return {
    time: element.currentTime,
    readyState: element.readyState,
    rangeStatus: response.status,
    sha: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join(''),
    failure: status ?? null,
  };
}

describe.skipIf(!hasVideo)("streaming from Happy's server in Chromium (bearer token, expiring URLs)", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let message: ReturnType<typeof videoMessage>;
  let key: Uint8Array;

  beforeAll(async () => {
    tmp = await makeTempDir('happy-media-happy-stream-');
    video = await makeMp4(tmp.dir, 20, '1500k');
    key = randomBytes(32);
    blob = await encryptBlob(video, key, { context: mediaBlobContext(REF) });
    message = videoMessage({
      role: 'agent',
      turn: 'turn1',
      ref: REF,
      thumbhash: 'YJqGPQw7sFlslqhFafSE+Q6oJ1h2iHB2Rw==',
      width: 320,
      height: 240,
      durationMs: 20_000,
      mimeType: 'video/mp4',
      size: video.length,
    });
    const bundle = bundleForBrowser;
    const pageJs = await bundle(
      `import { HappyServerStore } from './src/index.ts';
import { openStreamingMedia, registerMediaServiceWorker } from './src/web/index.ts';
globalThis.happyStream = { HappyServerStore, openStreamingMedia, registerMediaServiceWorker };`,
      'esm',
    );
    const workerJs = await bundle(
      `import { installMediaServiceWorker } from './src/web/index.ts'; installMediaServiceWorker(self, { retryDelayMs: 50 });`,
      'iife',
    );
    const routes: Record<string, [string, string]> = {
      '/page.html': [
        'text/html',
        '<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>',
      ],
      '/page.js': ['text/javascript', pageJs],
      '/sw.js': ['text/javascript', workerJs],
    };
    page = await listen((req, res) => {
      const route = routes[req.url ?? ''];
      if (!route) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': route[0], 'cache-control': 'no-store' }).end(route[1]);
    });
    api = await listen(apiHandler);
    // Another loopback address: HappyServerStore (as Happy's app) takes a URL on localhost or 127.0.0.1
    // for its own server's and rewrites it to the server's origin.
    files = await listen(filesHandler, '127.0.0.2');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    for (const s of [page, api, files]) {
      s?.server.closeAllConnections();
      await new Promise<void>((resolve) => (s ? s.server.close(() => resolve()) : resolve()));
    }
    await tmp?.cleanup();
  });

  const play = async (kind: 'store' | 'function', token = TOKEN): Promise<Page> => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(`${page.origin}/page.html`);
    await tab.waitForFunction(() => 'happyStream' in globalThis);
    const opened = await tab.evaluate(openVideo, {
      kind,
      api: api.origin,
      token,
      sid: SID,
      keyHex: toHex(key),
      message,
    });
    if ('code' in opened) {
      await context.close();
      throw Object.assign(new Error(`open failed: ${opened.code}`), { code: opened.code });
    }
    expect(opened.size).toBe(video.length);
    expect(opened.duration).toBeCloseTo(20, 0);
    return tab;
  };

  const seekPastExpiry = async (tab: Page) => {
    seen.length = 0;
    // Every download URL handed out so far has expired.
    await new Promise((resolve) => setTimeout(resolve, URL_TTL_MS + 300));
    const offset = Math.floor(video.length * 0.8);
    const result = await tab.evaluate(seekAndRead, { time: 15, offset, length: 100_000 });
    expect(result.time).toBeCloseTo(15, 0);
    expect(result.readyState).toBeGreaterThanOrEqual(2);
    expect(result.rangeStatus).toBe(206);
    expect(result.sha).toBe(sha256(video.subarray(offset, offset + 100_000)));
    expect(result.failure).toBeNull();
    // Every request to Happy's API carried the token; the download host never saw it.
    for (const s of seen.filter((x) => x.host === 'api')) expect(s.auth).toBe(`Bearer ${TOKEN}`);
    expect(seen.filter((s) => s.host === 'files' && s.status === 206).length).toBeGreaterThan(0);
    return seen.slice();
  };

  it('plays and seeks past an expired URL through HappyServerStore (the refused URL is renewed)', async () => {
    const tab = await play('store');
    onTestFinished(() => tab.context().close());
    const after = await seekPastExpiry(tab);
    // The store reused its URL, the host refused it as expired, and a fresh one was asked for.
    const refused = after.findIndex((s) => s.host === 'files' && s.status === 403 && s.method === 'GET');
    expect(refused).toBeGreaterThanOrEqual(0);
    const renewed = after.findIndex((s, i) => i > refused && s.host === 'api' && s.status === 200);
    expect(renewed).toBeGreaterThan(refused);
    expect(after.some((s, i) => i > renewed && s.host === 'files' && s.status === 206)).toBe(true);
  });

  it('plays and seeks past an expired URL through a function of the ref (a fresh URL per request)', async () => {
    const tab = await play('function');
    onTestFinished(() => tab.context().close());
    const after = await seekPastExpiry(tab);
    // The function asks request-download for every request: no expired URL is ever used.
    expect(after.filter((s) => s.host === 'files' && s.status === 403)).toEqual([]);
    // Each read used its own URL (a seek may cancel a read before it reached the host: more asked than used).
    const used = after.filter((s) => s.host === 'files').map((s) => s.sig);
    expect(new Set(used).size).toBe(used.length);
  });

  it('a token Happy’s server refuses is ERR_UNAUTHORIZED, and nothing is fetched from the download host', async () => {
    seen.length = 0;
    // The tabs of the tests before may still have a request under way: only this tab's count (its token;
    // a download URL issued from now on).
    const issuedBefore = issued;
    const error = await play('store', 'not-the-token').catch((e: { code?: string }) => e);
    expect((error as { code?: string }).code).toBe('ERR_UNAUTHORIZED');
    expect(issued).toBe(issuedBefore);
    expect(seen.filter((s) => s.host === 'files' && Number(s.sig) > issuedBefore)).toEqual([]);
    const refused = seen.filter((s) => s.host === 'api' && s.auth === 'Bearer not-the-token');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((s) => s.status === 401)).toBe(true);
  });
});
