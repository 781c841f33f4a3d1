/**
 * The resumable download on its own (no cryptography): for any pattern of dropped connections and any
 * network piece size, the bytes handed on are exactly the blob (nothing lost, nothing doubled), every
 * resume asks for the rest of the blob from a frame boundary, and resumes never go backwards. The same
 * download read as frames (`resumableFrames`, what downloadMedia reads) hands on the same bytes, reads a
 * bounded amount ahead of its consumer, reports a failure at the next read and stops at a cancel.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultDownloadDeadlineMs } from '../../../src/core/playback/index.js';
import {
  chunkedResumePoint,
  type FrameReader,
  resumableDownload,
  resumableFrames,
} from '../../../src/core/playback/resumable-download.js';
import { MemoryStore } from './helpers/memory-store.js';
import { pseudoRandomBytes, sameBytes } from './helpers/samples.js';

const REF = 'media/resumable000000000000000';
const point = chunkedResumePoint(56, 16400);

/** Arbitraries of a download: a blob size, where connections drop (bytes sent before each), a network piece size. */
const DROPPED_DOWNLOADS = [
  fc.integer({ min: 0, max: 300_000 }),
  fc.array(fc.integer({ min: 0, max: 60_000 }), { maxLength: 8 }),
  fc.integer({ min: 1, max: 40_000 }),
] as const;

/** How the property tests download REF: resumed at frame boundaries, at once, up to 20 times in a row. */
const RESUMING = { ref: REF, resumePoint: point, retryDelayMs: 0, retries: 20 } as const;

/** A store holding `blob` under REF, sent in `pieceBytes` pieces, each connection dropped after the next of `drops`. */
function droppingStore(blob: Uint8Array, pieceBytes: number, drops: readonly number[]): MemoryStore {
  const store = new MemoryStore();
  store.put(REF, blob);
  store.pieceBytes = pieceBytes;
  store.dropAfter = [...drops];
  return store;
}

describe('resumableDownload', () => {
  it('delivers the exact bytes in whole frames whatever the drops (property)', async () => {
    await fc.assert(
      fc.asyncProperty(...DROPPED_DOWNLOADS, async (size, drops, pieceBytes) => {
        const blob = pseudoRandomBytes(size, size + 1);
        const store = droppingStore(blob, pieceBytes, drops);
        const parts: Uint8Array[] = [];
        const attempts: number[] = [];
        const reader = resumableDownload({
          ...RESUMING,
          store,
          size,
          onAttempt: (offset) => attempts.push(offset),
        }).getReader();
        let handed = 0;
        const ends: number[] = [];
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parts.push(value);
          handed += value.length;
          ends.push(handed);
        }
        expect(sameBytes(Buffer.concat(parts), blob)).toBe(true);
        // A drop can only end an attempt; there is one attempt per drop used, plus the last.
        expect(attempts.length).toBeLessThanOrEqual(drops.length + 1);
        for (const offset of attempts) expect(point(offset) === offset || offset === size).toBe(true);
        for (let i = 1; i < attempts.length; i++)
          expect(attempts[i]!).toBeGreaterThanOrEqual(attempts[i - 1]!);
        expect(store.gets.map((g) => g.offset)).toEqual(attempts);
        for (const get of store.gets) expect(get.offset + get.length).toBe(size);
        const lastEnd = ends.at(-1) ?? 0;
        expect(lastEnd).toBe(size);
      }),
      { numRuns: 40 },
    );
  });

  it('stops fetching once the consumer cancels (a failed tag never triggers a retry)', async () => {
    const store = new MemoryStore();
    store.put(REF, pseudoRandomBytes(200_000));
    const reader = resumableDownload({ store, ref: REF, size: 200_000, resumePoint: point }).getReader();
    await reader.read();
    await reader.cancel(new Error('tag failed'));
    await new Promise((r) => setTimeout(r, 20));
    expect(store.gets).toHaveLength(1);
  });

  it('fails with ERR_DOWNLOAD_FAILED, at once, when the store sends more than it announced', async () => {
    let gets = 0;
    const liar = {
      head: async () => ({ size: 500 }),
      get: async () => {
        gets++;
        return new Blob([pseudoRandomBytes(1000) as Uint8Array<ArrayBuffer>]).stream();
      },
    };
    const reader = resumableDownload({ store: liar, ref: REF, size: 500, retryDelayMs: 0 }).getReader();
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) break;
      })(),
    ).rejects.toMatchObject({
      code: 'ERR_DOWNLOAD_FAILED',
      message: expect.stringContaining('more than the 500 bytes'),
    });
    expect(gets).toBe(1);
  });

  it('treats a silent connection as dropped after idleTimeoutMs', async () => {
    const store = new MemoryStore();
    store.put(REF, pseudoRandomBytes(50_000));
    store.pieceDelayMs = 200;
    const reader = resumableDownload({
      store,
      ref: REF,
      size: 50_000,
      idleTimeoutMs: 20,
      retries: 1,
      retryDelayMs: 0,
    }).getReader();
    await expect(reader.read()).rejects.toMatchObject({
      code: 'ERR_DOWNLOAD_FAILED',
      message: expect.stringContaining('nothing new arrived for 20 ms (idleTimeoutMs)'),
    });
    expect(store.gets).toHaveLength(2);
  });

  /**
   * Issue 24, item 7: a store that drips 2 bytes every few milliseconds never stalls, so before there was
   * no deadline at all (the download ran for as long as the drip lasted).
   */
  it('a dripping connection completes no frame within idleTimeoutMs: dropped, retried, then failed', async () => {
    const store = new MemoryStore();
    store.put(REF, pseudoRandomBytes(60_000));
    store.pieceBytes = 2;
    store.pieceDelayMs = 2;
    const reader = resumableDownload({
      store,
      ref: REF,
      size: 60_000,
      resumePoint: point,
      // The 56-byte header takes 28 drips: well inside 400 ms even on a loaded machine; a 16400-byte chunk
      // would take 16 s.
      idleTimeoutMs: 400,
      retries: 1,
      retryDelayMs: 0,
    }).getReader();
    let received = 0;
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        received += value.length;
      }
    })().catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'ERR_DOWNLOAD_FAILED',
      message: expect.stringContaining('nothing new arrived for 400 ms (idleTimeoutMs)'),
    });
    // The header frame (56 bytes) arrived; the first 16400-byte chunk never did.
    expect(received).toBe(56);
    expect(store.gets).toHaveLength(2);
  }, 20_000);

  it('a download that keeps progressing too slowly fails at deadlineMs, without a retry', async () => {
    const store = new MemoryStore();
    const size = 56 + 40 * 16400;
    store.put(REF, pseudoRandomBytes(size));
    store.pieceBytes = 16400;
    store.pieceDelayMs = 40;
    const reader = resumableDownload({
      store,
      ref: REF,
      size,
      resumePoint: point,
      deadlineMs: 300,
    }).getReader();
    let received = 0;
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        received += value.length;
      }
    })().catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'ERR_DOWNLOAD_FAILED',
      message: expect.stringMatching(
        /did not finish within 300 ms \(deadlineMs; \d+ of 656056 bytes arrived\)/,
      ),
    });
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(size);
    expect(store.gets).toHaveLength(1);
  }, 20_000);

  it('deadlines: checked, clamped to what a timer can wait, and a size-scaled default', async () => {
    const store = new MemoryStore();
    store.put(REF, pseudoRandomBytes(1000));
    for (const bad of [
      { idleTimeoutMs: 0 },
      { idleTimeoutMs: -1 },
      { deadlineMs: 1.5 },
      { deadlineMs: Number.NaN },
    ]) {
      expect(() => resumableDownload({ store, ref: REF, size: 1000, ...bad })).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      );
    }
    // 2^31 ms and more wait (the timer would otherwise fire after 1 ms and fail the download).
    const reader = resumableDownload({
      store,
      ref: REF,
      size: 1000,
      idleTimeoutMs: 2 ** 31,
      deadlineMs: 2 ** 40,
    }).getReader();
    store.pieceDelayMs = 30;
    let received = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.length;
    }
    expect(received).toBe(1000);
    expect(defaultDownloadDeadlineMs(0)).toBe(600_000);
    expect(defaultDownloadDeadlineMs(65_536 * 3600)).toBe(600_000 + 3_600_000);
    expect(defaultDownloadDeadlineMs(2 ** 50)).toBe(2 ** 31 - 1);
  });
});

/** Every frame `reader` hands on, in order, with where each read's frames end. */
async function readAllFrames(reader: FrameReader): Promise<{ frames: Uint8Array[]; ends: number[] }> {
  const frames: Uint8Array[] = [];
  const ends: number[] = [];
  let handed = 0;
  for (let batch = await reader.read(); batch !== undefined; batch = await reader.read()) {
    expect(batch.length).toBeGreaterThan(0);
    for (const frame of batch) {
      frames.push(frame);
      handed += frame.length;
    }
    ends.push(handed);
  }
  return { frames, ends };
}

describe('resumableFrames', () => {
  it('hands on the exact bytes, each read ending at a frame boundary, whatever the drops (property)', async () => {
    await fc.assert(
      fc.asyncProperty(...DROPPED_DOWNLOADS, async (size, drops, pieceBytes) => {
        const blob = pseudoRandomBytes(size, size + 7);
        const store = droppingStore(blob, pieceBytes, drops);
        const reader = resumableFrames({ ...RESUMING, store, size });
        const { frames, ends } = await readAllFrames(reader);
        expect(sameBytes(Buffer.concat(frames), blob)).toBe(true);
        for (const end of ends) expect(end === size || point(end) === end).toBe(true);
        expect(await reader.read()).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });

  it('reads ahead of a consumer that waits, but only a bounded amount (256 KiB and one network read)', async () => {
    const store = new MemoryStore();
    const size = 56 + 200 * 16400;
    store.put(REF, pseudoRandomBytes(size));
    store.pieceBytes = 65_536;
    const taken: number[] = [];
    const counting = {
      head: store.head.bind(store),
      get: async (...args: Parameters<MemoryStore['get']>) => {
        const body = await store.get(...args);
        return body.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(piece, controller) {
              taken.push(piece.length);
              controller.enqueue(piece);
            },
          }),
        );
      },
    };
    const reader = resumableFrames({ store: counting, ref: REF, size, resumePoint: point });
    const first = (await reader.read()) as Uint8Array[];
    await new Promise((resolve) => setTimeout(resolve, 50));
    const readAhead = taken.reduce((sum, n) => sum + n, 0) - first.reduce((sum, f) => sum + f.length, 0);
    expect(readAhead).toBeGreaterThan(0);
    expect(readAhead).toBeLessThanOrEqual(256 * 1024 + 2 * 65_536);
    const rest = await readAllFrames(reader);
    expect(Buffer.concat([...first, ...rest.frames]).length).toBe(size);
  });

  it('with endAtStoredSize, ends without an error where the store states the stored blob ends (nothing to resume)', async () => {
    for (const stored of [0, 30, 56, 430, 56 + 16400 + 7]) {
      for (const frames of [false, true]) {
        const store = new MemoryStore();
        const blob = pseudoRandomBytes(stored, stored + 3);
        store.put(REF, blob);
        store.pieceBytes = 100;
        store.reportedSize = stored;
        const options = { store, ref: REF, size: 100_000, resumePoint: point, endAtStoredSize: true };
        let bytes: Uint8Array;
        if (frames) bytes = Buffer.concat((await readAllFrames(resumableFrames(options))).frames);
        else bytes = new Uint8Array(await new Response(resumableDownload(options)).arrayBuffer());
        expect(sameBytes(bytes, blob)).toBe(true);
        expect(store.gets).toHaveLength(1);
      }
    }
    // Cut off before the stated end, stating nothing, or not asked to: a dropped connection, resumed.
    for (const [reportedSize, endAtStoredSize] of [
      [500, true],
      [undefined, true],
      [400, false],
    ] as const) {
      const store = new MemoryStore();
      store.put(REF, pseudoRandomBytes(400));
      store.reportedSize = reportedSize;
      const options = { store, ref: REF, size: 1000, retries: 2, retryDelayMs: 0, endAtStoredSize };
      await expect(readAllFrames(resumableFrames(options))).rejects.toMatchObject({
        code: 'ERR_DOWNLOAD_FAILED',
        message: expect.stringContaining('400 of 1000'),
      });
      expect(store.gets).toHaveLength(3);
    }
  });

  it('reports a failure at the next read, and stops fetching once cancelled', async () => {
    const liar = {
      head: async () => ({ size: 500 }),
      get: async () => new Blob([pseudoRandomBytes(1000) as Uint8Array<ArrayBuffer>]).stream(),
    };
    const failing = resumableFrames({ store: liar, ref: REF, size: 500, retryDelayMs: 0 });
    await expect(readAllFrames(failing)).rejects.toMatchObject({ code: 'ERR_DOWNLOAD_FAILED' });
    await expect(failing.read()).rejects.toMatchObject({ code: 'ERR_DOWNLOAD_FAILED' });

    const store = new MemoryStore();
    store.put(REF, pseudoRandomBytes(2_000_000));
    const reader = resumableFrames({ store, ref: REF, size: 2_000_000, resumePoint: point });
    await reader.read();
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.gets).toHaveLength(1);
    expect(await reader.read()).toBeUndefined();
  });
});

describe('the idle and deadline clocks', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('one timer serves a download of many reads, and none is left pending once it ends', async () => {
    const pending = new Set<unknown>();
    let set = 0;
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      set++;
      const handle = realSet(() => {
        pending.delete(handle);
        fn();
      }, ms);
      pending.add(handle);
      return handle;
    }) as typeof setTimeout);
    vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((handle: ReturnType<typeof setTimeout>) => {
      pending.delete(handle);
      realClear(handle);
    }) as typeof clearTimeout);
    const store = new MemoryStore();
    const size = 56 + 100 * 16400;
    store.put(REF, pseudoRandomBytes(size));
    store.pieceBytes = 16_384;
    const { frames } = await readAllFrames(resumableFrames({ store, ref: REF, size, resumePoint: point }));
    expect(Buffer.concat(frames).length).toBe(size);
    // About 100 network reads, each bounded by the idle clock: the timer is set once, not per read.
    expect(set).toBeLessThanOrEqual(2);
    expect(pending.size).toBe(0);
    // A cancelled download stops its clock too.
    const cancelled = resumableFrames({ store, ref: REF, size, resumePoint: point });
    await cancelled.read();
    await cancelled.cancel();
    expect(pending.size).toBe(0);
  });
});
