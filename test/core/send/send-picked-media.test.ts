/**
 * The universal send path (`sendPickedMedia`): what a picker knows plus a source of bytes → a blob
 * encrypted as a stream bound to the ref the store issued → the v2 message (photo, video or file, chosen
 * from the MIME type and what is given) → sealed. Against an in-memory store that writes as the body
 * arrives and deletes on a failed upload (as the stores built on `createWithPut` do): every bad field is
 * a typed error before anything is read or stored and the source is let go; a source that gives more or
 * fewer bytes than its size, or an abort, stores nothing; the ThumbHash is `thumbhashFromImage`'s of the
 * thumbnail; the envelope opens over Node's cipher and over expo-crypto's own web AES; Node's `sendMedia`
 * builds the same message from the same facts (one builder).
 */
import sharp from 'sharp';
import { rgbaToThumbHash } from 'thumbhash';
import { describe, expect, it } from 'vitest';
import { expoCryptoAesGcm } from '../../../src/core/aes-gcm/expo-crypto.js';
import { ciphertextSize, decryptBlob, mediaBlobContext } from '../../../src/core/blob/index.js';
import { equalBytes, randomBytes, toBase64 } from '../../../src/core/bytes.js';
import { dataKey, legacyKey, openMessage, openMessageAsync } from '../../../src/core/envelope/index.js';
import { thumbhashFromImage } from '../../../src/core/media/index.js';
import { downloadMedia, memorySink } from '../../../src/core/playback/index.js';
import { assertSessionMessage } from '../../../src/core/protocol/index.js';
import { type PickedMedia, sendPickedMedia } from '../../../src/core/send/index.js';
import type { BlobStore } from '../../../src/core/storage/index.js';
import { nodeRuntime } from '../../../src/node/runtime/index.js';
import { nodeAesGcm } from '../../../src/node/runtime/node-aes-gcm.js';
import { sendMedia } from '../../../src/node/send/index.js';
import { asAsync } from '../../helpers/aes-gcm.js';
import { rejectionCodeOf, rejectionOf } from '../../helpers/errors.js';
import { loadExpoCryptoAes } from '../../helpers/expo-crypto.js';
import { withRuntime } from '../../helpers/installed.js';
import { memoryStore } from '../../helpers/memory-store.js';

/** A ThumbHash of a small flat picture, as thumbhashFromImage would give for a ≤ 100 px image. */
const THUMBHASH = toBase64(rgbaToThumbHash(8, 6, new Uint8Array(8 * 6 * 4).fill(200)));

/** A stream of `bytes` in pieces, which records whether it was cancelled. */
function streamOf(bytes: Uint8Array, piece = 1000) {
  let at = 0;
  const state = { cancelled: false, pulled: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        state.pulled += 1;
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(at, at + piece));
        at += piece;
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return Object.assign(stream, { state });
}

const blobKey = randomBytes(32);

describe('sendPickedMedia', () => {
  it('a photo: the blob is bound to the issued ref and decrypts to the bytes; the message and its envelope', async () => {
    const store = memoryStore();
    const bytes = randomBytes(50_000);
    const sealKey = dataKey(randomBytes(32));
    const result = await sendPickedMedia(
      {
        source: bytes,
        name: 'IMG_0001.JPG',
        mimeType: 'image/JPEG',
        width: 4032,
        height: 3024,
        thumbhash: THUMBHASH,
      },
      { store, blobKey, sealKey, messageOptions: { id: 'm1', time: 1 } },
    );
    expect(result.message).toEqual({
      id: 'm1',
      time: 1,
      role: 'user',
      type: 'photo',
      ref: result.ref,
      thumbhash: THUMBHASH,
      width: 4032,
      height: 3024,
    });
    expect(result.details).toMatchObject({
      kind: 'photo',
      mimeType: 'image/jpeg',
      size: 50_000,
      name: 'IMG_0001.JPG',
    });
    expect(result.ciphertextSize).toBe(ciphertextSize(50_000));
    const blob = store.blobs.get(result.ref) as Uint8Array;
    expect(blob.length).toBe(result.ciphertextSize);
    expect(await decryptBlob(blob, blobKey, { context: mediaBlobContext(result.ref) })).toEqual(bytes);
    // Played back as any client plays it: the message through downloadMedia from the store.
    expect(await downloadMedia(result.message, { source: store, blobKey, sink: memorySink() })).toEqual(
      bytes,
    );
    expect(assertSessionMessage(structuredClone(result.message), { mode: 'strict' })).toEqual(result.message);
    expect(openMessage(result.envelope, sealKey)).toEqual(result.message);
  });

  it('the ThumbHash of `thumbnail` is thumbhashFromImage’s; a thumbnail that is not JPEG or PNG is refused before the upload', async () => {
    const picture = await sharp({
      create: { width: 80, height: 60, channels: 3, background: { r: 200, g: 40, b: 90 } },
    })
      .composite([
        {
          input: { create: { width: 30, height: 60, channels: 3, background: { r: 10, g: 200, b: 30 } } },
          left: 0,
          top: 0,
        },
      ])
      .jpeg()
      .toBuffer();
    const thumbnail = new Uint8Array(picture);
    const store = memoryStore();
    const { message, details } = await sendPickedMedia(
      { source: randomBytes(10), name: 'a.heic', mimeType: 'image/heic', width: 800, height: 600, thumbnail },
      { store, blobKey },
    );
    expect(message).toMatchObject({ type: 'photo', thumbhash: await thumbhashFromImage(thumbnail) });
    expect(details.thumbhash).toBe(await thumbhashFromImage(thumbnail));
    const gif = new TextEncoder().encode('GIF89a\x01\x00\x01\x00\x00\x00\x00;');
    const fresh = memoryStore();
    const source = streamOf(randomBytes(10));
    expect(
      await rejectionCodeOf(() =>
        sendPickedMedia(
          { source, size: 10, name: 'a.jpg', mimeType: 'image/jpeg', width: 8, height: 8, thumbnail: gif },
          { store: fresh, blobKey },
        ),
      ),
    ).toBe('ERR_PROBE_FAILED');
    expect(fresh.created).toEqual([]);
    expect(source.state).toEqual({ cancelled: true, pulled: 0 });
  });

  it('a video from a stream with its size, as the agent in a turn; a file for everything else', async () => {
    const store = memoryStore();
    const clip = randomBytes(70_000);
    const video = await sendPickedMedia(
      {
        source: streamOf(clip),
        size: clip.length,
        name: 'clip.mov',
        mimeType: 'video/quicktime',
        width: 1080,
        height: 1920,
        durationMs: 4200,
        thumbhash: THUMBHASH,
      },
      { store, blobKey, turn: 'turn_1' },
    );
    expect(video.message).toMatchObject({
      role: 'agent',
      turn: 'turn_1',
      type: 'video',
      width: 1080,
      height: 1920,
      durationMs: 4200,
      mimeType: 'video/quicktime',
      size: 70_000,
    });
    expect(
      await decryptBlob(store.blobs.get(video.ref)!, blobKey, { context: mediaBlobContext(video.ref) }),
    ).toEqual(clip);
    const cases: [Partial<PickedMedia>, string][] = [
      [{ mimeType: 'application/pdf', name: 'a/b/report.pdf' }, 'file'],
      // An image from a document picker (no dimensions, no thumbnail) is a file.
      [{ mimeType: 'image/png' }, 'file'],
      [{ mimeType: 'video/mp4' }, 'file'],
      // SVG is a document (it can carry script): a file, whatever is given.
      [{ mimeType: 'image/svg+xml', width: 10, height: 10, thumbhash: THUMBHASH }, 'file'],
      // Asked for as a file, a photo is sent as one.
      [{ mimeType: 'image/png', width: 10, height: 10, thumbhash: THUMBHASH, kind: 'file' }, 'file'],
      [{ mimeType: 'image/webp', width: 10, height: 10, thumbhash: THUMBHASH, kind: 'photo' }, 'photo'],
    ];
    for (const [fields, type] of cases) {
      const { message } = await sendPickedMedia(
        { source: randomBytes(10), name: 'x.bin', ...fields } as PickedMedia,
        { store, blobKey },
      );
      expect(message.type, JSON.stringify(fields)).toBe(type);
    }
    const pdf = await sendPickedMedia(
      { source: randomBytes(3), name: '../../etc/report\u202Efdp.exe', mimeType: 'application/pdf' },
      { store, blobKey },
    );
    expect(pdf.message).toMatchObject({
      type: 'file',
      name: 'reportfdp.exe',
      size: 3,
      mimeType: 'application/pdf',
    });
  });

  it('refuses what the picker got wrong with ERR_INVALID_ARGUMENT before anything is read or stored, and lets the source go', async () => {
    const good = {
      name: 'a.png',
      mimeType: 'image/png',
      size: 100,
      width: 10,
      height: 10,
      thumbhash: THUMBHASH,
    };
    const bad: [string, Record<string, unknown>, RegExp][] = [
      ['no name', { name: '' }, /`name`/],
      ['name not a string', { name: 5 }, /`name`/],
      ['no MIME type', { mimeType: undefined }, /`mimeType`/],
      ['a MIME type with parameters', { mimeType: 'image/png; q=1' }, /no parameters/],
      ['a size that is not the source’s', { source: 'bytes', size: 99 }, /size of `source`/],
      ['a fractional size', { size: 1.5 }, /`size`/],
      ['a stream without a size', { size: undefined }, /expected `size`/],
      ['{ stream, size } with a bad size', { source: 'sized', sizeOfSource: -1 }, /`source.size`/],
      ['a zero width', { width: 0 }, /`width`/],
      ['a fractional height', { height: 10.5 }, /`height`/],
      ['a huge width', { width: 10_000_001 }, /`width`/],
      ['a fractional duration', { durationMs: 12.5 }, /`durationMs`/],
      ['a thumbhash that is not base64', { thumbhash: 'not base64!' }, /`thumbhash`/],
      ['a thumbhash too short', { thumbhash: 'AAA=' }, /`thumbhash`/],
      ['a thumbnail that is not bytes', { thumbhash: undefined, thumbnail: 'x.jpg' }, /`thumbnail`/],
      ['both thumbnail and thumbhash', { thumbnail: new Uint8Array(4) }, /received both/],
      ['an image with its size but no thumbnail', { thumbhash: undefined }, /thumbnail \(or thumbhash\)/],
      ['an image with a thumbnail but no size', { width: undefined, height: undefined }, /width, height/],
      ['a video without its duration', { mimeType: 'video/mp4' }, /durationMs/],
      ['a photo of a video type', { mimeType: 'video/mp4', kind: 'photo' }, /an image type/],
      ['a video of an image type', { durationMs: 1000, kind: 'video' }, /a video type/],
      ['an unknown kind', { kind: 'gif' }, /`kind`/],
    ];
    for (const [what, change, message] of bad) {
      const store = memoryStore();
      const stream = streamOf(randomBytes(100));
      const { source: form, sizeOfSource, ...fields } = change;
      const source =
        form === 'bytes' ? randomBytes(100) : form === 'sized' ? { stream, size: sizeOfSource } : stream;
      const error = await rejectionOf(() =>
        sendPickedMedia({ ...good, source, ...fields } as PickedMedia, { store, blobKey }),
      );
      expect(error.code, what).toBe('ERR_INVALID_ARGUMENT');
      expect(error.message, what).toMatch(message);
      expect(store.created, what).toEqual([]);
      if (form !== 'bytes') expect(stream.state, what).toEqual({ cancelled: true, pulled: 0 });
    }
    const store = memoryStore();
    for (const options of [
      null,
      { store: {}, blobKey },
      { store, blobKey: randomBytes(31) },
      { store, blobKey, role: 'agent' },
      { store, blobKey, role: 'user', turn: 't' },
      { store, blobKey, sealKey: { variant: 'x' } },
      { store, blobKey, onProgress: 5 },
    ]) {
      const stream = streamOf(randomBytes(100));
      expect(
        await rejectionCodeOf(() =>
          sendPickedMedia({ ...good, source: stream } as PickedMedia, options as never),
        ),
        JSON.stringify(options && Object.keys(options)),
      ).toBe('ERR_INVALID_ARGUMENT');
      expect(stream.state.cancelled).toBe(true);
    }
    expect(store.created).toEqual([]);
    expect(await rejectionCodeOf(() => sendPickedMedia(null as never, { store, blobKey }))).toBe(
      'ERR_INVALID_ARGUMENT',
    );
  });

  it('a source that gives fewer or more bytes than its size fails the upload and stores nothing', async () => {
    for (const [given, actual] of [
      [100_000, 99_999],
      [100_000, 100_001],
      [0, 1],
    ] as const) {
      const store = memoryStore();
      const source = streamOf(randomBytes(actual), 16_384);
      const error = await rejectionOf(() =>
        sendPickedMedia(
          { source, size: given, name: 'a.bin', mimeType: 'application/octet-stream' },
          { store, blobKey },
        ),
      );
      expect(error.code, `${given} vs ${actual}`).toBe('ERR_INVALID_ARGUMENT');
      expect(error.message).toMatch(new RegExp(`expected ${given} bytes from \`source\``));
      expect(store.created).toEqual([ciphertextSize(given)]);
      // The store had written what arrived; the failed upload deleted it.
      if (given > 0) expect(store.deleted).toHaveLength(1);
      expect(store.blobs.size).toBe(0);
    }
  });

  it('over the store’s limit: in parts and a manifest under the message’s ref, which plays back', async () => {
    const store = memoryStore(56 + 2 * 16400);
    const bytes = randomBytes(200_000);
    const sent = await sendPickedMedia(
      { source: streamOf(bytes), size: bytes.length, name: 'big.bin', mimeType: 'application/zip' },
      { store, blobKey },
    );
    expect(sent.parts).toBe(7);
    expect(store.created).toHaveLength(8);
    expect(sent.message.ref).toBe(sent.ref);
    const back = await downloadMedia(sent.message, { source: store, blobKey, sink: memorySink() });
    expect(equalBytes(back, bytes)).toBe(true);
  });

  it('a store whose attachments cannot hold one chunk: ERR_LIMIT_EXCEEDED before the upload, and the source is let go', async () => {
    const store = memoryStore(1000);
    const source = streamOf(randomBytes(2000));
    const code = await rejectionCodeOf(() =>
      sendPickedMedia(
        { source, size: 2000, name: 'big.bin', mimeType: 'application/zip' },
        { store, blobKey },
      ),
    );
    expect(code).toBe('ERR_LIMIT_EXCEEDED');
    expect(store.created).toEqual([]);
    expect(source.state).toEqual({ cancelled: true, pulled: 0 });
  });

  it('a store that fails without reading the body: ERR_UPLOAD_FAILED with the store’s error as cause, the source cancelled', async () => {
    const source = streamOf(randomBytes(5000));
    const failing: BlobStore = {
      async create(_size, body) {
        await body('media/abc');
        throw new Error('the server is down');
      },
      get: () => Promise.reject(new Error('unused')),
      head: () => Promise.reject(new Error('unused')),
    };
    await expect(
      sendPickedMedia(
        { source, size: 5000, name: 'a.bin', mimeType: 'application/octet-stream' },
        { store: failing, blobKey },
      ),
    ).rejects.toMatchObject({ code: 'ERR_UPLOAD_FAILED', cause: { message: 'the server is down' } });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(source.state.cancelled).toBe(true);
  });

  it('an abort during the upload is ERR_ABORTED and stores nothing; an abort after it deletes the blob', async () => {
    const store = memoryStore();
    const controller = new AbortController();
    let sent = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(c) {
        sent += 1;
        if (sent === 3) controller.abort();
        c.enqueue(randomBytes(16_384));
      },
    });
    const code = await rejectionCodeOf(() =>
      sendPickedMedia(
        { source, size: 16_384 * 10, name: 'a.bin', mimeType: 'application/octet-stream' },
        { store, blobKey, signal: controller.signal },
      ),
    );
    expect(code).toBe('ERR_ABORTED');
    expect(store.blobs.size).toBe(0);
    // Aborted as the upload completes: the blob the store confirmed is deleted, no message.
    const late = new AbortController();
    const code2 = await rejectionCodeOf(() =>
      sendPickedMedia(
        { source: randomBytes(100), name: 'a.bin', mimeType: 'application/octet-stream' },
        {
          store,
          blobKey,
          signal: late.signal,
          onProgress: ({ done, total }) => {
            if (done === total) late.abort();
          },
        },
      ),
    );
    expect(code2).toBe('ERR_ABORTED');
    expect(store.created).toHaveLength(2);
    expect(store.blobs.size).toBe(0);
    // Aborted before: nothing is created.
    expect(
      await rejectionCodeOf(() =>
        sendPickedMedia(
          { source: randomBytes(1), name: 'a', mimeType: 'text/plain' },
          { store, blobKey, signal: AbortSignal.abort() },
        ),
      ),
    ).toBe('ERR_ABORTED');
    expect(store.created).toHaveLength(2);
  });

  it.each([
    ['node:crypto driven as asynchronous', async () => asAsync(nodeAesGcm)],
    ['expo-crypto’s own web AES', async () => expoCryptoAesGcm(await loadExpoCryptoAes())],
  ])('over an asynchronous AES-GCM (%s) the blob and the envelope are the same format', async (_, make) => {
    const aesGcm = await make();
    for (const sealKey of [dataKey(randomBytes(32)), legacyKey(randomBytes(32))]) {
      const store = memoryStore();
      const bytes = randomBytes(200_000);
      const result = await withRuntime({ aesGcm }, () =>
        sendPickedMedia(
          {
            source: streamOf(bytes, 65_536),
            size: bytes.length,
            name: 'notes.txt',
            mimeType: 'text/plain',
          },
          { store, blobKey, sealKey },
        ),
      );
      // Opened over Node's cipher, and over the asynchronous one.
      expect(
        await decryptBlob(store.blobs.get(result.ref)!, blobKey, {
          context: mediaBlobContext(result.ref),
        }),
      ).toEqual(bytes);
      expect(openMessage(result.envelope, sealKey)).toEqual(result.message);
      expect(await withRuntime({ aesGcm }, () => openMessageAsync(result.envelope, sealKey))).toEqual(
        result.message,
      );
    }
  });

  it('every chunk and the envelope go through the runtime’s asynchronous cipher', async () => {
    const calls = { seal: 0, open: 0, inFlight: 0, maxInFlight: 0 };
    const bytes = randomBytes(200_000);
    await withRuntime({ ...nodeRuntime, aesGcm: asAsync(nodeAesGcm, { calls }) }, () =>
      sendPickedMedia(
        { source: bytes, name: 'notes.txt', mimeType: 'text/plain' },
        { store: memoryStore(), blobKey, sealKey: dataKey(randomBytes(32)) },
      ),
    );
    expect(calls.seal).toBe(Math.ceil(bytes.length / 16_384) + 1);
  });

  it('Node’s sendMedia builds the same message from the same facts (one builder)', async () => {
    const bytes = randomBytes(1000);
    const facts = { mimeType: 'video/mp4', width: 320, height: 240, durationMs: 2000, thumbhash: THUMBHASH };
    const build = { id: 'same', time: 5 };
    const picked = await sendPickedMedia(
      { source: bytes, name: 'clip.mp4', ...facts },
      { store: memoryStore(), blobKey, turn: 't1', messageOptions: build },
    );
    const node = await sendMedia(
      {
        bytes,
        name: 'clip.mp4',
        probe: { kind: 'video', size: bytes.length, name: 'clip.mp4', ...facts },
      },
      { store: memoryStore(), blobKey, turn: 't1', messageOptions: build },
    );
    expect({ ...node.message, ref: '' }).toEqual({ ...picked.message, ref: '' });
  });
});
