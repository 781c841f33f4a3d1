/**
 * WriteBehind (batched writes that overlap the caller's work) and AtomicFileWriter.writeParts: order,
 * one write in flight, batching behind a slow write, the queue bound, failures, and settle.
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
      batches.push(parts);
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
  it('writes every piece in order, one batch at a time, gathering pieces behind a slow write', async () => {
    const disk = gatedWriter();
    const batched = new WriteBehind(disk.write, { batchBytes: 10, queueBytes: 1000 });
    await batched.add(piece(1)); // fills a batch: written at once
    expect(disk.batches).toHaveLength(1);
    for (let v = 2; v <= 5; v++) await batched.add(piece(v)); // queue behind the write in flight
    expect(disk.batches).toHaveLength(1);
    const flushed = batched.flush();
    disk.release();
    await tick();
    expect(disk.batches).toHaveLength(2); // the four queued pieces went in one call
    expect(disk.batches[1]).toHaveLength(4);
    disk.release();
    await flushed;
    expect(disk.maxInFlight).toBe(1);
    expect([...joinBytes(disk.batches.flat())]).toEqual([1, 2, 3, 4, 5].flatMap((v) => [...piece(v)]));
  });

  it('waits in add once the queue is full, until the write in flight is done', async () => {
    const disk = gatedWriter();
    const batched = new WriteBehind(disk.write, { batchBytes: 10, queueBytes: 30 });
    await batched.add(piece(1)); // in flight
    await batched.add(piece(2));
    await batched.add(piece(3));
    let accepted = false;
    const full = batched.add(piece(4)).then(() => {
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

  it('settle drops what is queued and waits for the write in flight', async () => {
    const disk = gatedWriter();
    const batched = new WriteBehind(disk.write, { batchBytes: 10 });
    await batched.add(piece(1));
    await batched.add(piece(2)); // queued
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
});
