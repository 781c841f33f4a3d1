/**
 * Round trips through real stores: photo, video and file messages stored encrypted in a local
 * directory, behind the HTTP media server (through a fault-injecting proxy), and in S3 when
 * HAPPY_MEDIA_S3_ENDPOINT is set; then dropped connections, a flipped byte and shared downloads over HTTP.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ciphertextSize, encryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { randomBytes } from '../../../src/core/bytes.js';
import { fileMessage, photoMessage, videoMessage } from '../../../src/core/protocol/index.js';
import { MediaCache, openMedia } from '../../../src/node/playback/index.js';
import {
  type BlobStore,
  HttpBlobStore,
  LocalBlobStore,
  S3BlobStore,
  startMediaServer,
} from '../../../src/node/storage/index.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { downloadGets, type FaultProxy, isSizeProbe, startFaultProxy } from './helpers/fault-proxy.js';
import { hasFfmpeg, makeMp4, makePng, pseudoRandomBytes, sameBytes } from './helpers/samples.js';

const key = randomBytes(32);
const THUMBHASH = '3OcRJYB4d3h/iIeHeEh3eIhw+j2w';
let tmp: { dir: string; cleanup: () => Promise<void> };
let png: Uint8Array;
let mp4: Uint8Array | undefined;
let doc: Uint8Array;
let server: { url: string; close(): Promise<void> };
let proxy: FaultProxy;

async function put(store: BlobStore, plain: Uint8Array): Promise<string> {
  // Encrypted once the store issued the ref, bound to it (as sendMedia does).
  const { ref } = await store.create(ciphertextSize(plain.length), async (issued) => {
    const ct = await encryptBlob(plain, key, { context: mediaBlobContext(issued) });
    return new Blob([ct as Uint8Array<ArrayBuffer>]).stream();
  });
  return ref;
}

beforeAll(async () => {
  tmp = await makeTempDir('happy-media-playback-stores-');
  png = await makePng(64, 48);
  mp4 = (await hasFfmpeg()) ? await makeMp4(tmp.dir) : undefined;
  doc = pseudoRandomBytes(1536 * 1024 + 5, 11);
  server = await startMediaServer({ dir: join(tmp.dir, 'served') });
  proxy = await startFaultProxy(server.url);
});
afterAll(async () => {
  await proxy.close();
  await server.close();
  await tmp.cleanup();
});

const stores: [string, () => BlobStore][] = [
  ['local directory', () => new LocalBlobStore(join(tmp.dir, 'local'))],
  ['HTTP media server', () => new HttpBlobStore(proxy.url)],
];
if (process.env.HAPPY_MEDIA_S3_ENDPOINT) {
  stores.push(['S3', () => new S3BlobStore({ prefix: `playback-${Date.now()}` })]);
}

describe.each(stores)('openMedia round trip: %s', (_name, makeStore) => {
  it('plays a photo, a video and a file, each verified byte for byte with the right extension', async () => {
    const store = makeStore();
    const tempRoot = join(tmp.dir, 'play');
    const photo = photoMessage({
      role: 'user',
      ref: await put(store, png),
      thumbhash: THUMBHASH,
      width: 64,
      height: 48,
    });
    const opened = await openMedia(photo, { store, blobKey: key, tempRoot });
    expect(opened.mimeType).toBe('image/png');
    expect(opened.path.endsWith('.png')).toBe(true);
    expect(sameBytes(await readFile(opened.path), png)).toBe(true);
    await opened.dispose();

    const file = fileMessage({
      role: 'agent',
      turn: 'turn_1',
      ref: await put(store, doc),
      name: 'report.pdf',
      size: doc.length,
      mimeType: 'application/pdf',
    });
    const openedFile = await openMedia(file, { store, blobKey: key, tempRoot });
    expect(openedFile.path.endsWith('/report.pdf')).toBe(true);
    expect(sameBytes(await readFile(openedFile.path), doc)).toBe(true);
    await openedFile.dispose();

    if (mp4) {
      const video = videoMessage({
        role: 'agent',
        turn: 'turn_1',
        ref: await put(store, mp4),
        thumbhash: THUMBHASH,
        width: 320,
        height: 240,
        durationMs: 2000,
        mimeType: 'video/mp4',
        size: mp4.length,
      });
      const openedVideo = await openMedia(video, { store, blobKey: key, tempRoot });
      expect(openedVideo.path.endsWith('.mp4')).toBe(true);
      expect(sameBytes(await readFile(openedVideo.path), mp4)).toBe(true);
      await openedVideo.dispose();
    }
    expect(await readdir(tempRoot)).toEqual([]);
  });
});

describe('openMedia over HTTP with faults', () => {
  it('resumes connections dropped at random offsets with Range requests', async () => {
    const store = new HttpBlobStore(proxy.url);
    const ref = await put(store, doc);
    proxy.requests.length = 0;
    const offsets = [5, 70_000, 300_123, 900_000].map((n) => n + Math.floor(Math.random() * 1000));
    proxy.dropAfter = [...offsets];
    const opened = await openMedia({ ref }, { store, blobKey: key, tempRoot: tmp.dir, retryDelayMs: 1 });
    expect(sameBytes(await readFile(opened.path), doc)).toBe(true);
    const gets = downloadGets(proxy);
    expect(gets.length).toBe(offsets.length + 1);
    // Each resume asks for the rest of the blob from a chunk boundary (or the start).
    for (const get of gets.slice(1)) {
      const start = Number(/^bytes=(\d+)-/.exec(get.range ?? '')?.[1]);
      expect(start === 0 || (start - 56) % 16400 === 0).toBe(true);
    }
    await opened.dispose();
  });

  it('fails a byte flipped in transit, once, and leaves no file', async () => {
    const store = new HttpBlobStore(proxy.url);
    const ref = await put(store, doc);
    const root = join(tmp.dir, 'flip');
    proxy.requests.length = 0;
    proxy.flipAt = 56 + 16400 * 50 + 123;
    try {
      await expect(openMedia({ ref }, { store, blobKey: key, tempRoot: root })).rejects.toMatchObject({
        code: 'ERR_DECRYPTION_FAILED',
      });
    } finally {
      proxy.flipAt = undefined;
    }
    expect(downloadGets(proxy)).toHaveLength(1);
    expect(await readdir(root)).toEqual([]);
  });

  it("checks the stored size from the download's own Content-Range: one GET, no HEAD, no size probe", async () => {
    // undici closes the connection after every HEAD, and a second request costs both sides a round trip.
    const store = new HttpBlobStore(proxy.url);
    const ref = await put(store, doc);
    proxy.requests.length = 0;
    const opened = await openMedia({ ref, size: doc.length }, { store, blobKey: key, tempRoot: tmp.dir });
    expect(sameBytes(await readFile(opened.path), doc)).toBe(true);
    await opened.dispose();
    expect(proxy.requests.map((r) => r.method)).toEqual(['GET']);
    expect(downloadGets(proxy)).toHaveLength(1);
    // Without a size in the message the size comes first, with a one-byte GET rather than a HEAD.
    proxy.requests.length = 0;
    const unsized = await openMedia({ ref }, { store, blobKey: key, tempRoot: tmp.dir });
    await unsized.dispose();
    expect(proxy.requests.filter((r) => r.method === 'HEAD')).toEqual([]);
    expect(proxy.requests.filter((r) => isSizeProbe(r.range))).toHaveLength(1);
  });

  it('shares one download between many concurrent opens of one ref (cache)', async () => {
    const store = new HttpBlobStore(proxy.url);
    const ref = await put(store, doc);
    const cache = new MediaCache({ dir: join(tmp.dir, 'cache'), maxBytes: 64 * 1024 * 1024 });
    proxy.requests.length = 0;
    const opens = await Promise.all(
      Array.from({ length: 8 }, () => openMedia({ ref }, { store, blobKey: key, cache })),
    );
    expect(downloadGets(proxy)).toHaveLength(1);
    expect(new Set(opens.map((o) => o.path)).size).toBe(1);
    expect(sameBytes(await readFile(opens[0]!.path), doc)).toBe(true);
    for (const o of opens) expect(o.cached).toBe(true);
    await Promise.all(opens.map((o) => o.dispose()));
    // A later open is a cache hit: no request reaches the server at all.
    proxy.requests.length = 0;
    const again = await openMedia({ ref }, { store, blobKey: key, cache });
    expect(again.path).toBe(opens[0]!.path);
    expect(proxy.requests).toHaveLength(0);
    await again.dispose();
  });
});
