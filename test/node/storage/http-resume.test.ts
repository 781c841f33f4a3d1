/**
 * The media server's resumable upload route (`/v1/uploads/media/<id>`) under the fault proxy: a
 * connection cut in the middle of the body keeps what arrived, the client asks how much the server holds
 * and sends only the rest (bytes counted at the proxy), and the blob exists only once complete (all or
 * nothing). A send stopped mid-way resumes in the next run from the journal, after checking the held
 * bytes' SHA-256 against the file; a file changed in between starts over, saying so. The route's own
 * answers: 409 for an offset that is not what the server holds, 413 over the limit, 400 past the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ciphertextSize } from '../../../src/core/blob/index.js';
import { openMedia } from '../../../src/node/playback/index.js';
import { sendMedia } from '../../../src/node/send/index.js';
import { HttpBlobStore, type MediaServer, startMediaServer } from '../../../src/node/storage/index.js';
import { makeTempDir, OTHER_FILE_SYSTEM } from '../../helpers/tmp.js';
import { type FaultProxy, startFaultProxy } from '../playback/helpers/fault-proxy.js';

const blobKey = new Uint8Array(randomBytes(32));
const FILE_BYTES = 3 * 1024 * 1024 + 777;
const TOTAL = ciphertextSize(FILE_BYTES);

describe("the media server's resumable upload route, under the fault proxy", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let server: MediaServer;
  let proxy: FaultProxy;
  let store: HttpBlobStore;
  let stateHome: string | undefined;

  beforeAll(async () => {
    tmp = await makeTempDir();
    stateHome = process.env.XDG_STATE_HOME;
    process.env.XDG_STATE_HOME = join(tmp.dir, 'state');
    server = await startMediaServer({ dir: join(tmp.dir, 'blobs'), maxUploadBytes: 64 * 1024 * 1024 });
    proxy = await startFaultProxy(server.url);
    store = new HttpBlobStore(proxy.url);
  });
  afterAll(async () => {
    if (stateHome === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = stateHome;
    await proxy?.close();
    await server?.close();
    await tmp?.cleanup();
  });

  async function file(name: string): Promise<{ path: string; bytes: Buffer }> {
    const path = join(tmp.dir, name);
    const bytes = randomBytes(FILE_BYTES);
    await writeFile(path, bytes);
    await utimes(path, 1_700_000_000, 1_700_000_000);
    return { path, bytes };
  }

  /** The PATCH requests the proxy saw: the offset each started from, and the bytes the client sent. */
  function patchesSeen(): { offset: number; bytes: number }[] {
    return proxy.requests
      .filter((request) => request.method === 'PATCH')
      .map((request) => ({
        offset: Number(new URL(request.path, 'http://x').searchParams.get('offset')),
        bytes: request.bytes,
      }));
  }

  async function playsBack(message: Parameters<typeof openMedia>[0], bytes: Buffer): Promise<void> {
    const media = await openMedia(message, { store, blobKey });
    expect(Buffer.from(await readFile(media.path)).equals(bytes)).toBe(true);
    await media.dispose();
  }

  it('a connection cut mid-body: the rest is appended from what the server holds, and the blob appears whole', async () => {
    const { path, bytes } = await file('cut.bin');
    proxy.requests.length = 0;
    let patches = 0;
    let heldAtCut: unknown;
    proxy.onRequest = (method, url) => {
      if (method === 'PATCH' && ++patches === 1) return 1_000_000;
      // The status the client asks after the cut: the blob is not there yet, the bytes held are.
      if (method === 'GET' && url.startsWith('/v1/uploads/') && patches === 1 && heldAtCut === undefined) {
        const ref = url.split('?')[0]?.slice('/v1/uploads/'.length) ?? '';
        heldAtCut = store.head(ref).catch((error: { code?: string }) => error.code);
      }
      return undefined;
    };
    const sent = await sendMedia(path, { store, blobKey });
    proxy.onRequest = undefined;
    expect(patches).toBeGreaterThanOrEqual(2);
    expect(await heldAtCut).toBe('ERR_NOT_FOUND');
    // What arrived of the cut request was kept: the last request went on from there with exactly the rest.
    const last = patchesSeen().at(-1) as { offset: number; bytes: number };
    expect(last.offset).toBeGreaterThan(0);
    expect(last.bytes).toBe(TOTAL - last.offset);
    await playsBack(sent.message, bytes);
  }, 120_000);

  it('a send stopped mid-way resumes in the next run, checking what the server holds; a changed file starts over', async () => {
    const stopAt = async (path: string) => {
      const stop = new AbortController();
      proxy.onRequest = (method) => {
        if (method !== 'PATCH') return undefined;
        setTimeout(() => stop.abort(), 50);
        return 1_500_000;
      };
      await expect(sendMedia(path, { store, blobKey, signal: stop.signal })).rejects.toMatchObject({
        code: 'ERR_ABORTED',
      });
      proxy.onRequest = undefined;
      proxy.requests.length = 0;
    };
    const { path, bytes } = await file('stopped.bin');
    await stopAt(path);
    const notices: string[] = [];
    const sent = await sendMedia(path, { store, blobKey, onNotice: (text) => notices.push(text) });
    expect(notices.join('\n')).toMatch(/resuming an interrupted send/);
    // The run went on from what the server held: bytes sent again ÷ bytes left, exactly 1.
    const resumed = patchesSeen().at(-1) as { offset: number; bytes: number };
    expect(resumed.offset).toBeGreaterThan(0);
    expect(resumed.bytes).toBe(TOTAL - resumed.offset);
    await playsBack(sent.message, bytes);

    // Stopped again, then the file changes where the server holds bytes (same size and time).
    const other = await file('changed.bin');
    await stopAt(other.path);
    other.bytes[100] = (other.bytes[100] as number) ^ 1;
    await writeFile(other.path, other.bytes);
    await utimes(other.path, 1_700_000_000, 1_700_000_000);
    const changedNotices: string[] = [];
    const resent = await sendMedia(other.path, {
      store,
      blobKey,
      onNotice: (text) => changedNotices.push(text),
    });
    expect(changedNotices.join('\n')).toMatch(/not what the file makes now .* starts over/);
    // Everything again, under a new ref, from 0.
    expect(patchesSeen()).toEqual([{ offset: 0, bytes: TOTAL }]);
    await playsBack(resent.message, other.bytes);
  }, 120_000);

  it("the route's answers: how much is held, 409 at another offset, 413 over the limit, 400 past the end", async () => {
    const ref = 'media/resumablerouteprobe0001';
    const url = (query: string) => `${server.url}/v1/uploads/${ref}?${query}`;
    expect(await (await fetch(url('size=100'))).json()).toEqual({
      offset: 0,
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    });
    const first = await fetch(url('size=100&offset=0'), { method: 'PATCH', body: new Uint8Array(40) });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ offset: 40 });
    const wrong = await fetch(url('size=100&offset=10'), { method: 'PATCH', body: new Uint8Array(10) });
    expect(wrong.status).toBe(409);
    expect(((await wrong.json()) as { offset: number }).offset).toBe(40);
    const past = await fetch(url('size=100&offset=40'), { method: 'PATCH', body: new Uint8Array(70) });
    expect(past.status).toBe(400);
    expect((await fetch(url(`size=${128 * 1024 * 1024}`))).status).toBe(413);
    expect((await fetch(`${server.url}/v1/blobs/${ref}`)).status).toBe(404);
    const last = await fetch(url('size=100&offset=40'), {
      method: 'PATCH',
      body: new Uint8Array(60).fill(7),
    });
    expect(last.status).toBe(201);
    const stored = new Uint8Array(await (await fetch(`${server.url}/v1/blobs/${ref}`)).arrayBuffer());
    expect(stored.length).toBe(100);
    expect(stored[99]).toBe(7);
    expect(await (await fetch(url('size=100'))).json()).toEqual({ offset: 100, complete: true });
  });
});

describe('a completed resumable upload goes into the local store whole, and its held bytes go', () => {
  /**
   * Uploads `bytes` in two PATCH requests: the stored blob, what the upload directory still holds, the
   * blob file's mode, and whether the held file itself became the blob.
   */
  async function uploadInTwo(uploadDir: string | undefined, bytes: Uint8Array) {
    const tmp = await makeTempDir();
    const server = await startMediaServer({
      dir: join(tmp.dir, 'blobs'),
      ...(uploadDir === undefined ? {} : { uploadDir }),
    });
    try {
      const ref = 'media/resumablemovedorcopied01';
      const url = (query: string) => `${server.url}/v1/uploads/${ref}?size=${bytes.length}&${query}`;
      const half = bytes.length >> 1;
      const heldDir = uploadDir ?? join(tmp.dir, 'blobs', '.uploads');
      expect(
        (await fetch(url('offset=0'), { method: 'PATCH', body: new Uint8Array(bytes.subarray(0, half)) }))
          .status,
      ).toBe(200);
      const [partFile] = await readdir(heldDir);
      const partInode = (await stat(join(heldDir, partFile ?? ''))).ino;
      expect(
        (await fetch(url(`offset=${half}`), { method: 'PATCH', body: new Uint8Array(bytes.subarray(half)) }))
          .status,
      ).toBe(201);
      const stored = new Uint8Array(await (await fetch(`${server.url}/v1/blobs/${ref}`)).arrayBuffer());
      const held = await readdir(heldDir);
      const blobFile = await stat(join(tmp.dir, 'blobs', 'media', ref.slice('media/'.length)));
      // The same inode: the held file itself became the blob (no second write of its bytes).
      return { stored, held, mode: blobFile.mode & 0o777, moved: blobFile.ino === partInode };
    } finally {
      await server.close();
      await tmp.cleanup();
    }
  }

  it("on the store's file system (the default upload directory): moved, not copied", async () => {
    const bytes = randomBytes(300_001);
    const { stored, held, mode, moved } = await uploadInTwo(undefined, bytes);
    expect(Buffer.from(stored).equals(bytes)).toBe(true);
    expect(held).toEqual([]);
    expect(moved).toBe(true);
    expect(mode).toBe(0o600);
  });

  it.skipIf(OTHER_FILE_SYSTEM === undefined)(
    'with the upload directory on another file system: copied, then the held bytes removed',
    async () => {
      const uploadDir = mkdtempSync(join(OTHER_FILE_SYSTEM as string, 'happy-media-uploads-'));
      try {
        const bytes = randomBytes(300_001);
        const { stored, held, moved } = await uploadInTwo(uploadDir, bytes);
        expect(Buffer.from(stored).equals(bytes)).toBe(true);
        expect(held).toEqual([]);
        expect(moved).toBe(false);
      } finally {
        rmSync(uploadDir, { recursive: true, force: true });
      }
    },
  );
});
