/**
 * ChunkSplitter: any cut of the input into pieces gives the same whole chunks and the same rest; chunks
 * inside one piece are views of it, a chunk across pieces a copy; wipe zeroes and forgets the rest.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkSplitter } from '../../../src/core/blob/stream.js';
import { joinBytes } from '../../../src/core/bytes.js';

describe('ChunkSplitter', () => {
  it('cuts any sequence of pieces into the same whole chunks, the rest waiting', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.uint8Array({ maxLength: 100 }), { maxLength: 20 }),
        (size, pieces) => {
          const splitter = new ChunkSplitter(size);
          // Chunks are copied as they come: a caller may reuse a piece once done with its chunks.
          const chunks = pieces.flatMap((piece) => splitter.push(piece).map((chunk) => chunk.slice()));
          const all = joinBytes(pieces);
          const whole = Math.floor(all.length / size) * size;
          for (const chunk of chunks) expect(chunk.length).toBe(size);
          expect(joinBytes(chunks)).toEqual(all.subarray(0, whole));
          expect(splitter.rest).toEqual(all.subarray(whole));
        },
      ),
    );
  });

  it('hands out chunks inside a piece as views of it, a chunk across pieces as a copy', () => {
    const splitter = new ChunkSplitter(4);
    const first = new Uint8Array([1, 2, 3, 4, 5, 6]);
    const [inside] = splitter.push(first);
    expect(inside?.buffer).toBe(first.buffer);
    const second = new Uint8Array([7, 8, 9]);
    const [across] = splitter.push(second);
    expect(Array.from(across ?? [])).toEqual([5, 6, 7, 8]);
    expect(across?.buffer).not.toBe(second.buffer);
    second.fill(0); // the waiting byte was copied
    expect(Array.from(splitter.rest)).toEqual([9]);
  });

  it('wipe zeroes the waiting bytes and forgets them', () => {
    const splitter = new ChunkSplitter(8);
    splitter.push(new Uint8Array([1, 2, 3]));
    const view = splitter.rest;
    splitter.wipe();
    expect(Array.from(view)).toEqual([0, 0, 0]);
    expect(splitter.rest.length).toBe(0);
  });
});
