/**
 * BlobReader.stream: the same bytes as `read` for any range, whether the source streams (in any piece
 * sizes) or only reads; each chunk released only after it verified, and released before the rest of
 * the range arrived; short, long or damaged sources refused; an abandoned stream stops its source; small
 * first windows (an abandoned open-ended request downloads little).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bufferRangeSource,
  encryptBlob,
  openBlobRandomAccess,
  type RangeSource,
  unboundBlobContext,
} from '../../../src/core/blob/index.js';
import { joinBytes } from '../../../src/core/bytes.js';
import '../../../src/node/runtime/index.js';
import { rejectionCodeOf } from '../../helpers/errors.js';
import { prng, testBytes } from './blob-test-utils.js';

const CHUNK = 16384;
const SEALED = 16400;
const HEADER = 56;
const key = testBytes(32, 41);
// 150 chunks and a short final one: long ranges cross several 16-chunk window boundaries.
const plaintext = testBytes(150 * CHUNK + 1234, 42);
const blob = await encryptBlob(plaintext, key, { context: unboundBlobContext() });

/** A source over `bytes` that streams each range in pieces whose sizes `sizes` picks; records requests. */
function streamingSource(bytes: Uint8Array, sizes: () => number) {
  const requests: { offset: number; length: number }[] = [];
  const memory = bufferRangeSource(bytes);
  const source: RangeSource = {
    size: memory.size,
    read: memory.read,
    async *stream(offset, length) {
      requests.push({ offset, length });
      const end = Math.min(bytes.length, offset + length);
      for (let at = offset; at < end; ) {
        const n = Math.max(1, Math.min(end - at, sizes()));
        yield bytes.slice(at, at + n);
        at += n;
      }
    },
  };
  return { source, requests };
}

/**
 * Byte equality that stays fast on megabytes (toEqual walks a typed array element by element, seconds per
 * MiB): the lengths, then the index of the first difference, which must be -1.
 */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length);
  let firstDifference = -1;
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) {
      firstDifference = i;
      break;
    }
  }
  expect(firstDifference).toBe(-1);
}

async function collect(pieces: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const out: Uint8Array[] = [];
  for await (const piece of pieces) out.push(piece.slice());
  return joinBytes(out);
}

describe('BlobReader.stream', () => {
  it('yields exactly the bytes of any range, from a streaming source in any piece sizes or a plain one', async () => {
    const plain = await openBlobRandomAccess(bufferRangeSource(blob), key, { context: unboundBlobContext() });
    await fc.assert(
      fc.asyncProperty(
        fc.nat(plaintext.length),
        fc.nat(plaintext.length),
        fc.integer({ min: 1, max: 3 * SEALED }),
        fc.integer({ min: 500, max: 2000 }),
        fc.integer(),
        async (a, b, maxPiece, minPiece, seed) => {
          const [offset, end] = a <= b ? [a, b] : [b, a];
          const random = prng(seed);
          // Pieces of 1 to 3 chunks and more, never so small that a megabyte range takes a million steps.
          const { source } = streamingSource(blob, () => minPiece + Math.floor(random() * maxPiece));
          const streaming = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
          const want = plaintext.subarray(offset, end);
          expectSameBytes(await collect(streaming.stream(offset, end - offset)), want);
          expectSameBytes(await collect(plain.stream(offset, end - offset)), want);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('gathers chunks from one-byte pieces', async () => {
    const { source } = streamingSource(blob, () => 1);
    const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
    expectSameBytes(
      await collect(reader.stream(CHUNK - 3, 2 * CHUNK)),
      plaintext.subarray(CHUNK - 3, 3 * CHUNK - 3),
    );
  });

  it('covers the edges: empty, the whole blob, inside the final chunk, one byte before it', async () => {
    const { source } = streamingSource(blob, () => 5000);
    const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
    const cases: [number, number][] = [
      [0, 0],
      [0, plaintext.length],
      [150 * CHUNK + 10, 100],
      [150 * CHUNK - 1, 2],
      [plaintext.length, 0],
    ];
    for (const [offset, length] of cases) {
      expectSameBytes(
        await collect(reader.stream(offset, length)),
        plaintext.subarray(offset, offset + length),
      );
    }
    await expect(rejectionCodeOf(() => collect(reader.stream(plaintext.length, 1)))).resolves.toBe(
      'ERR_INVALID_ARGUMENT',
    );
  });

  it('asks for a range of up to 32 chunks at once; a longer one in windows of 16 chunks', async () => {
    const { source, requests } = streamingSource(blob, () => 8192);
    const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
    requests.length = 0;
    expectSameBytes(
      await collect(reader.stream(CHUNK * 3 + 5, 32 * CHUNK - 5)),
      plaintext.subarray(CHUNK * 3 + 5, 35 * CHUNK),
    );
    expect(requests.map((r) => r.length / SEALED)).toEqual([32]);
    requests.length = 0;
    expectSameBytes(await collect(reader.stream(0, plaintext.length)), plaintext);
    expect(requests.map((r) => r.length / SEALED)).toEqual([...Array(9).fill(16), 6]);
    // An open-ended request abandoned after its first piece fetched one small window.
    requests.length = 0;
    const pieces = reader.stream(0, plaintext.length);
    await pieces.next();
    await pieces.return();
    expect(requests).toEqual([{ offset: HEADER, length: 16 * SEALED }]);
  });

  it('releases the first chunk before the rest of the range has arrived', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const memory = bufferRangeSource(blob);
    const source: RangeSource = {
      size: memory.size,
      read: memory.read,
      async *stream(offset, length) {
        yield blob.slice(offset, offset + SEALED + 100);
        await gate; // the rest only when the test says so
        yield blob.slice(offset + SEALED + 100, offset + length);
      },
    };
    const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
    const pieces = reader.stream(0, 4 * CHUNK);
    const first = await pieces.next();
    expectSameBytes(first.value as Uint8Array, plaintext.subarray(0, CHUNK));
    release();
    expectSameBytes(
      await collect({ [Symbol.asyncIterator]: () => pieces }),
      plaintext.subarray(CHUNK, 4 * CHUNK),
    );
  });

  it('releases the chunks before a damaged one, then fails, and nothing of the damaged chunk', async () => {
    const damaged = blob.slice();
    const at = HEADER + 5 * SEALED + 100; // in chunk 5
    damaged[at] = (damaged[at] as number) ^ 1;
    const { source } = streamingSource(damaged, () => 3000);
    const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
    const released: Uint8Array[] = [];
    const error = await (async () => {
      try {
        for await (const piece of reader.stream(2 * CHUNK + 7, 10 * CHUNK)) released.push(piece.slice());
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
    const got = joinBytes(released);
    expect(got.length).toBeLessThanOrEqual(5 * CHUNK - (2 * CHUNK + 7));
    expectSameBytes(got, plaintext.subarray(2 * CHUNK + 7, 2 * CHUNK + 7 + got.length));
  });

  it('refuses a source that sends fewer or more bytes than the chunks it was asked for', async () => {
    const memory = bufferRangeSource(blob);
    const lying = (delta: number): RangeSource => ({
      size: memory.size,
      read: memory.read,
      async *stream(offset, length) {
        yield blob.slice(offset, offset + length + delta);
      },
    });
    for (const delta of [-1, -SEALED, 1, 16]) {
      const reader = await openBlobRandomAccess(lying(delta), key, { context: unboundBlobContext() });
      await expect(rejectionCodeOf(() => collect(reader.stream(0, 3 * CHUNK)))).resolves.toBe(
        'ERR_DECRYPTION_FAILED',
      );
    }
  });
});
