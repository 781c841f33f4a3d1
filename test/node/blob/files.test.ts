/**
 * Node adapters: encryptFile/decryptFile (all-or-nothing output, private temp files, ranges, { context: unboundBlobContext() }),
 * fileRangeSource and the Node Transform streams.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ciphertextSize,
  decryptBlob,
  encryptBlob,
  openBlobRandomAccess,
  unboundBlobContext,
} from '../../../src/core/blob/index.js';
import {
  createNodeDecryptStream,
  createNodeEncryptStream,
  decryptFile,
  encryptFile,
  fileRangeSource,
} from '../../../src/node/blob/index.js';
import { testBytes } from '../../core/blob/blob-test-utils.js';
import { makeTempDir } from '../../helpers/tmp.js';

const key = testBytes(32, 31);
const plaintext = testBytes(2 * 1024 * 1024 + 4321, 32);
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('happy-media-blob-'));
  await writeFile(join(dir, 'plain.bin'), plaintext);
});
afterAll(() => cleanup());

/** Files in the temp dir other than the given ones (to catch leftover temp files). */
async function strayFiles(...known: string[]): Promise<string[]> {
  return (await readdir(dir)).filter((f) => !known.includes(f) && !f.startsWith('keep-'));
}

describe('encryptFile / decryptFile', () => {
  it('round-trips a multi-MiB file; the outputs are private (0600) and the blob is exactly sized', async () => {
    await encryptFile(join(dir, 'plain.bin'), join(dir, 'blob.bin'), key, { context: unboundBlobContext() });
    const blobStat = await stat(join(dir, 'blob.bin'));
    expect(blobStat.size).toBe(ciphertextSize(plaintext.length));
    expect(blobStat.mode & 0o777).toBe(0o600);
    expect(
      Buffer.from(
        await decryptBlob(await readFile(join(dir, 'blob.bin')), key, { context: unboundBlobContext() }),
      ).equals(Buffer.from(plaintext)),
    ).toBe(true);
    await decryptFile(join(dir, 'blob.bin'), join(dir, 'back.bin'), key, { context: unboundBlobContext() });
    expect(Buffer.from(await readFile(join(dir, 'back.bin'))).equals(Buffer.from(plaintext))).toBe(true);
    expect((await stat(join(dir, 'back.bin'))).mode & 0o777).toBe(0o600);
    expect(await strayFiles('plain.bin', 'blob.bin', 'back.bin')).toEqual([]);
  });

  it('writes a plaintext range, reading only what it needs', async () => {
    for (const [offset, length] of [
      [0, 10],
      [16380, 40_000],
      [plaintext.length - 5, 5],
      [1_000_000, undefined],
    ] as const) {
      const out = join(dir, 'range.bin');
      await decryptFile(join(dir, 'blob.bin'), out, key, {
        context: unboundBlobContext(),
        offset,
        ...(length === undefined ? {} : { length }),
      });
      const end = length === undefined ? plaintext.length : offset + length;
      expect(Buffer.from(await readFile(out)).equals(Buffer.from(plaintext.subarray(offset, end)))).toBe(
        true,
      );
    }
    await expect(
      decryptFile(join(dir, 'blob.bin'), join(dir, 'past.bin'), key, {
        context: unboundBlobContext(),
        offset: plaintext.length,
        length: 1,
      }),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
    await expect(stat(join(dir, 'past.bin'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('after any failure the output does not exist and no temp file is left', async () => {
    const blob = await readFile(join(dir, 'blob.bin'));
    const bad: [string, Uint8Array][] = [];
    const flipped = Buffer.from(blob);
    flipped[56 + 3 * 16400 + 7] = (flipped[56 + 3 * 16400 + 7] as number) ^ 1;
    bad.push(['flipped', flipped]);
    bad.push(['truncated at a chunk boundary', blob.subarray(0, 56 + 100 * 16400)]);
    bad.push(['truncated mid-chunk', blob.subarray(0, blob.length - 100)]);
    bad.push(['appended', Buffer.concat([blob, Buffer.alloc(3)])]);
    for (const [name, bytes] of bad) {
      await writeFile(join(dir, 'keep-bad.bin'), bytes);
      for (const range of [{}, { offset: 0, length: 100 }, { offset: 5 * 16384 }]) {
        const options = { context: unboundBlobContext(), ...range };
        const out = join(dir, 'out.bin');
        const run = decryptFile(join(dir, 'keep-bad.bin'), out, key, options);
        // Ranged reads authenticate the final chunk, so a range far from the damage still fails on
        // truncation or appended bytes; a flipped bit in a chunk outside the range is never read.
        if (name === 'flipped' && 'offset' in options) {
          await run;
          await unlink(out);
          continue;
        }
        await expect(run, `${name} ${JSON.stringify(options)}`).rejects.toMatchObject({
          code: 'ERR_DECRYPTION_FAILED',
        });
        await expect(stat(out), name).rejects.toMatchObject({ code: 'ENOENT' });
      }
    }
    const wrongKey = key.slice();
    wrongKey[5] = (wrongKey[5] as number) ^ 1;
    await expect(
      decryptFile(join(dir, 'blob.bin'), join(dir, 'out.bin'), wrongKey, { context: unboundBlobContext() }),
    ).rejects.toMatchObject({
      code: 'ERR_DECRYPTION_FAILED',
    });
    expect(await strayFiles('plain.bin', 'blob.bin', 'back.bin', 'range.bin')).toEqual([]);
  });

  it('a missing input is ERR_DISK and leaves nothing behind', async () => {
    await expect(
      encryptFile(join(dir, 'missing'), join(dir, 'x.bin'), key, { context: unboundBlobContext() }),
    ).rejects.toMatchObject({
      code: 'ERR_DISK',
    });
    await expect(stat(join(dir, 'x.bin'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await strayFiles('plain.bin', 'blob.bin', 'back.bin', 'range.bin')).toEqual([]);
  });
});

describe('fileRangeSource', () => {
  it('serves random access over a file and closes', async () => {
    const source = fileRangeSource(join(dir, 'blob.bin'));
    try {
      expect(await source.size()).toBe(ciphertextSize(plaintext.length));
      const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
      expect(reader.plaintextSize).toBe(plaintext.length);
      expect(
        Buffer.from(await reader.read(123_456, 70_000)).equals(
          Buffer.from(plaintext.subarray(123_456, 193_456)),
        ),
      ).toBe(true);
      expect((await source.read(ciphertextSize(plaintext.length) - 4, 100)).length).toBe(4);
    } finally {
      await source.close();
    }
    await expect(source.read(0, 1)).rejects.toMatchObject({ code: 'ERR_DISK' });
    await expect(fileRangeSource(join(dir, 'missing')).size()).rejects.toMatchObject({ code: 'ERR_DISK' });
  });

  it('blockingReads: the same bytes by read, readInto and random access; closed and missing files are ERR_DISK', async () => {
    const source = fileRangeSource(join(dir, 'blob.bin'), { blockingReads: true });
    const blob = await readFile(join(dir, 'blob.bin'));
    try {
      const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
      const out = new Uint8Array(70_000);
      expect(await reader.readInto(123_456, out)).toBe(70_000);
      expect(Buffer.from(out).equals(Buffer.from(plaintext.subarray(123_456, 193_456)))).toBe(true);
      const into = new Uint8Array(100).fill(7);
      expect(await source.readInto?.(blob.length - 4, into)).toBe(4);
      expect(Buffer.from(into.subarray(0, 4)).equals(blob.subarray(blob.length - 4))).toBe(true);
      expect(into.subarray(4).every((byte) => byte === 7)).toBe(true);
      expect(Buffer.from(await source.read(1000, 5000)).equals(blob.subarray(1000, 6000))).toBe(true);
    } finally {
      await source.close();
    }
    await expect(source.readInto?.(0, new Uint8Array(1))).rejects.toMatchObject({ code: 'ERR_DISK' });
    await expect(
      fileRangeSource(join(dir, 'missing'), { blockingReads: true }).read(0, 1),
    ).rejects.toMatchObject({ code: 'ERR_DISK' });
    expect(() => fileRangeSource(join(dir, 'blob.bin'), { blockingReads: 'yes' as never })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
  });
});

describe('Node streams', () => {
  it('pipeline encrypt then decrypt round-trips and matches the core', async () => {
    await pipeline(
      createReadStream(join(dir, 'plain.bin')),
      createNodeEncryptStream(key, { context: unboundBlobContext() }),
      createWriteStream(join(dir, 'keep-s.bin')),
    );
    const blob = await readFile(join(dir, 'keep-s.bin'));
    expect(blob.length).toBe(ciphertextSize(plaintext.length));
    expect(
      Buffer.from(await decryptBlob(blob, key, { context: unboundBlobContext() })).equals(
        Buffer.from(plaintext),
      ),
    ).toBe(true);
    const parts: Buffer[] = [];
    await pipeline(
      createReadStream(join(dir, 'keep-s.bin')),
      createNodeDecryptStream(key, { context: unboundBlobContext() }),
      async (source) => {
        for await (const p of source) parts.push(p as Buffer);
      },
    );
    expect(Buffer.concat(parts).equals(Buffer.from(plaintext))).toBe(true);
  });

  it('the decrypt stream errors with ERR_DECRYPTION_FAILED on a truncated blob', async () => {
    const blob = await encryptBlob(testBytes(40_000, 33), key, { context: unboundBlobContext() });
    const sink: Buffer[] = [];
    const run = pipeline(
      Readable.from([blob.subarray(0, 56 + 16400)]),
      createNodeDecryptStream(key, { context: unboundBlobContext() }),
      async (source) => {
        for await (const p of source) sink.push(p as Buffer);
      },
    );
    await expect(run).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
    expect(sink.length).toBe(0);
  });
});
