/**
 * MediaCache: hits without downloads, cheap and full re-verification, LRU eviction by bytes, pins,
 * shared downloads with per-caller abort, key separation, persistence across instances, permissions.
 */
import { appendFile, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { randomBytes } from '../../../src/core/bytes.js';
import { MediaCache, openMedia } from '../../../src/node/playback/index.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { MemoryStore } from './helpers/memory-store.js';
import { pseudoRandomBytes, sameBytes } from './helpers/samples.js';

const key = randomBytes(32);
const SIZE = 200_000;
const refs = [
  'media/aaaaaaaaaaaaaaaaaaaaaaaa',
  'media/bbbbbbbbbbbbbbbbbbbbbbbb',
  'media/cccccccccccccccccccccccc',
];
let tmp: { dir: string; cleanup: () => Promise<void> };
const plains = new Map<string, Uint8Array>();
let dirCount = 0;

async function newStore(): Promise<MemoryStore> {
  const store = new MemoryStore();
  for (const [i, ref] of refs.entries()) {
    if (!plains.has(ref)) plains.set(ref, pseudoRandomBytes(SIZE, i + 1));
    store.put(ref, await encryptBlob(plains.get(ref)!, key, { context: mediaBlobContext(ref) }));
  }
  return store;
}

function newCache(maxBytes = 10 * SIZE): MediaCache {
  return new MediaCache({ dir: `${tmp.dir}/cache-${dirCount++}`, maxBytes });
}

beforeAll(async () => {
  tmp = await makeTempDir('happy-media-cache-');
});
afterAll(() => tmp.cleanup());

describe('MediaCache', () => {
  it('serves a second open from disk without a download, with private modes', async () => {
    const store = await newStore();
    const cache = newCache();
    const first = await openMedia({ ref: refs[0]!, mimeType: 'video/mp4' }, { store, blobKey: key, cache });
    await first.dispose();
    expect(first.cached).toBe(true);
    // dispose of a cached file keeps it
    expect(sameBytes(await readFile(first.path), plains.get(refs[0]!)!)).toBe(true);
    const second = await openMedia({ ref: refs[0]!, mimeType: 'video/mp4' }, { store, blobKey: key, cache });
    expect(second.path).toBe(first.path);
    expect(store.gets).toHaveLength(1);
    expect((await stat(cache.dir)).mode & 0o777).toBe(0o700);
    expect((await stat(second.path)).mode & 0o777).toBe(0o600);
    // File names reveal neither ref nor key.
    expect((await readdir(cache.dir)).join(' ')).not.toContain('aaaa');
    await second.dispose();
    // A new instance over the same directory finds the entry through the index.
    const reopened = new MediaCache({ dir: cache.dir, maxBytes: cache.maxBytes });
    const third = await openMedia({ ref: refs[0]! }, { store, blobKey: key, cache: reopened });
    expect(third.path).toBe(first.path);
    expect(store.gets).toHaveLength(1);
    await third.dispose();
  });

  it('re-downloads when the cheap check (size, mtime, inode, mode) fails', async () => {
    const store = await newStore();
    const cache = newCache();
    const first = await openMedia({ ref: refs[0]! }, { store, blobKey: key, cache });
    await first.dispose();
    await appendFile(first.path, 'x');
    const second = await openMedia({ ref: refs[0]! }, { store, blobKey: key, cache });
    expect(store.gets).toHaveLength(2);
    expect(sameBytes(await readFile(second.path), plains.get(refs[0]!)!)).toBe(true);
    await second.dispose();
  });

  it('verify() re-hashes and drops an entry changed behind the cheap check', async () => {
    const store = await newStore();
    const cache = newCache();
    const opened = await openMedia({ ref: refs[1]! }, { store, blobKey: key, cache });
    await opened.dispose();
    const before = await stat(opened.path);
    const bytes = new Uint8Array(await readFile(opened.path));
    bytes[1000]! ^= 0xff;
    await writeFile(opened.path, bytes);
    await utimes(opened.path, before.atime, before.mtime); // same size, same mtime, same inode
    expect(await cache.has(refs[1]!, key)).toBe(true);
    expect(await cache.verify()).toEqual({ checked: 1, dropped: 1 });
    expect(await cache.has(refs[1]!, key)).toBe(false);
    await expect(stat(opened.path)).rejects.toThrow();
  });

  it('evicts least recently used entries beyond maxBytes, never a pinned one', async () => {
    const store = await newStore();
    const cache = newCache(Math.floor(2.5 * SIZE));
    const a = await openMedia({ ref: refs[0]! }, { store, blobKey: key, cache });
    await a.dispose();
    const b = await openMedia({ ref: refs[1]! }, { store, blobKey: key, cache }); // stays pinned
    await new Promise((r) => setTimeout(r, 5));
    const c = await openMedia({ ref: refs[2]! }, { store, blobKey: key, cache });
    expect(await cache.has(refs[0]!, key)).toBe(false); // LRU and unpinned
    expect(await cache.has(refs[1]!, key)).toBe(true);
    expect(await cache.has(refs[2]!, key)).toBe(true);
    expect(cache.bytes).toBeLessThanOrEqual(cache.maxBytes);
    await c.dispose();
    // b is pinned: opening a again must evict c (the only unpinned one), not b.
    const again = await openMedia({ ref: refs[0]! }, { store, blobKey: key, cache });
    expect(await cache.has(refs[1]!, key)).toBe(true);
    expect(await cache.has(refs[2]!, key)).toBe(false);
    expect(sameBytes(await readFile(b.path), plains.get(refs[1]!)!)).toBe(true);
    await again.dispose();
    await b.dispose();
  });

  it('does not cache a file larger than maxBytes, and deletes it on dispose', async () => {
    const store = await newStore();
    const cache = newCache(SIZE - 1);
    const opened = await openMedia({ ref: refs[0]! }, { store, blobKey: key, cache });
    expect(opened.cached).toBe(false);
    expect(sameBytes(await readFile(opened.path), plains.get(refs[0]!)!)).toBe(true);
    await opened.dispose();
    await expect(stat(opened.path)).rejects.toThrow();
    expect(cache.count).toBe(0);
  });

  it('misses for another key, which then fails authentication against the store', async () => {
    const store = await newStore();
    const cache = newCache();
    await (await openMedia({ ref: refs[0]! }, { store, blobKey: key, cache })).dispose();
    await expect(
      openMedia({ ref: refs[0]! }, { store, blobKey: randomBytes(32), cache }),
    ).rejects.toMatchObject({
      code: 'ERR_DECRYPTION_FAILED',
    });
  });

  it('shares one download among concurrent opens; one caller aborting does not cancel the others', async () => {
    const store = await newStore();
    store.pieceDelayMs = 2;
    const cache = newCache();
    const quitter = new AbortController();
    const opens = Array.from({ length: 6 }, (_, i) =>
      openMedia(
        { ref: refs[2]! },
        { store, blobKey: key, cache, ...(i === 0 ? { signal: quitter.signal } : {}) },
      ),
    );
    setTimeout(() => quitter.abort(), 5);
    const results = await Promise.allSettled(opens);
    expect(results[0]).toMatchObject({ status: 'rejected', reason: { code: 'ERR_ABORTED' } });
    const paths = results.slice(1).map((r) => (r.status === 'fulfilled' ? r.value.path : 'failed'));
    expect(new Set(paths).size).toBe(1);
    expect(store.gets).toHaveLength(1);
    expect(sameBytes(await readFile(paths[0]!), plains.get(refs[2]!)!)).toBe(true);
  });

  it('cancels the shared download when every caller aborts, leaving no staging files', async () => {
    const store = await newStore();
    store.pieceDelayMs = 5;
    const cache = newCache();
    const controller = new AbortController();
    const opens = Array.from({ length: 3 }, () =>
      openMedia({ ref: refs[1]! }, { store, blobKey: key, cache, signal: controller.signal }),
    );
    setTimeout(() => controller.abort(), 10);
    for (const r of await Promise.allSettled(opens))
      expect(r).toMatchObject({ reason: { code: 'ERR_ABORTED' } });
    await new Promise((r) => setTimeout(r, 50));
    expect((await readdir(cache.dir)).filter((n) => n !== 'index.json')).toEqual([]);
  });

  it('rejects a bad maxBytes with a typed error', () => {
    expect(() => new MediaCache({ maxBytes: -1 })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
  });
});
