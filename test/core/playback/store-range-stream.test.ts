/**
 * storeRangeSource's `stream`: the same bytes as `read`, as the store sends them (resuming a dropped
 * connection inside the range), and leaving the loop early cancels the store's response even without
 * an abort signal (the Service Worker's case).
 */
import { describe, expect, it } from 'vitest';
import { joinBytes } from '../../../src/core/bytes.js';
import type { ReadableBlobStore } from '../../../src/core/playback/resumable-download.js';
import { storeRangeSource } from '../../../src/core/playback/store-reads.js';
import { testBytes } from '../blob/blob-test-utils.js';

const REF = 'media/streamtest000000000000000';
const bytes = testBytes(100_000, 3);

/** A store that sends 1000-byte pieces, can drop its first response after `dropAfter` bytes, and records cancels. */
function pieceStore(dropAfter?: number) {
  const seen = { gets: [] as { offset: number; length: number }[], cancels: 0 };
  let dropNext = dropAfter;
  const store: ReadableBlobStore = {
    head: async () => ({ size: bytes.length }),
    async get(_ref, range) {
      const offset = range?.offset ?? 0;
      const length = range?.length ?? bytes.length - offset;
      seen.gets.push({ offset, length });
      const drop = dropNext;
      dropNext = undefined;
      let sent = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (drop !== undefined && sent >= drop) return controller.error(new Error('connection reset'));
          if (sent >= length) return controller.close();
          const n = Math.min(1000, length - sent);
          controller.enqueue(bytes.slice(offset + sent, offset + sent + n));
          sent += n;
        },
        cancel() {
          seen.cancels++;
        },
      });
    },
  };
  return { store, seen };
}

describe('storeRangeSource stream', () => {
  it('yields the range as the store sends it, resuming a dropped response where it stopped', async () => {
    const { store, seen } = pieceStore(4500);
    const source = storeRangeSource(store, REF, { retryDelayMs: 1 });
    const stream = source.stream as NonNullable<typeof source.stream>;
    const pieces: Uint8Array[] = [];
    for await (const piece of stream(10_000, 20_000)) pieces.push(piece.slice());
    expect(pieces.length).toBeGreaterThan(1);
    expect(joinBytes(pieces)).toEqual(bytes.subarray(10_000, 30_000));
    expect(await source.read(10_000, 20_000)).toEqual(bytes.subarray(10_000, 30_000));
    expect(seen.gets[0]).toEqual({ offset: 10_000, length: 20_000 });
    expect(seen.gets[1]?.offset).toBeGreaterThan(10_000); // resumed, not restarted
  });

  it('cancels the store response when the loop ends early, without any abort signal', async () => {
    const { store, seen } = pieceStore();
    const stream = storeRangeSource(store, REF).stream as NonNullable<RangeStream>;
    for await (const _ of stream(0, 50_000)) break;
    expect(seen.cancels).toBe(1);
    expect(seen.gets).toHaveLength(1);
  });
});

type RangeStream = ReturnType<typeof storeRangeSource>['stream'];
