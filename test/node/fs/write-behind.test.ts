/**
 * WriteBehind (batched writes that overlap the caller's work) and AtomicFileWriter.writeParts: order,
 * one write in flight, copies of the pieces in full batches, the two-buffer bound, failures, and settle;
 * the ring with several writes at once; concurrent positioned writeParts and early writeback.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinBytes } from '../../../src/core/bytes.js';
import { AtomicFileWriter } from '../../../src/node/fs/atomic-file.js';
import { WriteBehind } from '../../../src/node/fs/write-behind.js';
import { makeTempDir } from '../../helpers/tmp.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTempDir('happy-media-write-behind-');
});
afterAll(() => tmp.cleanup());

/** A batch writer whose writes finish only when the test releases them. */
function gatedWriter() {
  const batches: Uint8Array[][] = [];
  const gates: (() => void)[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let failNext: Error | undefined;
  return {
    batches,
    get maxInFlight() {
      return maxInFlight;
    },
    get pending() {
      return gates.length;
    },
    failNextWith(error: Error) {
      failNext = error;
    },
    release() {
      gates.shift()?.();
    },
    write: (parts: Uint8Array[]) => {
      // Copied now: the writer may reuse its arrays once the write settled.
      batches.push(parts.map((part) => part.slice()));
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const failure = failNext;
      failNext = undefined;
      return new Promise<void>((resolve, reject) => {
        gates.push(() => {
          inFlight--;
          if (failure) reject(failure);
          else resolve();
        });
      });
    },
  };
}

const piece = (value: number, length = 10) => new Uint8Array(length).fill(value);
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('WriteBehind', () => {
  it('writes every piece in order, in full batches, one write at a time, from copies of the pieces', async () => {
    const disk = gatedWriter();
    const batched = new WriteBehind(disk.write, { batchBytes: 10 });
    const first = piece(1);
    await batched.add(first); // fills a batch: written at once
    expect(disk.batches).toHaveLength(1);
    // The piece was copied: the caller may reuse its array at once.
    first.fill(9);
    await batched.add(piece(2, 4));
    await batched.add(piece(3, 4)); // the second buffer fills behind the write in flight
    expect(disk.batches).toHaveLength(1);
    const flushed = batched.flush();
    disk.release();
    await tick();
    expect(disk.batches).toHaveLength(2);
    disk.release();
    await flushed;
    expect(disk.maxInFlight).toBe(1);
    expect([...joinBytes(disk.batches.flat())]).toEqual([...piece(1), ...piece(2, 4), ...piece(3, 4)]);
  });

  it('cuts a piece larger than a batch across batches', async () => {
    const disk = gatedWriter();
    const batched = new WriteBehind(disk.write, { batchBytes: 4 });
    const big = new Uint8Array(10).map((_, i) => i);
    const added = batched.add(big);
    for (let i = 0; i < 3; i++) {
      await tick();
      disk.release();
    }
    await added;
    const flushed = batched.flush();
    await tick();
    disk.release();
    await flushed;
    expect(disk.batches.map((b) => b.reduce((n, p) => n + p.length, 0))).toEqual([4, 4, 2]);
    expect([...joinBytes(disk.batches.flat())]).toEqual([...big]);
  });

  it('waits in add once both buffers are full, until the write in flight is done', async () => {
    const disk = gatedWriter();
    const batched = new WriteBehind(disk.write, { batchBytes: 10 });
    await batched.add(piece(1)); // in flight
    let accepted = false;
    const full = batched.add(piece(2)).then(() => {
      accepted = true;
    });
    await tick();
    expect(accepted).toBe(false);
    disk.release();
    await full;
    expect(accepted).toBe(true);
    disk.release();
    await batched.flush();
  });

  it('fails the next add and flush, and every later one, with a failed write’s error; nothing more is written', async () => {
    const disk = gatedWriter();
    const batched = new WriteBehind(disk.write, { batchBytes: 10 });
    const full = new Error('ENOSPC');
    disk.failNextWith(full);
    await batched.add(piece(1));
    disk.release();
    await tick();
    await expect(batched.add(piece(2))).rejects.toBe(full);
    await expect(batched.flush()).rejects.toBe(full);
    await expect(batched.add(piece(3))).rejects.toBe(full);
    expect(disk.batches).toHaveLength(1);
  });

  it('settle drops what is buffered and waits for the write in flight', async () => {
    const disk = gatedWriter();
    const batched = new WriteBehind(disk.write, { batchBytes: 10 });
    await batched.add(piece(1));
    await batched.add(piece(2, 5)); // buffered
    let settled = false;
    const done = batched.settle().then(() => {
      settled = true;
    });
    await tick();
    expect(settled).toBe(false);
    disk.release();
    await done;
    expect(disk.batches).toHaveLength(1);
    expect(disk.pending).toBe(0);
  });

  it('writes a small tail only at flush, and nothing for empty pieces', async () => {
    const disk = gatedWriter();
    const batched = new WriteBehind(disk.write, { batchBytes: 100 });
    await batched.add(new Uint8Array(0));
    await batched.add(piece(7, 3));
    expect(disk.batches).toHaveLength(0);
    const flushed = batched.flush();
    disk.release();
    await flushed;
    expect(disk.batches).toEqual([[piece(7, 3)]]);
  });
});

describe('WriteBehind with a ring of buffers and several writes at once', () => {
  it('hands the batches on in order, up to `writes` at once, and waits only when no write may start', async () => {
    const disk = gatedWriter();
    const batched = new WriteBehind(disk.write, { batchBytes: 4, buffers: 4, writes: 2 });
    await batched.add(piece(1, 4)); // written at once
    await batched.add(piece(2, 4)); // written at once: two in flight
    let accepted = false;
    const third = batched.add(piece(3, 4)).then(() => {
      accepted = true;
    });
    await tick();
    expect(accepted).toBe(false); // full, and no write may start
    expect(disk.batches).toHaveLength(2);
    disk.release();
    await third;
    expect(disk.batches).toHaveLength(3);
    const fourth = batched.add(piece(4, 4));
    await tick();
    disk.release();
    await fourth;
    const flushed = batched.flush();
    for (let i = 0; i < 4; i++) {
      await tick();
      disk.release();
    }
    await flushed;
    expect(disk.maxInFlight).toBe(2);
    expect(disk.batches.map((parts) => parts[0]?.[0])).toEqual([1, 2, 3, 4]);
  });

  it('does not refill a buffer whose write is still running when a later write finished first', async () => {
    const written: number[][] = [];
    const gates = new Map<number, () => void>();
    const write = (parts: Uint8Array[]) => {
      const first = parts[0]?.[0] as number;
      written.push([...(parts[0] as Uint8Array)]);
      return new Promise<void>((resolve) => gates.set(first, resolve));
    };
    const batched = new WriteBehind(write, { batchBytes: 2, buffers: 3, writes: 2 });
    await batched.add(new Uint8Array([1, 1, 2, 2])); // two batches in flight
    const third = batched.add(new Uint8Array([3, 3]));
    await tick();
    gates.get(2)?.(); // the second write finishes first: the third starts, in the third buffer
    await third;
    expect(written).toHaveLength(3);
    let accepted = false;
    const fourth = batched.add(new Uint8Array([4])).then(() => {
      accepted = true;
    });
    await tick();
    expect(accepted).toBe(false); // the first buffer is still being written
    expect(written[0]).toEqual([1, 1]);
    gates.get(1)?.();
    await fourth;
    const flushed = batched.flush();
    await tick();
    gates.get(3)?.();
    await tick();
    gates.get(4)?.();
    await flushed;
    expect(written).toEqual([[1, 1], [2, 2], [3, 3], [4]]);
  });

  it('fails the next add once any write failed, and flush waits for every write before it throws', async () => {
    const disk = gatedWriter();
    const batched = new WriteBehind(disk.write, { batchBytes: 2, buffers: 4, writes: 3 });
    const full = new Error('ENOSPC');
    disk.failNextWith(full);
    await batched.add(new Uint8Array([1, 1, 2, 2])); // the first fails, the second runs on
    disk.release();
    await tick();
    await expect(batched.add(new Uint8Array([3, 3]))).rejects.toBe(full);
    let flushed = false;
    const flushing = batched.flush().catch((error: unknown) => {
      flushed = true;
      return error;
    });
    await tick();
    expect(flushed).toBe(false); // the second write is still running
    disk.release();
    expect(await flushing).toBe(full);
    expect(disk.batches).toHaveLength(2);
  });
});

describe('AtomicFileWriter.writeParts', () => {
  it('appends the parts in order after earlier writes (views at any offset, empty parts skipped)', async () => {
    const writer = await AtomicFileWriter.create(tmp.dir, { sync: false });
    const big = new Uint8Array(300_000).map((_, i) => i % 251);
    await writer.write(piece(9, 5));
    await writer.writeParts([
      big.subarray(7, 200_000),
      new Uint8Array(0),
      big.subarray(200_000),
      piece(4, 3),
    ]);
    expect(writer.bytesWritten).toBe(5 + (200_000 - 7) + 100_000 + 3);
    const path = join(tmp.dir, 'parts.bin');
    await writer.commit(path);
    const want = joinBytes([piece(9, 5), big.subarray(7), piece(4, 3)]);
    expect(Buffer.compare(await readFile(path), want)).toBe(0);
  });

  it('places concurrent calls in the order they were made, whatever order they finish in', async () => {
    const writer = await AtomicFileWriter.create(tmp.dir, { sync: false });
    const parts = Array.from({ length: 12 }, (_, i) => new Uint8Array(100_000 + i).fill(i));
    await Promise.all(
      parts.map((part) => writer.writeParts([part.subarray(0, 50_000), part.subarray(50_000)])),
    );
    expect(writer.bytesWritten).toBe(parts.reduce((n, p) => n + p.length, 0));
    const path = join(tmp.dir, 'concurrent.bin');
    await writer.commit(path);
    expect(Buffer.compare(await readFile(path), joinBytes(parts))).toBe(0);
  });

  it('commits a file fsynced at the end that was written back early along the way', async () => {
    const writer = await AtomicFileWriter.create(tmp.dir);
    const piece = new Uint8Array(4 * 1024 * 1024).map((_, i) => i % 253);
    const writes = [];
    for (let i = 0; i < 20; i++) writes.push(writer.writeParts([piece]));
    await Promise.all(writes);
    const path = join(tmp.dir, 'written-back.bin');
    await writer.commit(path);
    expect((await readFile(path)).length).toBe(20 * piece.length);
  });
});
