/**
 * BlobReader.readInto: random access into the caller's array. The bytes written equal the plaintext, the
 * count is what is left at the end, nothing past the count is touched, the range is zeroed when a chunk
 * fails to verify, a player's loop over one array rebuilds the whole plaintext, and two calls at once on
 * one reader both get their own bytes — over a source that only `read`s (a buffer, an HTTP range) and one
 * that reads into the reader's arrays (a file), with every AES-GCM implementation.
 */
import { describe, expect, it } from 'vitest';
import type { AesGcm } from '../../../src/core/aes-gcm/aes-gcm.js';
import { expoCryptoAesGcm } from '../../../src/core/aes-gcm/expo-crypto.js';
import { nobleAesGcm } from '../../../src/core/aes-gcm/noble.js';
import { webCryptoAesGcm } from '../../../src/core/aes-gcm/webcrypto.js';
import {
  bufferRangeSource,
  encryptBlob,
  openBlobRandomAccess,
  type RangeSource,
  unboundBlobContext,
} from '../../../src/core/blob/index.js';
import { nodeAesGcm } from '../../../src/node/runtime/node-aes-gcm.js';
import { loadExpoCryptoAes } from '../../helpers/expo-crypto.js';
import { prng, readIntoSource, testBytes } from './blob-test-utils.js';

const key = testBytes(32, 41);
const IMPLEMENTATIONS: { name: string; load: () => Promise<AesGcm> | AesGcm }[] = [
  { name: 'node', load: () => nodeAesGcm },
  { name: 'webcrypto', load: () => webCryptoAesGcm },
  { name: 'noble', load: () => nobleAesGcm },
  // An asynchronous implementation with its own arrays per call, as Happy's app has.
  { name: 'expo', load: async () => expoCryptoAesGcm(await loadExpoCryptoAes()) },
];
const SOURCES: { name: string; of: (ct: Uint8Array) => RangeSource }[] = [
  { name: 'read-only source', of: (ct) => bufferRangeSource(ct) },
  { name: 'readInto source', of: (ct) => readIntoSource(ct).source },
];
const SENTINEL = 0xa5;

/** An array of `length` sentinel bytes. */
const filled = (length: number) => new Uint8Array(length).fill(SENTINEL);

describe('BlobReader.readInto', () => {
  // 90 chunks and a short final one: reads cross windows and spans.
  const plaintext = testBytes(90 * 16384 + 555, 42);

  for (const implementation of IMPLEMENTATIONS) {
    for (const { name, of } of SOURCES) {
      it(`${implementation.name}, ${name}: any offset and array size gives the plaintext and the count, nothing past it`, async () => {
        const aesGcm = await implementation.load();
        const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm });
        const reader = await openBlobRandomAccess(of(ct), key, { context: unboundBlobContext(), aesGcm });
        const random = prng(99);
        const cases: [number, number][] = [
          [0, plaintext.length],
          [0, plaintext.length + 100],
          [16383, 2],
          [plaintext.length - 1, 10],
          [plaintext.length, 10],
          [90 * 16384 + 3, 1000],
          [7, 0],
        ];
        for (let i = 0; i < 25; i++) {
          const offset = Math.floor(random() * plaintext.length);
          cases.push([offset, 1 + Math.floor(random() * 300_000)]);
        }
        // One array for all of them, as a player reuses its buffer: each call sees the last one's bytes.
        const out = filled(plaintext.length + 200);
        for (const [offset, size] of cases) {
          out.fill(SENTINEL);
          const view = out.subarray(0, size);
          const count = await reader.readInto(offset, view);
          const expected = Math.min(size, plaintext.length - offset);
          expect(count, `${offset}, ${size}`).toBe(expected);
          expect(
            Buffer.from(view.subarray(0, count)).equals(plaintext.subarray(offset, offset + count)),
          ).toBe(true);
          expect(out.subarray(count).every((byte) => byte === SENTINEL)).toBe(true);
        }
      });
    }
  }

  it("a player's loop over one array rebuilds the whole plaintext (sequential reads, read ahead)", async () => {
    const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
    const reader = await openBlobRandomAccess(readIntoSource(ct).source, key, {
      context: unboundBlobContext(),
    });
    const buffer = new Uint8Array(100_000);
    const rebuilt = new Uint8Array(plaintext.length);
    for (let at = 0; at < reader.plaintextSize; ) {
      const count = await reader.readInto(at, buffer);
      rebuilt.set(buffer.subarray(0, count), at);
      at += count;
    }
    expect(Buffer.from(rebuilt).equals(plaintext)).toBe(true);
  });

  for (const { name, of } of SOURCES) {
    it(`${name}: a chunk that fails to verify leaves the range zeroed, nothing past it touched; the reader reads on`, async () => {
      const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
      const bad = ct.slice();
      // Chunk 60: the chunks before it in the range (from 2, the whole first window) verify and are
      // written, then wiped with the rest of the range.
      bad[56 + 60 * 16400 + 3] = (bad[56 + 60 * 16400 + 3] as number) ^ 1;
      const out = filled(89 * 16384);
      const offset = 2 * 16384 + 9;
      // Whenever the reader goes back to its source (between windows and spans), each byte of `out` is
      // still the sentinel or already its plaintext: never a byte of the tampered chunk.
      const checked = of(bad);
      let checks = 0;
      let watching = false;
      const check = () => {
        if (!watching) return;
        checks++;
        for (let i = 0; i < out.length; i++) {
          const byte = out[i];
          if (byte !== SENTINEL && byte !== plaintext[offset + i]) throw new Error(`byte ${i} unverified`);
        }
      };
      const source: RangeSource = {
        size: () => checked.size(),
        read: (at, length) => {
          check();
          return checked.read(at, length);
        },
        ...(checked.readInto && {
          readInto: (at, into) => {
            check();
            return checked.readInto!(at, into);
          },
        }),
      };
      const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
      const rangeLength = plaintext.length - offset;
      watching = true;
      await expect(reader.readInto(offset, out)).rejects.toMatchObject({
        code: 'ERR_DECRYPTION_FAILED',
      });
      watching = false;
      expect(checks).toBeGreaterThan(0);
      expect(out.subarray(0, rangeLength).every((byte) => byte === 0)).toBe(true);
      expect(out.subarray(rangeLength).every((byte) => byte === SENTINEL)).toBe(true);
      const count = await reader.readInto(5, out.subarray(0, 16384));
      expect(Buffer.from(out.subarray(0, count)).equals(plaintext.subarray(5, 5 + count))).toBe(true);
    });

    it(`${name}: two calls at once on one reader each get their own range`, async () => {
      const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
      const reader = await openBlobRandomAccess(of(ct), key, { context: unboundBlobContext() });
      const a = new Uint8Array(200_000);
      const b = new Uint8Array(150_000);
      const [na, nb] = await Promise.all([reader.readInto(1234, a), reader.readInto(700_001, b)]);
      expect(Buffer.from(a.subarray(0, na)).equals(plaintext.subarray(1234, 1234 + na))).toBe(true);
      expect(Buffer.from(b.subarray(0, nb)).equals(plaintext.subarray(700_001, 700_001 + nb))).toBe(true);
    });
  }

  it('a range of several megabytes (many windows) is read whole', async () => {
    const big = testBytes(9 * 1024 * 1024 + 17, 43);
    const ct = await encryptBlob(big, key, { context: unboundBlobContext() });
    const reader = await openBlobRandomAccess(readIntoSource(ct).source, key, {
      context: unboundBlobContext(),
    });
    const out = new Uint8Array(big.length);
    expect(await reader.readInto(0, out)).toBe(big.length);
    expect(Buffer.from(out).equals(big)).toBe(true);
  });

  it('refuses an offset outside the plaintext and an array that is not a Uint8Array; honours abort', async () => {
    const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
    const reader = await openBlobRandomAccess(bufferRangeSource(ct), key, { context: unboundBlobContext() });
    await expect(reader.readInto(plaintext.length + 1, new Uint8Array(1))).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
    await expect(reader.readInto(-1, new Uint8Array(1))).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
    await expect(reader.readInto(0, [1, 2] as unknown as Uint8Array)).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
    const controller = new AbortController();
    controller.abort();
    await expect(reader.readInto(0, new Uint8Array(10), controller.signal)).rejects.toMatchObject({
      code: 'ERR_ABORTED',
    });
  });
});
