/**
 * Blob substitution (issue 24, item 2): a store that serves another blob, encrypted under the same key,
 * in place of the one a message names must fail as `ERR_DECRYPTION_FAILED` on every path that knows the
 * ref, never play the other blob's content. Each v2 blob is bound to its ref (its Cobblestone context is
 * `mediaBlobContext(ref)`), so `cp store/media/B store/media/A` makes A fail. Without the binding a photo
 * message (no `size`) or two files of the same size played B's bytes as A.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaBlobContext, openBlobRandomAccess, unboundBlobContext } from '../../../src/core/blob/index.js';
import { downloadMedia, memorySink } from '../../../src/core/playback/index.js';
import { openMedia, serveMedia } from '../../../src/node/playback/index.js';
import { sendMedia } from '../../../src/node/send/index.js';
import { LocalBlobStore, startMediaServer, storeRangeSource } from '../../../src/node/storage/index.js';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
let store: LocalBlobStore;
let keyFile: string;
const blobKey = new Uint8Array(randomBytes(32));

/** A PNG of noise (distinct content per seed); photo messages carry no size. */
async function noisePng(path: string): Promise<void> {
  await sharp(Buffer.from(randomBytes(48 * 32 * 3)), { raw: { width: 48, height: 32, channels: 3 } })
    .png()
    .toFile(path);
}

beforeAll(async () => {
  tmp = await makeTempDir('happy-media-substitution-');
  store = new LocalBlobStore(join(tmp.dir, 'store'));
  keyFile = join(tmp.dir, 'blob.key');
  await writeFile(keyFile, Buffer.from(blobKey).toString('base64'), { mode: 0o600 });
});
afterAll(() => tmp.cleanup());

describe('a blob served under another ref fails as ERR_DECRYPTION_FAILED', () => {
  it('CLI: send A and B, cp store/media/B store/media/A, play A → exit 1, ERR_DECRYPTION_FAILED, no file', async () => {
    const storeDir = join(tmp.dir, 'cli-store');
    const sent: { message: { ref: string } }[] = [];
    for (const name of ['a.png', 'b.png']) {
      const path = join(tmp.dir, name);
      await noisePng(path);
      const out = await runCli(['send', path, '--store', storeDir, '--key-file', keyFile]);
      expect(out.code, out.stderr).toBe(0);
      sent.push(JSON.parse(out.stdout) as { message: { ref: string } });
    }
    const [a, b] = sent as [{ message: { ref: string } }, { message: { ref: string } }];
    const messageA = join(tmp.dir, 'a.json');
    await writeFile(messageA, JSON.stringify(a));
    const cacheDir = join(tmp.dir, 'cli-cache');
    // Untouched, A plays.
    const before = await runCli([
      'play',
      messageA,
      '--store',
      storeDir,
      '--key-file',
      keyFile,
      '--cache-dir',
      cacheDir,
    ]);
    expect(before.code, before.stderr).toBe(0);
    expect((await readFile(before.stdout.trim())).equals(await readFile(join(tmp.dir, 'a.png')))).toBe(true);

    const blobOf = (ref: string) => join(storeDir, 'media', ref.slice('media/'.length));
    await copyFile(blobOf(b.message.ref), blobOf(a.message.ref));
    const otherCache = join(tmp.dir, 'cli-cache-after');
    const after = await runCli([
      'play',
      messageA,
      '--store',
      storeDir,
      '--key-file',
      keyFile,
      '--cache-dir',
      otherCache,
    ]);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('ERR_DECRYPTION_FAILED');
    expect(after.stdout).toBe('');
    expect(await readdir(otherCache).catch(() => [])).not.toContainEqual(expect.stringMatching(/\.png$/));
    const served = await runCli(['play', messageA, '--serve', '--store', storeDir, '--key-file', keyFile]);
    expect(served.code).toBe(1);
    expect(served.stderr).toContain('ERR_DECRYPTION_FAILED');
  });

  it('API: openMedia, downloadMedia (store and URL), serveMedia and random access all refuse; B still plays as B', async () => {
    // Two files of the same size: the message's size check alone cannot tell them apart.
    const pathA = join(tmp.dir, 'same-a.bin');
    const pathB = join(tmp.dir, 'same-b.bin');
    await writeFile(pathA, randomBytes(70_000));
    await writeFile(pathB, randomBytes(70_000));
    const a = await sendMedia(pathA, { store, blobKey });
    const b = await sendMedia(pathB, { store, blobKey });
    await copyFile(store.pathOf(b.ref), store.pathOf(a.ref));

    await expect(openMedia(a.message, { store, blobKey })).rejects.toMatchObject({
      code: 'ERR_DECRYPTION_FAILED',
    });
    await expect(
      downloadMedia(a.message, { source: store, blobKey, sink: memorySink() }),
    ).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
    await expect(serveMedia(a.message, { store, blobKey })).rejects.toMatchObject({
      code: 'ERR_DECRYPTION_FAILED',
    });
    await expect(
      openBlobRandomAccess(storeRangeSource(store, a.ref), blobKey, { context: mediaBlobContext(a.ref) }),
    ).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
    // Nor does the unbound context read it: nothing falls back to it.
    await expect(
      openBlobRandomAccess(storeRangeSource(store, a.ref), blobKey, { context: unboundBlobContext() }),
    ).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });

    // Over HTTP, by URL (as an app with presigned URLs reads): the same.
    const server = await startMediaServer({ store });
    try {
      await expect(
        downloadMedia(a.message, {
          source: (ref) => `${server.url}/v1/blobs/${ref}`,
          blobKey,
          sink: memorySink(),
        }),
      ).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
      const asB = await downloadMedia(b.message, {
        source: (ref) => `${server.url}/v1/blobs/${ref}`,
        blobKey,
        sink: memorySink(),
      });
      expect(Buffer.from(asB).equals(await readFile(pathB))).toBe(true);
    } finally {
      await server.close();
    }
  });
});
