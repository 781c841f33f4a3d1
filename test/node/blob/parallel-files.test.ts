/**
 * The worker-thread file path (encryptFileParallel / decryptFileParallel) against the single-thread
 * engine: byte-identical blobs for the same salt at every size that matters (empty, chunk and job
 * boundaries, several jobs), the frozen vectors, and the same all-or-nothing failures (tampering, wrong
 * key, truncation, limits) with no output file left behind.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptBlobWithSalt } from '../../../src/core/blob/_testing.js';
import { encryptBlob, unboundBlobContext } from '../../../src/core/blob/index.js';
import { fromHex } from '../../../src/core/bytes.js';
import {
  decryptFileParallel,
  encryptFile,
  encryptFileParallel,
  type ParallelFileOptions,
} from '../../../src/node/blob/index.js';
import { testBytes } from '../../core/blob/blob-test-utils.js';
import frozen from '../../fixtures/blob-vectors.json' with { type: 'json' };
import { rejectionCodeOf } from '../../helpers/errors.js';
import { makeTempDir } from '../../helpers/tmp.js';

const CHUNK = 16384;
/** A job is 256 chunks; sizes around job and chunk boundaries, and several jobs for several threads. */
const SIZES = [
  0,
  1,
  CHUNK - 1,
  CHUNK,
  CHUNK + 1,
  256 * CHUNK - 1,
  256 * CHUNK,
  256 * CHUNK + 1,
  3 * 256 * CHUNK + 777,
];

const key = testBytes(32, 71);
const salt = testBytes(24, 72);
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('happy-media-parallel-'));
});
afterAll(() => cleanup());

describe('encryptFileParallel', () => {
  // Two threads at every size; one and three where there are several jobs to share out.
  const cases = SIZES.flatMap((size) =>
    (size > 256 * CHUNK ? [1, 2, 3] : [2]).map((threads) => ({ size, threads })),
  );
  for (const { size, threads } of cases) {
    it(`${size} bytes, ${threads} thread(s): the same bytes as the single-thread engine, and decrypts back`, async () => {
      const plaintext = testBytes(size, size + 1);
      const plainPath = join(dir, `p-${size}-${threads}`);
      const blobPath = join(dir, `b-${size}-${threads}`);
      const backPath = join(dir, `d-${size}-${threads}`);
      await writeFile(plainPath, plaintext);
      await encryptFileParallel(
        plainPath,
        blobPath,
        key,
        { context: unboundBlobContext(), threads },
        { salt },
      );
      const single = await encryptBlobWithSalt(plaintext, key, salt, { context: unboundBlobContext() });
      expect(Buffer.from(await readFile(blobPath)).equals(Buffer.from(single))).toBe(true);
      await decryptFileParallel(blobPath, backPath, key, { context: unboundBlobContext(), threads });
      expect(Buffer.from(await readFile(backPath)).equals(Buffer.from(plaintext))).toBe(true);
    });
  }

  it('uses a fresh random salt by default (two encryptions differ, both decrypt)', async () => {
    const plainPath = join(dir, 'salted');
    await writeFile(plainPath, testBytes(5000, 5));
    await encryptFileParallel(plainPath, join(dir, 'salted.1'), key, { context: unboundBlobContext() });
    await encryptFileParallel(plainPath, join(dir, 'salted.2'), key, { context: unboundBlobContext() });
    const [a, b] = [await readFile(join(dir, 'salted.1')), await readFile(join(dir, 'salted.2'))];
    expect(a.subarray(0, 24).equals(b.subarray(0, 24))).toBe(false);
    await decryptFileParallel(join(dir, 'salted.2'), join(dir, 'salted.back'), key, {
      context: unboundBlobContext(),
    });
    expect((await readFile(join(dir, 'salted.back'))).equals(Buffer.from(testBytes(5000, 5)))).toBe(true);
  });
});

describe('frozen vectors through the parallel path', () => {
  for (const v of frozen.vectors) {
    it(v.comment, async () => {
      const plaintext = testBytes(v.msgLength, v.msgSeed);
      const options = { threads: 2, context: v.ctx === undefined ? unboundBlobContext() : fromHex(v.ctx) };
      const plainPath = join(dir, `v-${v.msgSeed}`);
      const blobPath = join(dir, `v-${v.msgSeed}.blob`);
      await writeFile(plainPath, plaintext);
      await encryptFileParallel(plainPath, blobPath, fromHex(v.key), options, { salt: fromHex(v.salt) });
      const ct = await readFile(blobPath);
      expect(ct.length).toBe(v.ctLength);
      expect(ct.subarray(0, 96).toString('hex')).toBe(v.ctHead);
      expect(ct.subarray(ct.length - 32).toString('hex')).toBe(v.ctTail);
      await decryptFileParallel(blobPath, `${blobPath}.back`, fromHex(v.key), options);
      expect((await readFile(`${blobPath}.back`)).equals(Buffer.from(plaintext))).toBe(true);
    });
  }
});

describe('decryptFileParallel failures are all or nothing', () => {
  const size = 3 * 256 * CHUNK + 99;
  const plaintext = testBytes(size, 9);
  let blob: Uint8Array;
  beforeAll(async () => {
    await writeFile(join(dir, 'f-plain'), plaintext);
    await encryptFile(join(dir, 'f-plain'), join(dir, 'f-blob'), key, { context: unboundBlobContext() });
    blob = await readFile(join(dir, 'f-blob'));
  });

  /** Decrypts `bytes` (written to a file) and returns the error code and whether any output appeared. */
  async function attempt(
    name: string,
    bytes: Uint8Array,
    withKey = key,
    options: ParallelFileOptions = { context: unboundBlobContext() },
  ) {
    const inPath = join(dir, `${name}.in`);
    await writeFile(inPath, bytes);
    const code = await rejectionCodeOf(
      decryptFileParallel(inPath, join(dir, `${name}.out`), withKey, options),
    );
    const leftovers = (await readdir(dir)).filter((f) => f.includes(`${name}.out`));
    return { code, leftovers };
  }

  it('decrypts what the single-thread encryptFile wrote', async () => {
    await decryptFileParallel(join(dir, 'f-blob'), join(dir, 'f-back'), key, {
      context: unboundBlobContext(),
    });
    expect((await readFile(join(dir, 'f-back'))).equals(Buffer.from(plaintext))).toBe(true);
  });

  it('a flipped byte in a middle run: DecryptionError, no output, no temp file', async () => {
    const bad = Uint8Array.from(blob);
    bad[56 + 300 * 16400 + 5]! ^= 1;
    expect(await attempt('flip', bad)).toEqual({ code: 'ERR_DECRYPTION_FAILED', leftovers: [] });
  });

  it('a flipped tag of the final chunk: DecryptionError', async () => {
    const bad = Uint8Array.from(blob);
    bad[bad.length - 1]! ^= 0x80;
    expect(await attempt('tail', bad)).toEqual({ code: 'ERR_DECRYPTION_FAILED', leftovers: [] });
  });

  it('wrong key, truncation at a chunk boundary, extension: DecryptionError', async () => {
    expect((await attempt('key', blob, testBytes(32, 1))).code).toBe('ERR_DECRYPTION_FAILED');
    expect((await attempt('cut', blob.subarray(0, 56 + 10 * 16400))).code).toBe('ERR_DECRYPTION_FAILED');
    const longer = new Uint8Array(blob.length + 1);
    longer.set(blob);
    expect((await attempt('ext', longer)).code).toBe('ERR_DECRYPTION_FAILED');
  });

  it('maxPlaintextBytes: LimitError before any chunk is opened', async () => {
    expect(
      await attempt('limit', blob, key, { context: unboundBlobContext(), maxPlaintextBytes: size - 1 }),
    ).toEqual({
      code: 'ERR_LIMIT_EXCEEDED',
      leftovers: [],
    });
  });

  it('another context: DecryptionError at the commitment', async () => {
    const other = await encryptBlob(testBytes(100, 3), key, { context: new Uint8Array([1]) });
    expect((await attempt('ctx', other)).code).toBe('ERR_DECRYPTION_FAILED');
  });

  it('bad thread counts are refused before any I/O', async () => {
    expect(
      await rejectionCodeOf(
        decryptFileParallel(join(dir, 'missing'), join(dir, 'x'), key, {
          context: unboundBlobContext(),
          threads: 0,
        }),
      ),
    ).toBe('ERR_INVALID_ARGUMENT');
  });
});
