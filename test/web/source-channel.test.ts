/**
 * The blob source across a MessagePort (src/web/source-channel.ts), both halves over a real
 * MessageChannel (Node's, the same API as a browser's): the page's store answers, the worker reads it as
 * a store. Bytes, sizes, errors with their code and retryability, flow control, cancellation, and the
 * Service Worker's reading path (storeRangeSource + random access) over it with a dropped connection.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { encryptBlob, mediaBlobContext, openBlobRandomAccess } from '../../src/core/blob/index.js';
import { randomBytes } from '../../src/core/bytes.js';
import { AbortedError, StorageError, UnauthorizedError } from '../../src/core/errors.js';
import type { ReadableBlobStore } from '../../src/core/playback/resumable-download.js';
import { storeRangeSource } from '../../src/core/playback/store-reads.js';
import { isRetryableError, markRetryable } from '../../src/core/transport/retry.js';
import { channelBlobStore, SOURCE_PIECES_AHEAD, serveBlobSource } from '../../src/web/source-channel.js';
import { rejectionOf } from '../helpers/errors.js';

const REF = 'media/sourcechannel0000000000';

/** A store over `bytes` that hands out `piece`-byte pieces and records what it was asked and read. */
function memoryStore(bytes: Uint8Array, piece = 1000) {
  const log = { gets: [] as { offset: number; length: number }[], pulled: 0, cancelled: 0, aborted: 0 };
  const store: ReadableBlobStore = {
    head: async () => ({ size: bytes.length }),
    get: async (_ref, range, options) => {
      const offset = range?.offset ?? 0;
      const end = Math.min(bytes.length, offset + (range?.length ?? bytes.length));
      log.gets.push({ offset, length: end - offset });
      options?.onSize?.(bytes.length);
      options?.signal?.addEventListener('abort', () => log.aborted++);
      let at = offset;
      return new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            if (at >= end) return controller.close();
            log.pulled++;
            controller.enqueue(bytes.slice(at, Math.min(end, at + piece)));
            at += piece;
          },
          cancel() {
            log.cancelled++;
          },
        },
        { highWaterMark: 0 },
      );
    },
  };
  return { store, log };
}

const stops: (() => void)[] = [];
/** The two halves wired over a fresh MessageChannel. */
function wire(store: ReadableBlobStore): ReadableBlobStore {
  const channel = new MessageChannel();
  stops.push(serveBlobSource(store, REF, channel.port1));
  const worker = channelBlobStore(channel.port2);
  stops.push(() => channel.port2.close());
  return worker;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe('blob source across a MessagePort', () => {
  it('answers head and ranged or whole gets with the store’s bytes and size', async () => {
    const bytes = randomBytes(10_000);
    const { store, log } = memoryStore(bytes);
    const worker = wire(store);
    expect(await worker.head(REF)).toEqual({ size: 10_000 });
    const sizes: number[] = [];
    for (const [offset, length] of [
      [0, 10_000],
      [1234, 1],
      [9_999, 1],
      [500, 4321],
    ] as const) {
      const got = await readAll(await worker.get(REF, { offset, length }, { onSize: (n) => sizes.push(n) }));
      expect(got).toEqual(bytes.subarray(offset, offset + length));
    }
    expect(await readAll(await worker.get(REF))).toEqual(bytes);
    expect(sizes).toEqual([10_000, 10_000, 10_000, 10_000]);
    expect(log.gets.at(-1)).toEqual({ offset: 0, length: 10_000 });
  });

  it('carries errors across with their class, code and whether a retry may get past them', async () => {
    const failing = (error: unknown): ReadableBlobStore => ({
      head: async () => {
        throw error;
      },
      get: async () => {
        throw error;
      },
    });
    const notFound = await rejectionOf(
      wire(failing(new StorageError('gone', { code: 'ERR_NOT_FOUND' }))).get(REF),
    );
    expect(notFound).toBeInstanceOf(StorageError);
    expect(notFound.code).toBe('ERR_NOT_FOUND');
    expect(notFound.message).toBe('gone');
    expect(isRetryableError(notFound)).toBe(false);

    const transient = markRetryable(new StorageError('503', { code: 'ERR_DOWNLOAD_FAILED' }));
    const revived = await rejectionOf(wire(failing(transient)).head(REF));
    expect(revived.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(isRetryableError(revived)).toBe(true);

    const token = await rejectionOf(wire(failing(new UnauthorizedError('refused'))).get(REF));
    expect(token).toBeInstanceOf(UnauthorizedError);
    expect(isRetryableError(token)).toBe(false);

    // A foreign error (the browser's fetch, an app's store) is a download failure, presumed transient
    // as the retry policy presumes it in the page.
    const foreign = await rejectionOf(wire(failing(new TypeError('Failed to fetch'))).get(REF));
    expect(foreign.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(foreign.message).toMatch(/Failed to fetch/);
    expect(isRetryableError(foreign)).toBe(true);

    // An error in the middle of a body ends the worker's stream with it.
    const bytes = randomBytes(5000);
    const midway: ReadableBlobStore = {
      head: async () => ({ size: bytes.length }),
      get: async () =>
        new ReadableStream(
          {
            start(controller) {
              controller.enqueue(bytes.subarray(0, 1000));
            },
            pull(controller) {
              controller.error(markRetryable(new StorageError('cut', { code: 'ERR_DOWNLOAD_FAILED' })));
            },
          },
          { highWaterMark: 0 },
        ),
    };
    const reader = (await wire(midway).get(REF)).getReader();
    expect((await reader.read()).value).toEqual(bytes.subarray(0, 1000));
    const cut = await rejectionOf(reader.read());
    expect(cut.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(isRetryableError(cut)).toBe(true);
  });

  it('reads at most a few pieces ahead of the worker, and a cancel stops the page’s read', async () => {
    const { store, log } = memoryStore(randomBytes(1000 * 100));
    const body = await wire(store).get(REF, { offset: 0, length: 1000 * 100 });
    await tick(50);
    // Nothing consumed: the page stopped after the pieces it may send ahead.
    expect(log.pulled).toBeLessThanOrEqual(SOURCE_PIECES_AHEAD + 1);
    const reader = body.getReader();
    for (let i = 0; i < 3; i++) await reader.read();
    await tick(50);
    expect(log.pulled).toBeLessThanOrEqual(SOURCE_PIECES_AHEAD + 4);
    await reader.cancel();
    await tick(50);
    expect(log.aborted).toBe(1);
    expect(log.cancelled).toBe(1);
    expect(log.pulled).toBeLessThan(100);
  });

  it('an aborted signal rejects the get and cancels the page’s read', async () => {
    const { store, log } = memoryStore(randomBytes(100_000));
    const worker = wire(store);
    const controller = new AbortController();
    const body = await worker.get(REF, { offset: 0, length: 100_000 }, { signal: controller.signal });
    controller.abort();
    expect(await rejectionOf(readAll(body))).toBeInstanceOf(AbortedError);
    await tick(50);
    expect(log.aborted).toBe(1);
    expect((await rejectionOf(worker.get(REF, undefined, { signal: controller.signal }))).code).toBe(
      'ERR_ABORTED',
    );
  });

  it('the worker’s reading path (storeRangeSource, random access) decrypts ranges through it and resumes a dropped read', async () => {
    const key = randomBytes(32);
    const plain = randomBytes(300_000);
    const blob = await encryptBlob(plain, key, { context: mediaBlobContext(REF) });
    const { store } = memoryStore(blob, 16_384);
    let drops = 1;
    const flaky: ReadableBlobStore = {
      head: store.head,
      async get(ref, range, options) {
        const body = await store.get(ref, range, options);
        if (drops === 0 || (range?.length ?? 0) < 100_000) return body;
        drops -= 1;
        // A connection that drops after two pieces (a plain Error: the browser's network error).
        const reader = body.getReader();
        let sent = 0;
        return new ReadableStream({
          async pull(controller) {
            if (sent++ === 2) {
              await reader.cancel();
              return controller.error(new TypeError('network error'));
            }
            const step = await reader.read();
            if (step.done) controller.close();
            else controller.enqueue(step.value);
          },
        });
      },
    };
    const source = storeRangeSource(wire(flaky), REF, { retryDelayMs: 1, maxRetryDelayMs: 2 });
    const reader = await openBlobRandomAccess(source, key, { context: mediaBlobContext(REF) });
    expect(reader.plaintextSize).toBe(plain.length);
    expect(await reader.read(123_456, 150_000)).toEqual(plain.subarray(123_456, 273_456));
    expect(drops).toBe(0);
    const pieces: Uint8Array[] = [];
    for await (const piece of reader.stream(250_000, 50_000)) pieces.push(piece);
    expect(new Uint8Array(await new Blob(pieces as BlobPart[]).arrayBuffer())).toEqual(
      plain.subarray(250_000, 300_000),
    );
  });
});
