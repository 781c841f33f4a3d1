/**
 * expoFileSink and openExpoMedia over an expo-file-system that follows SDK 55's documented semantics
 * (test/helpers/fake-expo-file-system.ts): only verified bytes are written, the file appears under its
 * name only after the last chunk verified, every failure (download, tamper, disk, abort) leaves nothing;
 * the cache by ref serves a second open without a download, shares concurrent opens, and misses under
 * another key.
 */
import { describe, expect, it } from 'vitest';
import { encryptBlob, mediaBlobContext } from '../../src/core/blob/index.js';
import { bytesStream, randomBytes } from '../../src/core/bytes.js';
import { encryptV1Blob } from '../../src/core/happy/index.js';
import { downloadMedia } from '../../src/core/playback/index.js';
import { fileMessage, photoMessage, videoMessage } from '../../src/core/protocol/index.js';
import { uploadMediaBlob } from '../../src/core/send/media-upload.js';
import { streamPlaintextSource } from '../../src/core/send/plaintext-source.js';
import { EXPO_WRITE_BYTES } from '../../src/expo/file-sink.js';
import { expoFileSink, openExpoMedia } from '../../src/expo/index.js';
import { testBytes } from '../core/blob/blob-test-utils.js';
import { rejectionCodeOf } from '../helpers/errors.js';
import {
  type FakeExpoFileSystem,
  type FakeFile,
  fakeExpoFileSystem,
} from '../helpers/fake-expo-file-system.js';
import { memoryStore } from '../helpers/memory-store.js';
import { MemoryStore } from '../node/playback/helpers/memory-store.js';

const key = randomBytes(32);
const REF = 'media/expo0000000000000000000a';
const plain = testBytes(1_000_000 + 123, 9);
const blob = await encryptBlob(plain, key, { context: mediaBlobContext(REF) });

function storeWith(bytes: Uint8Array, ref = REF): MemoryStore {
  const store = new MemoryStore();
  store.put(ref, bytes);
  return store;
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Paths of every file on the fake disk. */
function filesOn(fs: FakeExpoFileSystem): string[] {
  return [...fs.files.keys()].sort();
}

const video = videoMessage({
  role: 'user',
  ref: REF,
  thumbhash: '1QcSHQRnh493V4dIh4eXh1h4kJUI',
  width: 320,
  height: 240,
  durationMs: 2000,
  mimeType: 'video/mp4',
  size: plain.length,
});

describe('expoFileSink', () => {
  it('writes the verified plaintext through one handle and moves it to its name on commit', async () => {
    const fs = fakeExpoFileSystem();
    const file = (await downloadMedia(video, {
      source: storeWith(blob),
      blobKey: key,
      sink: expoFileSink(fs),
    })) as unknown as FakeFile;
    expect(file.uri).toMatch(/^file:\/\/\/cache\/happy-media\/[0-9a-f]{24}\/media\.mp4$/);
    expect(same(file.bytesSync(), plain)).toBe(true);
    expect(filesOn(fs)).toEqual([file.uri.slice('file://'.length)]);
    expect(fs.openHandles.size).toBe(0);
    // Few native calls: every write but the last is a whole 256 KiB batch.
    const writes = fs.calls.filter((c) => c.op === 'writeBytes').map((c) => c.bytes);
    expect(writes.slice(0, -1).every((n) => n === EXPO_WRITE_BYTES)).toBe(true);
    expect(writes.reduce((a, b) => a + b, 0)).toBe(plain.length);
  });

  it('names a file by its display name and type, a photo by its bytes, and takes a caller’s name', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...testBytes(100, 1)]);
    const store = storeWith(await encryptBlob(png, key, { context: mediaBlobContext(REF) }), REF);
    const fs = fakeExpoFileSystem();
    const photo = photoMessage({
      role: 'user',
      ref: REF,
      thumbhash: '1QcSHQRnh493V4dIh4eXh1h4kJUI',
      width: 1,
      height: 1,
    });
    const shot = await downloadMedia(photo, { source: store, blobKey: key, sink: expoFileSink(fs) });
    expect(shot.uri).toMatch(/^file:\/\/\/cache\/happy-media\/[0-9a-f]{24}\/media\.png$/);
    const report = fileMessage({
      role: 'user',
      ref: REF,
      name: 'Report: Q3?.PDF',
      size: png.length,
      mimeType: 'application/pdf',
    });
    const pdf = await downloadMedia(report, { source: store, blobKey: key, sink: expoFileSink(fs) });
    expect(pdf.uri).toMatch(/^file:\/\/\/cache\/happy-media\/[0-9a-f]{24}\/Report_%20Q3_\.pdf$/);
    const named = await downloadMedia(report, {
      source: store,
      blobKey: key,
      sink: expoFileSink(fs, {
        directory: new fs.Directory(fs.Paths.cache),
        name: ({ mimeType }) => `x-${mimeType?.split('/')[1]}`,
      }),
    });
    expect(named.uri).toBe('file:///cache/x-pdf');
    // A caller's name: an existing file of that name is replaced.
    const again = await downloadMedia(report, {
      source: store,
      blobKey: key,
      sink: expoFileSink(fs, { name: 'media.png' }),
    });
    expect(again.uri).toBe('file:///cache/happy-media/media.png');
    expect(fs.files.get('/cache/happy-media/media.png')?.length).toBe(png.length);
  });

  it('gives every download a path of its own: photo A’s file never gets photo B’s bytes', async () => {
    const fs = fakeExpoFileSystem();
    const jpeg = (seed: number) => new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...testBytes(5000, seed)]);
    const refs = ['media/expoPhotoA00000000000000', 'media/expoPhotoB00000000000000'];
    const bytes = [jpeg(1), jpeg(2)];
    const store = new MemoryStore();
    for (const [i, ref] of refs.entries()) {
      store.put(ref, await encryptBlob(bytes[i]!, key, { context: mediaBlobContext(ref) }));
    }
    const photoOf = (ref: string) =>
      photoMessage({ role: 'user', ref, thumbhash: '1QcSHQRnh493V4dIh4eXh1h4kJUI', width: 1, height: 1 });
    const save = (ref: string) =>
      downloadMedia(photoOf(ref), {
        source: store,
        blobKey: key,
        sink: expoFileSink(fs),
      }) as Promise<unknown> as Promise<FakeFile>;
    const a = await save(refs[0]!);
    // The app still reads photo A (a handle is open) while photo B, then A again, are saved.
    const reading = a.open();
    const b = await save(refs[1]!);
    const aAgain = await save(refs[0]!);
    expect(new Set([a.uri, b.uri, aAgain.uri]).size).toBe(3);
    for (const file of [a, b, aAgain]) expect(file.uri).toMatch(/\/media\.jpg$/);
    expect(same(reading.readBytes(bytes[0]!.length), bytes[0]!)).toBe(true);
    reading.close();
    expect(same(a.bytesSync(), bytes[0]!)).toBe(true);
    expect(same(b.bytesSync(), bytes[1]!)).toBe(true);
    expect(same(aAgain.bytesSync(), bytes[0]!)).toBe(true);
  });

  it('a tampered chunk: only verified bytes were ever written, and nothing is left', async () => {
    const fs = fakeExpoFileSystem();
    const store = storeWith(blob);
    store.flipAt.add(56 + 16400 * 40 + 3);
    const seen: Uint8Array[] = [];
    const code = await rejectionCodeOf(
      downloadMedia(video, {
        source: store,
        blobKey: key,
        sink: expoFileSink(fs),
        onProgress: () => {
          const partial = [...fs.files.entries()].find(([path]) => path.endsWith('.partial'));
          if (partial) seen.push(partial[1].slice());
        },
      }),
    );
    expect(code).toBe('ERR_DECRYPTION_FAILED');
    expect(filesOn(fs)).toEqual([]);
    expect(fs.openHandles.size).toBe(0);
    // What reached the temp file was always a prefix of the true plaintext, never the damaged chunk.
    for (const part of seen) expect(same(part, plain.subarray(0, part.length))).toBe(true);
    expect(Math.max(...seen.map((p) => p.length))).toBeLessThanOrEqual(40 * 16384);
  });

  it.each(['create', 'open', 'writeBytes', 'close', 'move'] as const)(
    'a failing %s is ERR_DISK and leaves nothing',
    async (op) => {
      const fs = fakeExpoFileSystem();
      fs.faults.push(op);
      const code = await rejectionCodeOf(
        downloadMedia(video, { source: storeWith(blob), blobKey: key, sink: expoFileSink(fs) }),
      );
      expect(code).toBe('ERR_DISK');
      expect(filesOn(fs)).toEqual([]);
      expect(fs.openHandles.size).toBe(0);
    },
  );

  it('an aborted download leaves nothing; a wrong key leaves nothing', async () => {
    const fs = fakeExpoFileSystem();
    const store = storeWith(blob);
    store.pieceDelayMs = 2;
    const controller = new AbortController();
    const pending = downloadMedia(video, {
      source: store,
      blobKey: key,
      sink: expoFileSink(fs),
      signal: controller.signal,
      onProgress: ({ done }) => {
        if (done > 100_000) controller.abort();
      },
    });
    expect(await rejectionCodeOf(pending)).toBe('ERR_ABORTED');
    expect(filesOn(fs)).toEqual([]);
    expect(
      await rejectionCodeOf(
        downloadMedia(video, { source: storeWith(blob), blobKey: randomBytes(32), sink: expoFileSink(fs) }),
      ),
    ).toBe('ERR_DECRYPTION_FAILED');
    expect(filesOn(fs)).toEqual([]);
  });

  it('refuses a file system that is not expo-file-system’s, and names with a path', () => {
    expect(() => expoFileSink({} as never)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
    const fs = fakeExpoFileSystem();
    for (const name of ['../x', 'a/b', '..', '']) {
      expect(() => expoFileSink(fs, { name })).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      );
    }
  });
});

describe('openExpoMedia (cache by ref)', () => {
  it('downloads once, then serves the cached file without a request', async () => {
    const fs = fakeExpoFileSystem();
    const store = storeWith(blob);
    const first = await openExpoMedia(video, { fileSystem: fs, source: store, blobKey: key });
    const gets = store.gets.length;
    expect(gets).toBeGreaterThan(0);
    expect(first.uri).toMatch(/^file:\/\/\/cache\/happy-media\/[0-9a-f]{32}\/media\.mp4$/);
    const second = await openExpoMedia(video, { fileSystem: fs, source: store, blobKey: key });
    expect(second.uri).toBe(first.uri);
    expect(store.gets.length).toBe(gets);
    expect(same((second as unknown as FakeFile).bytesSync(), plain)).toBe(true);
  });

  it('opens media in parts (a store that takes 4 chunks an attachment) as one verified file', async () => {
    const fs = fakeExpoFileSystem();
    const store = memoryStore(56 + 4 * 16_400);
    const upload = await uploadMediaBlob(store, streamPlaintextSource(bytesStream(plain), plain.length), key);
    // 1 000 123 bytes at 65 536 a part: 16 parts, then the manifest under the message's ref.
    expect(upload.parts).toBe(16);
    expect(store.created).toHaveLength(17);
    const opened = await openExpoMedia(
      { ...video, ref: upload.ref },
      { fileSystem: fs, source: store, blobKey: key },
    );
    expect(same((opened as unknown as FakeFile).bytesSync(), plain)).toBe(true);
    // Under another key the manifest fails at its header: nothing is written.
    const elsewhere = fakeExpoFileSystem();
    const other = await rejectionCodeOf(
      openExpoMedia(
        { ...video, ref: upload.ref },
        { fileSystem: elsewhere, source: store, blobKey: randomBytes(32) },
      ),
    );
    expect(filesOn(elsewhere)).toEqual([]);
    expect(other).toBe('ERR_DECRYPTION_FAILED');
  });

  it('shares one download between concurrent opens; one waiter’s abort does not cancel the others', async () => {
    const fs = fakeExpoFileSystem();
    const store = storeWith(blob);
    store.pieceDelayMs = 1;
    const quitter = new AbortController();
    const opens = [
      openExpoMedia(video, { fileSystem: fs, source: store, blobKey: key }),
      openExpoMedia(video, { fileSystem: fs, source: store, blobKey: key, signal: quitter.signal }),
      openExpoMedia(video, { fileSystem: fs, source: store, blobKey: key }),
    ];
    quitter.abort();
    const [a, b, c] = await Promise.allSettled(opens);
    expect(b?.status).toBe('rejected');
    expect(a?.status === 'fulfilled' && c?.status === 'fulfilled' && a.value.uri === c.value.uri).toBe(true);
    expect(store.gets.filter((g) => g.offset === 0).length).toBe(1);
  });

  it('misses under another key, re-downloads a purged or damaged entry, and leaves nothing on failure', async () => {
    const fs = fakeExpoFileSystem();
    const store = storeWith(blob);
    const first = await openExpoMedia(video, { fileSystem: fs, source: store, blobKey: key });
    const other = await rejectionCodeOf(
      openExpoMedia(video, { fileSystem: fs, source: store, blobKey: randomBytes(32) }),
    );
    expect(other).toBe('ERR_DECRYPTION_FAILED');
    expect(filesOn(fs)).toEqual([decodeURIComponent(first.uri.slice('file://'.length))]);
    // Truncated by something else: not trusted, downloaded again.
    fs.files.set(decodeURIComponent(first.uri.slice('file://'.length)), plain.slice(0, 10));
    const gets = store.gets.length;
    const healed = await openExpoMedia(video, { fileSystem: fs, source: store, blobKey: key });
    expect(store.gets.length).toBeGreaterThan(gets);
    expect(same((healed as unknown as FakeFile).bytesSync(), plain)).toBe(true);
    // Purged by the system.
    new fs.Directory(fs.Paths.cache, 'happy-media').delete();
    const back = await openExpoMedia(video, { fileSystem: fs, source: store, blobKey: key });
    expect(same((back as unknown as FakeFile).bytesSync(), plain)).toBe(true);
  });

  it('refuses an onProgress that is not a function before any request, on a miss and on a hit', async () => {
    const fs = fakeExpoFileSystem();
    const store = storeWith(blob);
    const bad = { fileSystem: fs, source: store, blobKey: key, onProgress: 42 as never };
    expect(await rejectionCodeOf(openExpoMedia(video, bad))).toBe('ERR_INVALID_ARGUMENT');
    expect(store.gets.length).toBe(0);
    await openExpoMedia(video, { fileSystem: fs, source: store, blobKey: key });
    expect(await rejectionCodeOf(openExpoMedia(video, bad))).toBe('ERR_INVALID_ARGUMENT');
  });

  it('the first open in a folder removes a dead run’s temp file but not a sink’s download in flight', async () => {
    const fs = fakeExpoFileSystem();
    // A folder of its own: the sweep runs once per folder and JS runtime.
    const directory = new fs.Directory(fs.Paths.cache, 'shared-with-a-sink');
    directory.create({ intermediates: true });
    const leftover = new fs.File(directory, `.${'cd'.repeat(12)}.partial`);
    leftover.create();
    const slow = storeWith(blob);
    slow.pieceDelayMs = 2;
    let opened: Promise<unknown> | undefined;
    let inFlight = 0;
    const sinking = downloadMedia(video, {
      source: slow,
      blobKey: key,
      sink: expoFileSink(fs, { directory }),
      onProgress: ({ done }) => {
        // Past its first 256 KiB write the sink's temp file exists: the cache's first open in this
        // folder sweeps the folder now.
        if (done > 600_000 && opened === undefined) {
          inFlight = filesOn(fs).filter((path) => path.endsWith('.partial')).length;
          opened = openExpoMedia(video, { fileSystem: fs, source: storeWith(blob), blobKey: key, directory });
        }
      },
    });
    const saved = (await sinking) as unknown as FakeFile;
    expect(inFlight).toBe(2); // the dead run's and the sink's
    const cached = (await opened) as FakeFile;
    expect(leftover.exists).toBe(false);
    expect(same(saved.bytesSync(), plain)).toBe(true);
    expect(same(cached.bytesSync(), plain)).toBe(true);
    expect(filesOn(fs).filter((path) => path.endsWith('.partial'))).toEqual([]);
  });

  it('removes a killed run’s temp files, and plays v1 blobs', async () => {
    const fs = fakeExpoFileSystem();
    // Its own folder: the sweep runs once per folder and process.
    const directory = new fs.Directory(fs.Paths.cache, 'sweep-test');
    const leftover = new fs.File(directory, `.${'ab'.repeat(12)}.partial`);
    leftover.create({ intermediates: true });
    const small = testBytes(5000, 3);
    const store = storeWith(encryptV1Blob(small, key), 'media/expov1000000000000000000');
    const file = await openExpoMedia(
      { ref: 'media/expov1000000000000000000', format: 'v1', mimeType: 'image/jpeg' },
      { fileSystem: fs, source: store, blobKey: key, directory },
    );
    expect(leftover.exists).toBe(false);
    expect(file.uri).toMatch(/\/media\.jpg$/);
    expect(same((file as unknown as FakeFile).bytesSync(), small)).toBe(true);
  });
});
