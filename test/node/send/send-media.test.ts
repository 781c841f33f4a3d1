/**
 * sendMedia end to end over real stores: the stored bytes are ciphertext of the right size, the message
 * validates, the blob decrypts back to the original; failures and cancellation leave nothing stored.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ciphertextSize,
  decryptBlob,
  mediaBlobContext,
  plaintextSize,
} from '../../../src/core/blob/index.js';
import { dataKey, legacyKey, openMessage } from '../../../src/core/envelope/index.js';
import { StorageError } from '../../../src/core/errors.js';
import {
  decryptV1Blob,
  HAPPY_MAX_ATTACHMENT_BYTES,
  V1_BLOB_MAX_PLAINTEXT_BYTES,
} from '../../../src/core/happy/index.js';
import { parseSessionMessage } from '../../../src/core/protocol/index.js';
import { locateBinary } from '../../../src/node/media/ffmpeg-binaries.js';
import { openMedia } from '../../../src/node/playback/index.js';
import type { SendProgress } from '../../../src/node/send/index.js';
import { sendMedia } from '../../../src/node/send/index.js';
import {
  assertWithinStoreLimit,
  type BlobBody,
  type BlobStore,
  LocalBlobStore,
  type MediaServer,
  mediaRefId,
  openStore,
  startMediaServer,
  type WriteOptions,
} from '../../../src/node/storage/index.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { collect } from '../storage/store-contract.js';

const run = promisify(execFile);
let tmp: { dir: string; cleanup: () => Promise<void> };
const samples: Record<'photo' | 'video' | 'file' | 'big', string> = {
  photo: '',
  video: '',
  file: '',
  big: '',
};
const blobKey = new Uint8Array(randomBytes(32));

beforeAll(async () => {
  tmp = await makeTempDir();
  samples.photo = join(tmp.dir, 'shot.png');
  // Noise, so the PNG does not compress to nothing and plaintext substrings are distinctive.
  const noise = new Uint8Array(randomBytes(96 * 64 * 3));
  await sharp(noise, { raw: { width: 96, height: 64, channels: 3 } })
    .png()
    .toFile(samples.photo);
  samples.video = join(tmp.dir, 'clip.mp4');
  await run(
    locateBinary('ffmpeg').path,
    [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x120:rate=10:duration=1',
      '-pix_fmt',
      'yuv420p',
      '-c:v',
      'libx264',
      '-y',
      samples.video,
    ],
    { timeout: 60_000 },
  );
  samples.file = join(tmp.dir, 'notes.txt');
  await writeFile(
    samples.file,
    `${'The quick brown fox jumps over the lazy dog. '.repeat(2000)}\nend of notes\n`,
  );
  samples.big = join(tmp.dir, 'big.bin');
  await writeFile(samples.big, randomBytes(6 * 1024 * 1024));
});
afterAll(async () => tmp.cleanup());

function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.length).indexOf(Buffer.from(needle));
}

async function storedBytes(store: BlobStore, ref: string): Promise<Uint8Array> {
  return collect(await store.get(ref));
}

describe('sendMedia over a local store', () => {
  let store: LocalBlobStore;
  beforeAll(() => {
    store = new LocalBlobStore(join(tmp.dir, 'local'));
  });

  for (const kind of ['photo', 'video', 'file'] as const) {
    it(`sends a ${kind}: ciphertext stored, message valid, blob decrypts to the original`, async () => {
      const original = new Uint8Array(await readFile(samples[kind]));
      const events: SendProgress[] = [];
      const result = await sendMedia(samples[kind], {
        store,
        blobKey,
        role: 'agent',
        turn: 'turn_1',
        onProgress: (event) => events.push(event),
        // The bytes as they are (the default strips the video's metadata: tested in strip-metadata.test.ts).
        keepMetadata: true,
      });
      expect(result.probe.kind).toBe(kind);
      expect(result.message.type).toBe(kind);
      expect(result.message.ref).toBe(result.ref);
      expect(result.message).toMatchObject({ role: 'agent', turn: 'turn_1' });
      expect(parseSessionMessage(result.message, { mode: 'strict' }).success).toBe(true);

      const stored = await storedBytes(store, result.ref);
      expect(stored.length).toBe(ciphertextSize(original.length));
      expect(result.ciphertextSize).toBe(stored.length);
      for (const at of [0, Math.floor(original.length / 2), original.length - 48]) {
        expect(indexOfBytes(stored, original.subarray(at, at + 48)), `plaintext at ${at}`).toBe(-1);
      }
      expect(
        Buffer.from(await decryptBlob(stored, blobKey, { context: mediaBlobContext(result.ref) })).equals(
          Buffer.from(original),
        ),
      ).toBe(true);

      expect(events[0]).toEqual({ step: 'probe', done: 0, total: 1 });
      expect(events).toContainEqual({ step: 'probe', done: 1, total: 1 });
      expect(events.at(-1)).toEqual({ step: 'encrypt-upload', done: stored.length, total: stored.length });

      if (kind === 'photo') expect(result.message).toMatchObject({ width: 96, height: 64 });
      if (kind === 'video') {
        expect(result.message).toMatchObject({
          width: 160,
          height: 120,
          mimeType: 'video/mp4',
          size: original.length,
        });
        expect((result.message as { durationMs: number }).durationMs).toBeGreaterThan(900);
      }
      if (kind === 'file') {
        expect(result.message).toMatchObject({ name: 'notes.txt', size: original.length });
      }
    });
  }

  it('writes user messages without a turn, and refuses mismatched role and turn before any work', async () => {
    const result = await sendMedia(samples.file, { store, blobKey });
    expect(result.message.role).toBe('user');
    expect('turn' in result.message).toBe(false);
    await expect(sendMedia(samples.file, { store, blobKey, role: 'agent' })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
    await expect(sendMedia(samples.file, { store, blobKey, role: 'user', turn: 't' })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
    await expect(sendMedia(samples.file, { store, blobKey: new Uint8Array(31) })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
  });

  it('refuses a sealing key that is not a session key before anything is uploaded', async () => {
    let creates = 0;
    const counting = Object.assign(Object.create(store), {
      create: (...args: Parameters<LocalBlobStore['create']>) => {
        creates += 1;
        return store.create(...args);
      },
    }) as LocalBlobStore;
    await expect(
      sendMedia(samples.file, { store: counting, blobKey, sealKey: { variant: 'datakey' } as never }),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT', message: /options\.sealKey/ });
    expect(creates).toBe(0);
  });

  it('seals the message when given a session key (both variants)', async () => {
    for (const key of [
      dataKey(new Uint8Array(randomBytes(32))),
      legacyKey(new Uint8Array(randomBytes(32))),
    ]) {
      const result = await sendMedia(samples.photo, {
        store,
        blobKey,
        role: 'agent',
        turn: 'turn_2',
        sealKey: key,
      });
      expect(result.envelope?.t).toBe('encrypted');
      expect(openMessage(result.envelope, key)).toEqual(result.message);
    }
  });

  it('uses a new ref for every send (a retry never reuses a ref)', async () => {
    const a = await sendMedia(samples.file, { store, blobKey });
    const b = await sendMedia(samples.file, { store, blobKey });
    expect(a.ref).not.toBe(b.ref);
    expect(a.ref).toMatch(/^media\/[a-z0-9]+$/);
  });

  it('sends from a stream, probing a private spooled copy or using the given probe', async () => {
    const original = new Uint8Array(await readFile(samples.photo));
    const streamOf = () => new Blob([original]).stream() as ReadableStream<Uint8Array>;
    const spooled = await sendMedia(
      { stream: streamOf(), name: '../../etc/My Shot.png', size: original.length },
      { store, blobKey },
    );
    expect(spooled.message.type).toBe('photo');
    expect(spooled.probe.name).not.toContain('/');
    expect(
      Buffer.from(
        await decryptBlob(await storedBytes(store, spooled.ref), blobKey, {
          context: mediaBlobContext(spooled.ref),
        }),
      ).equals(Buffer.from(original)),
    ).toBe(true);

    const direct = await sendMedia(
      { stream: streamOf(), name: 'again.png', size: original.length, probe: spooled.probe },
      { store, blobKey },
    );
    expect(direct.message).toMatchObject({ type: 'photo', width: 96, height: 64 });
    expect(
      Buffer.from(
        await decryptBlob(await storedBytes(store, direct.ref), blobKey, {
          context: mediaBlobContext(direct.ref),
        }),
      ).equals(Buffer.from(original)),
    ).toBe(true);
  });

  it('fails and stores nothing when a stream is shorter than its announced size', async () => {
    const dir = join(tmp.dir, 'short');
    const shortStore = new LocalBlobStore(dir);
    const probe = { kind: 'file' as const, mimeType: 'application/octet-stream', size: 1000, name: 'x.bin' };
    await expect(
      sendMedia(
        { stream: new Blob([new Uint8Array(999)]).stream(), name: 'x.bin', size: 1000, probe },
        { store: shortStore, blobKey },
      ),
    ).rejects.toMatchObject({ code: 'ERR_UPLOAD_FAILED' });
    expect(await readdir(join(dir, 'media'))).toEqual([]);
  });

  it('cancels: stops the upload, deletes the partial blob, produces no message', async () => {
    const dir = join(tmp.dir, 'cancel');
    const cancelStore = new LocalBlobStore(dir);
    const controller = new AbortController();
    const sending = sendMedia(samples.big, {
      store: cancelStore,
      blobKey,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.step === 'encrypt-upload' && event.done > 1024 * 1024) controller.abort();
      },
    });
    await expect(sending).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    expect(await readdir(join(dir, 'media'))).toEqual([]);
    expect(await readdir(join(dir, '.partial'))).toEqual([]);
  });

  it('reports a missing input file as a probe error and stores nothing', async () => {
    await expect(sendMedia(join(tmp.dir, 'nope.png'), { store, blobKey })).rejects.toMatchObject({
      code: 'ERR_UNREADABLE_INPUT',
    });
  });
});

/**
 * A store that issues its own refs and names blobs itself, as Happy's server does, with neither `put` nor
 * `delete`: sendMedia must work with it by its capabilities alone (no class is known to the pipeline).
 */
class IssuingStore implements BlobStore {
  readonly issued: string[] = [];
  constructor(
    private readonly inner: LocalBlobStore,
    readonly maxBlobBytes?: number,
  ) {}
  async create(size: number, body: BlobBody, options?: WriteOptions): Promise<{ ref: string }> {
    assertWithinStoreLimit(this, size);
    const ref = `media/${crypto.randomUUID()}`;
    this.issued.push(ref);
    await this.inner.put(ref, await body(ref), size, options);
    return { ref };
  }
  get(...args: Parameters<BlobStore['get']>) {
    return this.inner.get(...args);
  }
  head(ref: string) {
    return this.inner.head(ref);
  }
  serverRef(ref: string): string {
    return `vault/${mediaRefId(ref)}.bin`;
  }
  mediaRef(name: string): string {
    const match = /^vault\/([0-9a-f-]{36})\.bin$/.exec(name);
    if (!match) throw new StorageError('not a vault name', { code: 'ERR_INVALID_REF' });
    return `media/${match[1]}`;
  }
}

describe('sendMedia over a store that issues its refs (create only, no put or delete)', () => {
  it('v2: the message carries the ref the store issued; v1: the event carries its server name', async () => {
    const store = new IssuingStore(new LocalBlobStore(join(tmp.dir, 'issuing')));
    const v2 = await sendMedia(samples.photo, { store, blobKey });
    expect(store.issued).toEqual([v2.ref]);
    expect(v2.message.ref).toBe(v2.ref);
    const original = new Uint8Array(await readFile(samples.photo));
    expect(
      Buffer.from(
        await decryptBlob(await storedBytes(store, v2.ref), blobKey, { context: mediaBlobContext(v2.ref) }),
      ).equals(Buffer.from(original)),
    ).toBe(true);
    const v1 = await sendMedia(samples.photo, { store, blobKey, format: 'v1' });
    expect(v1.message.ev.ref).toBe(store.serverRef(v1.ref));
    expect(store.mediaRef(v1.message.ev.ref)).toBe(v1.ref);
  });

  it('a failure after create (aborted once stored) throws, although the store cannot delete', async () => {
    const store = new IssuingStore(new LocalBlobStore(join(tmp.dir, 'issuing-abort')));
    const controller = new AbortController();
    const sending = sendMedia(samples.file, {
      store,
      blobKey,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.step === 'encrypt-upload' && event.done === event.total) controller.abort();
      },
    });
    await expect(sending).rejects.toMatchObject({ code: 'ERR_ABORTED' });
  });

  it('refuses a store without create before any work', async () => {
    const legacy = {
      put: async () => {},
      get: async () => new ReadableStream(),
      head: async () => ({ size: 0 }),
    };
    await expect(
      sendMedia(samples.file, { store: legacy as unknown as BlobStore, blobKey }),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
  });

  it('a store of the app that throws a plain Error is ERR_UPLOAD_FAILED, the store’s error its cause', async () => {
    const plain = {
      create: async () => Promise.reject(new Error('disk full')),
      get: async () => new ReadableStream(),
      head: async () => ({ size: 0 }),
    };
    await expect(
      sendMedia(samples.file, { store: plain as unknown as BlobStore, blobKey }),
    ).rejects.toMatchObject({ code: 'ERR_UPLOAD_FAILED', cause: { message: 'disk full' } });
  });
});

describe("sendMedia at Happy's 10 MiB cap (one constant: 10485760 bytes of ciphertext)", () => {
  it('v1: 10485720 bytes of plaintext go (10485760 stored); 10485721 and a 10 MiB file are refused before any upload, advising v2', async () => {
    expect(HAPPY_MAX_ATTACHMENT_BYTES).toBe(10_485_760);
    expect(V1_BLOB_MAX_PLAINTEXT_BYTES).toBe(HAPPY_MAX_ATTACHMENT_BYTES - 40);
    const dir = join(tmp.dir, 'v1-cap');
    const store = new LocalBlobStore(dir);
    const largest = join(tmp.dir, 'v1-largest.bin');
    await writeFile(largest, randomBytes(V1_BLOB_MAX_PLAINTEXT_BYTES));
    const sent = await sendMedia(largest, { store, blobKey, format: 'v1' });
    expect(sent.ciphertextSize).toBe(HAPPY_MAX_ATTACHMENT_BYTES);
    expect((await store.head(sent.ref)).size).toBe(HAPPY_MAX_ATTACHMENT_BYTES);
    expect(
      Buffer.from(decryptV1Blob(await storedBytes(store, sent.ref), blobKey)).equals(await readFile(largest)),
    ).toBe(true);
    for (const size of [V1_BLOB_MAX_PLAINTEXT_BYTES + 1, HAPPY_MAX_ATTACHMENT_BYTES]) {
      const over = join(tmp.dir, `v1-over-${size}.bin`);
      await writeFile(over, randomBytes(size));
      const capped = new IssuingStore(
        new LocalBlobStore(join(tmp.dir, `v1-over-${size}`)),
        HAPPY_MAX_ATTACHMENT_BYTES,
      );
      for (const target of [store, capped]) {
        const error = await sendMedia(over, { store: target, blobKey, format: 'v1' }).catch((e: Error) => e);
        expect(error).toMatchObject({ code: 'ERR_LIMIT_EXCEEDED' });
        expect((error as Error).message).toContain('at most 10485720 bytes of plaintext');
        expect((error as Error).message).toContain('as v2');
      }
      expect(capped.issued).toEqual([]);
    }
    expect(await readdir(join(dir, 'media'))).toEqual([mediaRefId(sent.ref)]);
  });

  it('v2 on a store capped at 10485760: a file of plaintextSize(10485760) is one attachment; one byte more goes in parts, and plays back', async () => {
    const fits = plaintextSize(HAPPY_MAX_ATTACHMENT_BYTES);
    expect(ciphertextSize(fits)).toBe(HAPPY_MAX_ATTACHMENT_BYTES);
    const store = new IssuingStore(new LocalBlobStore(join(tmp.dir, 'v2-cap')), HAPPY_MAX_ATTACHMENT_BYTES);
    const atCap = join(tmp.dir, 'v2-at-cap.bin');
    await writeFile(atCap, randomBytes(fits));
    const sent = await sendMedia(atCap, { store, blobKey });
    expect(sent.ciphertextSize).toBe(HAPPY_MAX_ATTACHMENT_BYTES);
    expect(sent.parts).toBe(1);
    expect((await store.head(sent.ref)).size).toBe(HAPPY_MAX_ATTACHMENT_BYTES);
    const over = join(tmp.dir, 'v2-over-cap.bin');
    const overBytes = randomBytes(fits + 1);
    await writeFile(over, overBytes);
    const progress: SendProgress[] = [];
    const parted = await sendMedia(over, { store, blobKey, onProgress: (event) => progress.push(event) });
    expect(parted.parts).toBe(2);
    expect(parted.ciphertextSize).toBe(ciphertextSize(fits + 1));
    // Two parts then the manifest, whose ref the message carries; every attachment within the cap.
    expect(store.issued.slice(1)).toHaveLength(3);
    expect(store.issued.at(-1)).toBe(parted.message.ref);
    for (const ref of store.issued)
      expect((await store.head(ref)).size).toBeLessThanOrEqual(HAPPY_MAX_ATTACHMENT_BYTES);
    // Progress counts bytes across the parts, up to the whole blob.
    const uploads = progress.filter((event) => event.step === 'encrypt-upload');
    expect(uploads.at(-1)).toMatchObject({ done: parted.ciphertextSize, total: parted.ciphertextSize });
    for (let i = 1; i < uploads.length; i++) {
      expect((uploads[i] as SendProgress).done).toBeGreaterThanOrEqual((uploads[i - 1] as SendProgress).done);
    }
    const media = await openMedia(parted.message, { store, blobKey });
    expect(Buffer.from(await readFile(media.path)).equals(overBytes)).toBe(true);
    await media.dispose();
  });

  it('v1 over the cap says to send v2', async () => {
    const store = new IssuingStore(new LocalBlobStore(join(tmp.dir, 'v1-cap')), HAPPY_MAX_ATTACHMENT_BYTES);
    const over = join(tmp.dir, 'v1-over-cap.bin');
    await writeFile(over, randomBytes(V1_BLOB_MAX_PLAINTEXT_BYTES + 1));
    const error = await sendMedia(over, { store, blobKey, format: 'v1' }).catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'ERR_LIMIT_EXCEEDED' });
    expect((error as Error).message).toMatch(/as v2/);
    expect(store.issued).toEqual([]);
  });
});

describe('sendMedia over the HTTP media server', () => {
  let server: MediaServer;
  let backing: LocalBlobStore;
  beforeAll(async () => {
    backing = new LocalBlobStore(join(tmp.dir, 'served'));
    server = await startMediaServer({ store: backing, maxUploadBytes: 2 * 1024 * 1024 });
  });
  afterAll(async () => server?.close());

  it('uploads through the server, and the server holds only ciphertext', async () => {
    const original = new Uint8Array(await readFile(samples.video));
    const result = await sendMedia(samples.video, {
      store: openStore(server.url),
      blobKey,
      role: 'agent',
      turn: 't9',
      keepMetadata: true,
    });
    const onDisk = new Uint8Array(await readFile(backing.pathOf(result.ref)));
    expect(onDisk.length).toBe(ciphertextSize(original.length));
    expect(indexOfBytes(onDisk, original.subarray(0, 32))).toBe(-1);
    expect(
      Buffer.from(await decryptBlob(onDisk, blobKey, { context: mediaBlobContext(result.ref) })).equals(
        Buffer.from(original),
      ),
    ).toBe(true);
  });

  it('a refused upload (over the server limit) yields no message and leaves nothing', async () => {
    await expect(sendMedia(samples.big, { store: openStore(server.url), blobKey })).rejects.toMatchObject({
      code: 'ERR_LIMIT_EXCEEDED',
    });
    const names = await readdir(join(backing.dir, 'media'));
    expect(names).toHaveLength(1);
  });
});

describe.skipIf(!process.env.HAPPY_MEDIA_S3_ENDPOINT)('sendMedia over S3 (real server)', () => {
  it('sends a photo into the bucket; the object is ciphertext that decrypts to the original', async () => {
    const store = openStore(`s3://${process.env.HAPPY_MEDIA_S3_BUCKET}/send-test-${Date.now().toString(36)}`);
    const original = new Uint8Array(await readFile(samples.photo));
    const result = await sendMedia(samples.photo, { store, blobKey, role: 'agent', turn: 'turn_s3' });
    const stored = await storedBytes(store, result.ref);
    expect(stored.length).toBe(ciphertextSize(original.length));
    expect(indexOfBytes(stored, original.subarray(100, 148))).toBe(-1);
    expect(
      Buffer.from(await decryptBlob(stored, blobKey, { context: mediaBlobContext(result.ref) })).equals(
        Buffer.from(original),
      ),
    ).toBe(true);
    await store.delete?.(result.ref);
  });
});
