/**
 * The resumable download on its own (no cryptography): for any pattern of dropped connections and any
 * network piece size, the bytes handed on are exactly the blob (nothing lost, nothing doubled), every
 * resume asks for the rest of the blob from a frame boundary, and resumes never go backwards. Plus the
 * Range header parser of the streaming endpoint.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkedResumePoint, resumableDownload } from '../../../src/node/playback/index.js';
import { MemoryStore } from './helpers/memory-store.js';
import { pseudoRandomBytes, sameBytes } from './helpers/samples.js';

const REF = 'media/resumable000000000000000';
const point = chunkedResumePoint(56, 16400);

describe('resumableDownload', () => {
  it('delivers the exact bytes in whole frames whatever the drops (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 300_000 }),
        fc.array(fc.integer({ min: 0, max: 60_000 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 40_000 }),
        async (size, drops, pieceBytes) => {
          const blob = pseudoRandomBytes(size, size + 1);
          const store = new MemoryStore();
          store.put(REF, blob);
          store.pieceBytes = pieceBytes;
          store.dropAfter = [...drops];
          const parts: Uint8Array[] = [];
          const attempts: number[] = [];
          const reader = resumableDownload({
            store,
            ref: REF,
            size,
            resumePoint: point,
            retryDelayMs: 0,
            retries: 20,
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
        },
      ),
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

  it('treats a silent connection as dropped after stallTimeoutMs', async () => {
    const store = new MemoryStore();
    store.put(REF, pseudoRandomBytes(50_000));
    store.pieceDelayMs = 200;
    const reader = resumableDownload({
      store,
      ref: REF,
      size: 50_000,
      stallTimeoutMs: 20,
      retries: 1,
      retryDelayMs: 0,
    }).getReader();
    await expect(reader.read()).rejects.toMatchObject({
      code: 'ERR_DOWNLOAD_FAILED',
      message: expect.stringContaining('no data for 20 ms'),
    });
    expect(store.gets).toHaveLength(2);
  });
});
