/**
 * readFileAhead (sequential reads into two reused buffers, the next read in flight): every byte in order
 * at every size around a piece boundary, the buffers really are reused (so callers must copy), errors as
 * ERR_DISK, and the descriptor closed however the loop ends.
 */
import { execFile } from 'node:child_process';
import { open, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinBytes } from '../../../src/core/bytes.js';
import { readFileAhead } from '../../../src/node/fs/read-ahead.js';
import { testBytes } from '../../core/blob/blob-test-utils.js';
import { makeTempDir } from '../../helpers/tmp.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTempDir('happy-media-read-ahead-');
});
afterAll(() => tmp.cleanup());

const PIECE = 1000;

async function fileOf(name: string, bytes: Uint8Array): Promise<string> {
  const path = join(tmp.dir, name);
  await writeFile(path, bytes);
  return path;
}

/** Descriptors this process holds now (Linux); the count must come back after every loop. */
async function openDescriptors(): Promise<number> {
  return (await readdir('/proc/self/fd')).length;
}

describe('readFileAhead', () => {
  it.each([0, 1, PIECE - 1, PIECE, PIECE + 1, 3 * PIECE + 5])(
    'yields the %i bytes of a file in order, in pieces of at most the piece size',
    async (size) => {
      const bytes = testBytes(size, size + 1);
      const path = await fileOf(`file-${size}`, bytes);
      const pieces: Uint8Array[] = [];
      for await (const piece of readFileAhead(path, PIECE)) {
        expect(piece.length).toBeGreaterThan(0);
        expect(piece.length).toBeLessThanOrEqual(PIECE);
        pieces.push(piece.slice());
      }
      expect(joinBytes(pieces)).toEqual(bytes);
      expect(pieces.length).toBe(Math.ceil(size / PIECE));
    },
  );

  it('reuses two buffers: a piece kept without copying is overwritten two pieces later', async () => {
    const bytes = testBytes(4 * PIECE, 7);
    const path = await fileOf('reused', bytes);
    const kept: Uint8Array[] = [];
    for await (const piece of readFileAhead(path, PIECE)) kept.push(piece);
    // Pieces 0 and 2 share a buffer, as do 1 and 3: views kept past their turn show later bytes.
    expect(kept[0]?.buffer).toBe(kept[2]?.buffer);
    expect(kept[1]?.buffer).toBe(kept[3]?.buffer);
    expect(kept[0]?.buffer).not.toBe(kept[1]?.buffer);
    expect(kept[0]).not.toEqual(bytes.subarray(0, PIECE));
  });

  it('reads a FIFO (no positions) to its end, in order', async () => {
    const fifo = join(tmp.dir, 'pipe');
    await promisify(execFile)('mkfifo', [fifo]);
    const bytes = testBytes(5 * PIECE + 17, 9);
    const feeding = (async () => {
      const writer = await open(fifo, 'w');
      // Several writes, so that reads see the bytes arrive in parts.
      for (let at = 0; at < bytes.length; at += 700) await writer.write(bytes.subarray(at, at + 700));
      await writer.close();
    })();
    const pieces: Uint8Array[] = [];
    for await (const piece of readFileAhead(fifo, PIECE)) pieces.push(piece.slice());
    await feeding;
    expect(joinBytes(pieces)).toEqual(bytes);
  });

  it('a missing file or a directory is ERR_DISK naming the path', async () => {
    const missing = join(tmp.dir, 'missing');
    await expect(readFileAhead(missing).next()).rejects.toMatchObject({
      code: 'ERR_DISK',
      message: expect.stringContaining('ENOENT'),
    });
    await expect(readFileAhead(tmp.dir).next()).rejects.toMatchObject({
      code: 'ERR_DISK',
      message: expect.stringContaining('EISDIR'),
    });
  });

  it('closes the file when the loop ends early, throws, or runs to the end', async () => {
    const path = await fileOf('early', testBytes(5 * PIECE, 3));
    const before = await openDescriptors();
    for await (const _ of readFileAhead(path, PIECE)) break;
    await expect(
      (async () => {
        for await (const _ of readFileAhead(path, PIECE)) throw new Error('consumer failed');
      })(),
    ).rejects.toThrow('consumer failed');
    for await (const _ of readFileAhead(path, PIECE)) {
      // read to the end
    }
    expect(await openDescriptors()).toBe(before);
  });
});
