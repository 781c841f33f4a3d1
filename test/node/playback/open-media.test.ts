/**
 * openMedia against an in-memory store with fault injection: round trips, resume after dropped
 * connections, corruption, wrong keys, sizes, abort, progress, permissions, and nothing left on failure.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { randomBytes } from '../../../src/core/bytes.js';
import { encryptV1Blob } from '../../../src/core/happy/index.js';
import { downloadMedia } from '../../../src/core/playback/download-media.js';
import type { MediaSink } from '../../../src/core/playback/media-sink.js';
import { createPrivateDirectory } from '../../../src/node/fs/private-dir.js';
import { openMedia, privateFileSink } from '../../../src/node/playback/index.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { MemoryStore } from './helpers/memory-store.js';
import { makePng, pseudoRandomBytes, sameBytes } from './helpers/samples.js';

const key = randomBytes(32);
const REF = 'media/k2x9q0c1v3b5n7m8a1s2d3f4';
let root: { dir: string; cleanup: () => Promise<void> };
let plain: Uint8Array;
let blob: Uint8Array;

beforeAll(async () => {
  root = await makeTempDir('happy-media-playback-');
  // 3 MiB + a bit: ~190 chunks, a short final one.
  plain = pseudoRandomBytes(3 * 1024 * 1024 + 777, 7);
  blob = await encryptBlob(plain, key, { context: mediaBlobContext(REF) });
});
afterAll(() => root.cleanup());

function storeWith(bytes = blob): MemoryStore {
  const store = new MemoryStore();
  store.put(REF, bytes);
  return store;
}

async function leftovers(): Promise<string[]> {
  const names = await readdir(root.dir);
  const found: string[] = [];
  for (const name of names) found.push(name, ...(await readdir(`${root.dir}/${name}`)));
  return found;
}

describe('openMedia', () => {
  it('streams a v2 blob to a private, verified file with the extension of its MIME type', async () => {
    const store = storeWith();
    const media = await openMedia(
      { ref: REF, mimeType: 'video/mp4', size: plain.length },
      { store, blobKey: key, tempRoot: root.dir },
    );
    expect(media.path.endsWith('.mp4')).toBe(true);
    expect(media.mimeType).toBe('video/mp4');
    expect(media.size).toBe(plain.length);
    expect(media.cached).toBe(false);
    expect(sameBytes(await readFile(media.path), plain)).toBe(true);
    expect((await stat(media.path)).mode & 0o777).toBe(0o600);
    expect((await stat(dirname(media.path))).mode & 0o777).toBe(0o700);
    // Only the final file is there: no .partial sibling.
    expect(await readdir(dirname(media.path))).toHaveLength(1);
    expect(store.gets).toHaveLength(1);
    await media.dispose();
    await expect(stat(dirname(media.path))).rejects.toThrow();
    await media.dispose(); // idempotent
  });

  it('names a photo by sniffing its verified bytes (photo messages carry no MIME type)', async () => {
    const png = await makePng(40, 30);
    const store = storeWith(await encryptBlob(png, key, { context: mediaBlobContext(REF) }));
    const media = await openMedia({ ref: REF }, { store, blobKey: key, tempRoot: root.dir });
    expect(media.mimeType).toBe('image/png');
    expect(media.path.endsWith('/media.png')).toBe(true);
    expect(sameBytes(await readFile(media.path), png)).toBe(true);
    await media.dispose();
  });

  it('uses a safe stem of the display name and falls back to .bin for unknown types', async () => {
    const store = storeWith(
      await encryptBlob(pseudoRandomBytes(1000, 3), key, { context: mediaBlobContext(REF) }),
    );
    const media = await openMedia(
      { ref: REF, name: '../../etc/re\u0000port.data' },
      { store, blobKey: key, tempRoot: root.dir },
    );
    expect(media.path.endsWith('/re_port.data')).toBe(true);
    await media.dispose();
  });

  it('plays empty and exact-chunk-multiple plaintexts', async () => {
    for (const size of [0, 16384, 32768]) {
      const bytes = pseudoRandomBytes(size, size + 1);
      const media = await openMedia(
        { ref: REF, mimeType: 'application/pdf', size },
        {
          store: storeWith(await encryptBlob(bytes, key, { context: mediaBlobContext(REF) })),
          blobKey: key,
          tempRoot: root.dir,
        },
      );
      expect(sameBytes(await readFile(media.path), bytes)).toBe(true);
      await media.dispose();
    }
  });

  it('resumes dropped connections at chunk boundaries and still verifies everything', async () => {
    const store = storeWith();
    // Drops at random-looking offsets, some inside the header, some mid-chunk.
    store.dropAfter = [30, 100_000, 16_400 * 7 + 5, 250_000, 1_000_000];
    const attempts: number[] = [];
    const media = await openMedia(
      { ref: REF, mimeType: 'video/mp4' },
      { store, blobKey: key, tempRoot: root.dir, retryDelayMs: 1, retries: 3 },
    );
    expect(sameBytes(await readFile(media.path), plain)).toBe(true);
    expect(store.gets.length).toBe(6);
    for (const get of store.gets.slice(1)) {
      // Every resume starts at the header end or a chunk boundary, and asks for the rest of the blob.
      expect(get.offset === 0 || (get.offset - 56) % 16400 === 0).toBe(true);
      expect(get.offset + get.length).toBe(blob.length);
      attempts.push(get.offset);
    }
    expect(attempts[0]).toBe(0); // dropped inside the header: nothing verified yet
    await media.dispose();
  });

  it('gives up after the bounded retries with ERR_DOWNLOAD_FAILED and leaves nothing', async () => {
    const store = storeWith();
    store.dropAfter = [20_000, 10, 10, 10];
    const before = await leftovers();
    await expect(
      openMedia({ ref: REF }, { store, blobKey: key, tempRoot: root.dir, retryDelayMs: 1, retries: 2 }),
    ).rejects.toMatchObject({ name: 'StorageError', code: 'ERR_DOWNLOAD_FAILED' });
    expect(store.gets.length).toBe(3); // the first try made progress, then 2 retries
    expect(await leftovers()).toEqual(before);
  });

  it('fails a flipped byte with ERR_DECRYPTION_FAILED at once (no retry loop) and leaves nothing', async () => {
    for (const at of [3, 40, 56 + 16400 * 100 + 9, blob.length - 1]) {
      const store = storeWith();
      store.flipAt.add(at);
      const before = await leftovers();
      await expect(
        openMedia({ ref: REF }, { store, blobKey: key, tempRoot: root.dir }),
      ).rejects.toMatchObject({
        name: 'DecryptionError',
        code: 'ERR_DECRYPTION_FAILED',
      });
      expect(store.gets).toHaveLength(1);
      expect(await leftovers()).toEqual(before);
    }
  });

  it('rejects a wrong key, a wrong announced size and an impossible length as the decrypt leg', async () => {
    const cases: [MemoryStore, Uint8Array, number | undefined][] = [
      [storeWith(), randomBytes(32), undefined],
      [storeWith(), key, plain.length + 1],
      [storeWith(blob.subarray(0, blob.length - 16400)), key, undefined],
    ];
    for (const [store, blobKey, size] of cases) {
      // These stores state no size: a blob shorter than announced reads as a dropped connection and is
      // retried first (without the delays between attempts, which this test is not about).
      await expect(
        openMedia(
          { ref: REF, ...(size === undefined ? {} : { size }) },
          { store, blobKey, tempRoot: root.dir, retryDelayMs: 0 },
        ),
      ).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
    }
  });

  it('fails with ERR_DISK when the temp root cannot hold its private directory (made beside the download)', async () => {
    const notADir = `${root.dir}/plain-file`;
    await writeFile(notADir, 'x');
    for (const bytes of [
      blob,
      await encryptBlob(new Uint8Array(10), key, { context: mediaBlobContext(REF) }),
    ]) {
      await expect(
        openMedia({ ref: REF }, { store: storeWith(bytes), blobKey: key, tempRoot: notADir }),
      ).rejects.toMatchObject({ code: 'ERR_DISK' });
    }
    await rm(notADir);
  });

  it('reports a missing blob as ERR_NOT_FOUND without retrying', async () => {
    const store = new MemoryStore();
    await expect(openMedia({ ref: REF }, { store, blobKey: key, tempRoot: root.dir })).rejects.toMatchObject({
      code: 'ERR_NOT_FOUND',
    });
    expect(store.heads).toBe(1);
  });

  it('reports progress up to the plaintext size', async () => {
    const events: { done: number; total: number }[] = [];
    const media = await openMedia(
      { ref: REF },
      { store: storeWith(), blobKey: key, tempRoot: root.dir, onProgress: (e) => events.push(e) },
    );
    expect(events.length).toBeGreaterThan(1);
    expect(events.at(-1)).toEqual({ done: plain.length, total: plain.length });
    for (let i = 1; i < events.length; i++) expect(events[i]!.done).toBeGreaterThan(events[i - 1]!.done);
    await media.dispose();
  });

  it('cancels with ERR_ABORTED and leaves nothing', async () => {
    const store = storeWith();
    store.pieceDelayMs = 5;
    const controller = new AbortController();
    const before = await leftovers();
    const opening = openMedia(
      { ref: REF },
      {
        store,
        blobKey: key,
        tempRoot: root.dir,
        signal: controller.signal,
        onProgress: (e) => {
          if (e.done > 100_000) controller.abort();
        },
      },
    );
    await expect(opening).rejects.toMatchObject({ name: 'AbortedError', code: 'ERR_ABORTED' });
    expect(await leftovers()).toEqual(before);
  });

  it('opens Happy v1 whole-blob attachments', async () => {
    const bytes = await makePng(16, 16);
    const store = storeWith(encryptV1Blob(bytes, key));
    const media = await openMedia({ ref: REF, format: 'v1' }, { store, blobKey: key, tempRoot: root.dir });
    expect(media.mimeType).toBe('image/png');
    expect(sameBytes(await readFile(media.path), bytes)).toBe(true);
    await media.dispose();
    const tampered = encryptV1Blob(bytes, key);
    tampered[tampered.length - 3]! ^= 1;
    await expect(
      openMedia({ ref: REF, format: 'v1' }, { store: storeWith(tampered), blobKey: key, tempRoot: root.dir }),
    ).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
  });

  it('checks its arguments with typed errors', async () => {
    const store = storeWith();
    await expect(openMedia({ ref: REF }, { store, blobKey: key.subarray(1) })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
      message: expect.stringContaining('32-byte key for `blobKey`'),
    });
    await expect(openMedia({ ref: '../etc/passwd' }, { store, blobKey: key })).rejects.toMatchObject({
      code: 'ERR_INVALID_REF',
    });
    await expect(
      openMedia({ ref: REF, format: 'v3' as 'v1' }, { store, blobKey: key }),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
  });
});

describe('privateFileSink', () => {
  /** Downloads the test blob through `sink` into a fresh private directory. */
  async function through<T extends { path: string; size: number }>(
    sink: (dir: string) => MediaSink<T>,
  ): Promise<T & { bytes: Uint8Array }> {
    const dir = await createPrivateDirectory(root.dir, 'sink-');
    try {
      const file = await downloadMedia(
        { ref: REF, size: plain.length },
        { source: storeWith(), blobKey: key, sink: sink(dir.path) },
      );
      return { ...file, bytes: new Uint8Array(await readFile(file.path)) };
    } finally {
      await dir.remove();
    }
  }

  it('returns the SHA-256 of what it wrote by default, and no hash with sha256: false', async () => {
    const hashed = await through((dir) => privateFileSink(dir, { durable: false }));
    expect(hashed.sha256).toBe(createHash('sha256').update(plain).digest('hex'));
    expect(sameBytes(hashed.bytes, plain)).toBe(true);
    const unhashed = await through((dir) => privateFileSink(dir, { durable: false, sha256: false }));
    expect('sha256' in unhashed).toBe(false);
    expect(sameBytes(unhashed.bytes, plain)).toBe(true);
    expect(unhashed.size).toBe(plain.length);
  });
});
