import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaRef } from '../../../src/core/protocol/refs.js';
import { defaultBlobDir, LocalBlobStore } from '../../../src/node/storage/index.js';
import { makeTempDir, OTHER_FILE_SYSTEM } from '../../helpers/tmp.js';
import { describeStoreContract, stallingStream, streamOf } from './store-contract.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTempDir();
});
afterAll(async () => tmp.cleanup());

describeStoreContract('LocalBlobStore', () => new LocalBlobStore(join(tmp.dir, 'contract')));

describe('LocalBlobStore on disk', () => {
  it('writes private files under media/ and leaves no partial file after failures', async () => {
    const dir = join(tmp.dir, 'layout');
    const store = new LocalBlobStore(dir);
    const ref = createMediaRef();
    await store.put(ref, streamOf(new Uint8Array(5000)), 5000);
    const file = store.pathOf(ref);
    expect(file).toBe(join(dir, 'media', ref.slice('media/'.length)));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'media'))).mode & 0o777).toBe(0o700);

    await expect(store.put(createMediaRef(), streamOf(new Uint8Array(10)), 11)).rejects.toMatchObject({
      code: 'ERR_UPLOAD_FAILED',
    });
    const controller = new AbortController();
    const put = store.put(createMediaRef(), stallingStream(new Uint8Array(100)), 1000, {
      signal: controller.signal,
    });
    controller.abort();
    await expect(put).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    expect(await readdir(join(dir, '.partial'))).toEqual([]);
    expect(await readdir(join(dir, 'media'))).toEqual([ref.slice('media/'.length)]);
  });

  it('picks its default directory from the environment', () => {
    expect(defaultBlobDir({ HAPPY_MEDIA_BLOB_DIR: '/srv/blobs' })).toBe('/srv/blobs');
    expect(defaultBlobDir({ XDG_DATA_HOME: '/x/data' })).toBe('/x/data/happy-media/blobs');
    expect(defaultBlobDir({ HOME: '/home/u' })).toMatch(/\.local\/share\/happy-media\/blobs$/);
  });

  it('rejects an empty directory, a directory that is a file, and a bad size', async () => {
    expect(() => new LocalBlobStore('')).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }));
    // A store that is a file can never hold a blob: said at once, not at the first request.
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(tmp.dir, 'a-file'), 'x');
    expect(() => new LocalBlobStore(join(tmp.dir, 'a-file'))).toThrow(
      expect.objectContaining({
        code: 'ERR_INVALID_ARGUMENT',
        message: expect.stringContaining('is a file'),
      }),
    );
    const store = new LocalBlobStore(join(tmp.dir, 'sizes'));
    await expect(store.put(createMediaRef(), streamOf(new Uint8Array(1)), -1)).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
    await expect(store.put(createMediaRef(), streamOf(new Uint8Array(1)), 1.5)).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
  });

  it('adopts a complete file as a blob by renaming it (the same inode), and refuses a bad ref or a missing file', async () => {
    const store = new LocalBlobStore(join(tmp.dir, 'adopt'));
    const ref = createMediaRef();
    const held = join(tmp.dir, 'held.bin');
    const bytes = new Uint8Array(70_000).map((_, i) => i % 251);
    await writeFile(held, bytes, { mode: 0o600 });
    const inode = (await stat(held)).ino;
    expect(await store.adopt(ref, held)).toBe(true);
    expect(existsSync(held)).toBe(false);
    expect((await stat(store.pathOf(ref))).ino).toBe(inode);
    expect(new Uint8Array(await readFile(store.pathOf(ref)))).toEqual(bytes);
    const read = await new Response(await store.get(ref)).arrayBuffer();
    expect(new Uint8Array(read)).toEqual(bytes);

    await writeFile(held, bytes);
    await expect(store.adopt('media/../escape', held)).rejects.toMatchObject({ code: 'ERR_INVALID_REF' });
    expect(existsSync(held)).toBe(true);
    await expect(store.adopt(createMediaRef(), join(tmp.dir, 'no-such-file'))).rejects.toMatchObject({
      code: 'ERR_DISK',
    });
  });

  it.skipIf(OTHER_FILE_SYSTEM === undefined)(
    'does not adopt a file from another file system: false, and the file stays',
    async () => {
      const dir = mkdtempSync(join(OTHER_FILE_SYSTEM as string, 'happy-media-adopt-'));
      try {
        const held = join(dir, 'held.bin');
        await writeFile(held, new Uint8Array(100));
        const store = new LocalBlobStore(join(tmp.dir, 'adopt-across'));
        const ref = createMediaRef();
        expect(await store.adopt(ref, held)).toBe(false);
        expect(existsSync(held)).toBe(true);
        expect(existsSync(store.pathOf(ref))).toBe(false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
