/**
 * Round trips through every path and AES-GCM implementation, cross-implementation decryption, streaming equivalence, views at
 * non-zero offsets, random access ranges, limits and option errors.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AesGcm } from '../../../src/core/aes-gcm/aes-gcm.js';
import { nobleAesGcm } from '../../../src/core/aes-gcm/noble.js';
import { webCryptoAesGcm } from '../../../src/core/aes-gcm/webcrypto.js';
import { createEncryptStreamWithSalt, encryptBlobWithSalt } from '../../../src/core/blob/_testing.js';
import {
  bufferRangeSource,
  ciphertextSize,
  createDecryptStream,
  createEncryptStream,
  decryptBlob,
  encryptBlob,
  mediaBlobContext,
  openBlobRandomAccess,
  type RangeSource,
  unboundBlobContext,
} from '../../../src/core/blob/index.js';
import { BlobDecryptor, engineStream } from '../../../src/core/blob/stream.js';
import { joinBytes, toHex, utf8 } from '../../../src/core/bytes.js';
import { getRuntime } from '../../../src/core/runtime/runtime.js';
import { nodeRuntime } from '../../../src/node/runtime/index.js';
import { nodeAesGcm } from '../../../src/node/runtime/node-aes-gcm.js';
import { asAsync } from '../../helpers/aes-gcm.js';
import { withRuntime } from '../../helpers/installed.js';
import { cut, offsetView, prng, readIntoSource, runStream, testBytes } from './blob-test-utils.js';

const IMPLEMENTATIONS: AesGcm[] = [nodeAesGcm, webCryptoAesGcm, nobleAesGcm];
const LENGTHS = [0, 1, 16383, 16384, 16385, 32768, 3 * 1024 * 1024 + 12345];
const key = testBytes(32, 7);
const salt = testBytes(24, 8);

describe('round trips', () => {
  for (const length of LENGTHS) {
    it(`${length} bytes: every implementation decrypts every implementation's output, by buffer and by stream`, async () => {
      const plaintext = testBytes(length, length + 1);
      const sealedBy = new Map<string, Uint8Array>();
      for (const aesGcm of IMPLEMENTATIONS) {
        // noble is pure JS (~60 MB/s): it still takes the multi-MiB case, it just takes a moment.
        const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm });
        expect(ct.length).toBe(ciphertextSize(length));
        sealedBy.set(aesGcm.name, ct);
      }
      // Random salts: two encryptions of the same plaintext differ.
      expect(toHex((sealedBy.get('node') as Uint8Array).subarray(0, 24))).not.toBe(
        toHex((sealedBy.get('noble') as Uint8Array).subarray(0, 24)),
      );
      for (const [from, ct] of sealedBy) {
        for (const aesGcm of IMPLEMENTATIONS) {
          const back = await decryptBlob(ct, key, { context: unboundBlobContext(), aesGcm });
          expect(back.length, `${from} → ${aesGcm.name}`).toBe(length);
          expect(Buffer.from(back).equals(Buffer.from(plaintext)), `${from} → ${aesGcm.name}`).toBe(true);
        }
        const streamed = await runStream(
          createDecryptStream(key, { context: unboundBlobContext() }),
          cut(ct, () => 50_000),
        );
        expect(streamed.error).toBeUndefined();
        expect(Buffer.from(streamed.output).equals(Buffer.from(plaintext))).toBe(true);
      }
    });
  }

  it('stream encryption in random pieces equals whole-buffer encryption with the same salt (all implementations)', async () => {
    const random = prng(42);
    for (const length of [0, 5, 16384, 50_000, 200_003]) {
      const plaintext = testBytes(length, 9);
      const whole = await encryptBlobWithSalt(plaintext, key, salt, { context: unboundBlobContext() });
      for (const aesGcm of IMPLEMENTATIONS) {
        const sizes = () => 1 + Math.floor(random() * (random() < 0.3 ? 30 : 40_000));
        const run = await runStream(
          createEncryptStreamWithSalt(key, salt, { context: unboundBlobContext(), aesGcm }),
          cut(plaintext, sizes),
        );
        expect(run.error).toBeUndefined();
        expect(toHex(run.output), `${aesGcm.name} ${length}`).toBe(toHex(whole));
      }
    }
  });

  it('property: any length cut into any pieces round-trips through both streams, and the size is exact', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 70_000 }),
        fc.array(fc.integer({ min: 1, max: 20_000 }), { minLength: 1, maxLength: 8 }),
        fc.constantFrom(...IMPLEMENTATIONS),
        async (length, pieceSizes, aesGcm) => {
          const plaintext = testBytes(length, length);
          let i = 0;
          const sizes = () => pieceSizes[i++ % pieceSizes.length] as number;
          const enc = await runStream(
            createEncryptStream(key, { context: unboundBlobContext(), aesGcm }),
            cut(plaintext, sizes),
          );
          expect(enc.error).toBeUndefined();
          expect(enc.output.length).toBe(ciphertextSize(length));
          i = 0;
          const dec = await runStream(
            createDecryptStream(key, { context: unboundBlobContext(), aesGcm }),
            cut(enc.output, sizes),
          );
          expect(dec.error).toBeUndefined();
          expect(Buffer.from(dec.output).equals(Buffer.from(plaintext))).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a decryptor that keeps the caller's pieces (a download) decrypts any cut the same, and refuses damage", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 70_000 }),
        fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: 1, maxLength: 8 }),
        fc.constantFrom(nodeAesGcm, asAsync(nodeAesGcm)),
        async (length, pieceSizes, aesGcm) => {
          const plaintext = testBytes(length, length + 1);
          const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm });
          let i = 0;
          const sizes = () => pieceSizes[i++ % pieceSizes.length] as number;
          const engine = () =>
            new BlobDecryptor(key, { context: unboundBlobContext(), aesGcm }, { keepsPieces: true });
          const dec = await runStream(engineStream(engine()), cut(ct, sizes));
          expect(dec.error).toBeUndefined();
          expect(Buffer.from(dec.output).equals(Buffer.from(plaintext))).toBe(true);
          const bad = ct.slice();
          const at = 56 + Math.floor((bad.length - 56) / 2);
          bad[at] = (bad[at] as number) ^ 1;
          i = 0;
          const failed = await runStream(engineStream(engine()), cut(bad, sizes));
          expect(failed.error).toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
        },
      ),
      { numRuns: 30 },
    );
  });

  it('pushes of several pieces at once, made before earlier ones settled, decrypt any cut the same (property)', async () => {
    // What a download does: each network read's pieces in one push, several pushes in flight, over a
    // cipher that reads its input only a few macrotasks after the call. A chunk straddling two pieces is
    // joined into an array that is used again once its call settled: reused too early, a tag would fail.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 200_000 }),
        fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (length, pieceSizes, groupSizes, keepsPieces) => {
          const aesGcm = asAsync(nodeAesGcm);
          const plaintext = testBytes(length, length + 3);
          const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm });
          const pieces: Uint8Array[] = [];
          for (let at = 0, i = 0; at < ct.length; i++) {
            const size = pieceSizes[i % pieceSizes.length] as number;
            pieces.push(ct.subarray(at, at + size));
            at += size;
          }
          const run = async (blob: readonly Uint8Array[]) => {
            const decryptor = new BlobDecryptor(
              key,
              { context: unboundBlobContext(), aesGcm },
              { keepsPieces },
            );
            const pushes: Promise<Uint8Array[]>[] = [];
            for (let at = 0, g = 0; at < blob.length; g++) {
              const take = groupSizes[g % groupSizes.length] as number;
              pushes.push(decryptor.pushPieces(blob.slice(at, at + take)));
              at += take;
            }
            pushes.push(decryptor.finish());
            return joinBytes((await Promise.all(pushes)).flat());
          };
          expect(Buffer.from(await run(pieces)).equals(Buffer.from(plaintext))).toBe(true);
          const bad = ct.slice();
          const at = 56 + Math.floor((bad.length - 56) / 2);
          bad[at] = (bad[at] as number) ^ 1;
          const badPieces = pieces.map((piece) =>
            bad.subarray(piece.byteOffset, piece.byteOffset + piece.length),
          );
          await expect(run(badPieces)).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('joins the chunks that straddle pieces into a few arrays used again, not one new array each', async () => {
    const opened = new Set<ArrayBufferLike>();
    const inner = asAsync(nodeAesGcm);
    const aesGcm = {
      ...inner,
      open: (k: unknown, nonce: Uint8Array, sealed: Uint8Array) => {
        opened.add(sealed.buffer);
        return inner.open(k, nonce, sealed);
      },
    };
    const plaintext = testBytes(3_000_000, 5);
    const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm: nodeAesGcm });
    const decryptor = new BlobDecryptor(
      key,
      { context: unboundBlobContext(), aesGcm },
      { keepsPieces: true },
    );
    const out: Uint8Array[] = [];
    // 64 KiB pieces: about one chunk in four straddles two of them.
    for (let at = 0; at < ct.length; at += 65_536)
      out.push(...(await decryptor.push(ct.subarray(at, at + 65_536))));
    out.push(...(await decryptor.finish()));
    expect(Buffer.from(joinBytes(out)).equals(Buffer.from(plaintext))).toBe(true);
    // The blob's own buffer, and the join arrays: far fewer than the ~45 straddling chunks.
    expect(opened.size).toBeLessThanOrEqual(4);
  });

  it('byte-by-byte streams in both directions', async () => {
    const plaintext = testBytes(16384 * 2 + 3, 10);
    const enc = await runStream(
      createEncryptStream(key, { context: unboundBlobContext() }),
      cut(plaintext, () => 1),
    );
    expect(enc.output.length).toBe(ciphertextSize(plaintext.length));
    const dec = await runStream(
      createDecryptStream(key, { context: unboundBlobContext() }),
      cut(enc.output, () => 1),
    );
    expect(dec.error).toBeUndefined();
    expect(toHex(dec.output)).toBe(toHex(plaintext));
  });

  it('accepts views at non-zero offsets everywhere (key, plaintext, ciphertext, context)', async () => {
    const plaintext = testBytes(40_000, 11);
    const context = new TextEncoder().encode('ctx');
    const ct = await encryptBlob(offsetView(plaintext, 3), offsetView(key, 5), {
      context: offsetView(context, 1),
    });
    const back = await decryptBlob(offsetView(ct, 9), offsetView(key, 2), { context });
    expect(toHex(back)).toBe(toHex(plaintext));
    const reader = await openBlobRandomAccess(bufferRangeSource(offsetView(ct, 13)), offsetView(key, 1), {
      context,
    });
    expect(toHex(await reader.read(16380, 10))).toBe(toHex(plaintext.subarray(16380, 16390)));
  });

  it('has no default context: every operation without one is ERR_INVALID_ARGUMENT, before any work', async () => {
    const ct = await encryptBlob(new Uint8Array(3), key, { context: unboundBlobContext() });
    const none = undefined as unknown as { context: Uint8Array };
    const missing = {} as { context: Uint8Array };
    for (const options of [none, missing]) {
      await expect(encryptBlob(new Uint8Array(3), key, options)).rejects.toMatchObject({
        code: 'ERR_INVALID_ARGUMENT',
      });
      await expect(decryptBlob(ct, key, options)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
      expect(() => createEncryptStream(key, options)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      );
      expect(() => createDecryptStream(key, options)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      );
      await expect(openBlobRandomAccess(bufferRangeSource(ct), key, options)).rejects.toMatchObject({
        code: 'ERR_INVALID_ARGUMENT',
      });
    }
  });

  it('contexts are fresh arrays: writing into one changes no later blob', async () => {
    const context = unboundBlobContext();
    const ct = await encryptBlobWithSalt(new Uint8Array(3), key, salt, { context });
    context[0] = (context[0] as number) ^ 0xff;
    const bound = mediaBlobContext('media/abc');
    bound[0] = 0;
    expect(
      toHex(await encryptBlobWithSalt(new Uint8Array(3), key, salt, { context: unboundBlobContext() })),
    ).toBe(toHex(ct));
    expect(toHex(mediaBlobContext('media/abc'))).toBe(toHex(utf8('happy-media blob v2\u0000media/abc')));
  });

  it('does not modify its inputs', async () => {
    const plaintext = testBytes(20_000, 12);
    const copy = plaintext.slice();
    const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
    const ctCopy = ct.slice();
    await decryptBlob(ct, key, { context: unboundBlobContext() });
    expect(toHex(plaintext)).toBe(toHex(copy));
    expect(toHex(ct)).toBe(toHex(ctCopy));
  });
});

describe('random access', () => {
  const plaintext = testBytes(5 * 16384 + 777, 13);
  for (const aesGcm of IMPLEMENTATIONS) {
    it(`${aesGcm.name}: any range equals the same slice of the plaintext`, async () => {
      const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm });
      const reads: { offset: number; length: number }[] = [];
      const source = bufferRangeSource(ct);
      let inFlight = 0;
      let mostInFlight = 0;
      const counting = {
        size: () => source.size(),
        read: async (offset: number, length: number, signal?: AbortSignal) => {
          reads.push({ offset, length });
          inFlight += 1;
          mostInFlight = Math.max(mostInFlight, inFlight);
          // A source across a network: the answer comes a little later.
          await new Promise((resolve) => setTimeout(resolve, 1));
          inFlight -= 1;
          return source.read(offset, length, signal);
        },
      };
      const reader = await openBlobRandomAccess(counting, key, { context: unboundBlobContext(), aesGcm });
      expect(reader.plaintextSize).toBe(plaintext.length);
      // Opening reads the header and the final chunk only, both at once (one round trip, not two).
      expect(reads).toHaveLength(2);
      expect(reads).toEqual(
        expect.arrayContaining([
          { offset: 0, length: 56 },
          { offset: 56 + 5 * 16400, length: 777 + 16 },
        ]),
      );
      expect(mostInFlight).toBe(2);
      const random = prng(7);
      const ranges: [number, number][] = [
        [0, 0],
        [0, plaintext.length],
        [16383, 2],
        [16384, 16384],
        [plaintext.length - 1, 1],
        [plaintext.length, 0],
        [5 * 16384, 777],
      ];
      for (let i = 0; i < 30; i++) {
        const offset = Math.floor(random() * plaintext.length);
        ranges.push([offset, Math.floor(random() * (plaintext.length - offset))]);
      }
      for (const [offset, length] of ranges) {
        reads.length = 0;
        const got = await reader.read(offset, length);
        expect(toHex(got), `${offset}+${length}`).toBe(toHex(plaintext.subarray(offset, offset + length)));
        // Only the chunks the range covers are read (the final chunk is already verified).
        const needed =
          length === 0
            ? 0
            : Math.min(Math.floor((offset + length - 1) / 16384), 4) - Math.floor(offset / 16384) + 1;
        const readBytes = reads.reduce((n, r) => n + r.length, 0);
        expect(readBytes, `${offset}+${length}`).toBe(Math.max(0, needed) * 16400);
      }
    });
  }

  it('rejects ranges past the end and aborted reads', async () => {
    const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
    const reader = await openBlobRandomAccess(bufferRangeSource(ct), key, { context: unboundBlobContext() });
    await expect(reader.read(plaintext.length, 1)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
    await expect(reader.read(-1, 1)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
    const controller = new AbortController();
    controller.abort();
    await expect(reader.read(0, 10, controller.signal)).rejects.toMatchObject({ code: 'ERR_ABORTED' });
  });

  for (const aesGcm of IMPLEMENTATIONS) {
    it(`${aesGcm.name}: a read inside one span opens only its chunks; its bytes stay put after later reads; damage in it fails`, async () => {
      const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm });
      let opened = 0;
      const count = () => {
        opened++;
      };
      const counted: AesGcm =
        aesGcm.mode === 'sync'
          ? {
              ...aesGcm,
              open: (...args) => {
                count();
                return aesGcm.open(...args);
              },
              ...(aesGcm.openInto && {
                openInto: (...args: Parameters<NonNullable<typeof aesGcm.openInto>>) => {
                  count();
                  aesGcm.openInto?.(...args);
                },
              }),
            }
          : {
              ...aesGcm,
              open: (...args) => {
                count();
                return aesGcm.open(...args);
              },
            };
      const reader = await openBlobRandomAccess(bufferRangeSource(ct), key, {
        context: unboundBlobContext(),
        aesGcm: counted,
      });
      opened = 0;
      // Chunks 1 to 3, unaligned at both ends: the result is a view of the cipher's output.
      const first = await reader.read(16384 + 5, 2 * 16384 + 10);
      expect(opened).toBe(3);
      const expected = toHex(plaintext.subarray(16384 + 5, 3 * 16384 + 15));
      expect(toHex(first)).toBe(expected);
      await reader.read(0, 4 * 16384);
      await reader.read(100, 200);
      expect(toHex(first)).toBe(expected);
      const bad = ct.slice();
      bad[56 + 2 * 16400 + 7] = (bad[56 + 2 * 16400 + 7] as number) ^ 1;
      const badReader = await openBlobRandomAccess(bufferRangeSource(bad), key, {
        context: unboundBlobContext(),
        aesGcm,
      });
      await expect(badReader.read(16384 + 5, 2 * 16384 + 10)).rejects.toMatchObject({
        code: 'ERR_DECRYPTION_FAILED',
      });
      expect(toHex(await badReader.read(16384, 16384))).toBe(toHex(plaintext.subarray(16384, 32768)));
    });
  }

  it('a long read goes in 1024-chunk spans: one source read each, the next prefetched; damage in a later span still fails', async () => {
    // 2500 chunks: spans of 1024, 1024 and 452 chunks, then the final chunk from the open.
    const long = testBytes(2500 * 16384 + 5, 15);
    const ct = await encryptBlob(long, key, { context: unboundBlobContext(), aesGcm: nodeAesGcm });
    const inner = bufferRangeSource(ct);
    const reads: number[] = [];
    const counting = {
      size: () => inner.size(),
      read: (offset: number, length: number) => {
        reads.push(length / 16400);
        return inner.read(offset, length);
      },
    };
    const reader = await openBlobRandomAccess(counting, key, { context: unboundBlobContext() });
    reads.length = 0;
    const got = await reader.read(100, long.length - 100);
    expect(Buffer.from(got).equals(Buffer.from(long.subarray(100)))).toBe(true);
    expect(reads).toEqual([1024, 1024, 452]);
    const bad = ct.slice();
    bad[56 + 2100 * 16400 + 9] = (bad[56 + 2100 * 16400 + 9] as number) ^ 1;
    const badReader = await openBlobRandomAccess(bufferRangeSource(bad), key, {
      context: unboundBlobContext(),
    });
    await expect(badReader.read(0, long.length)).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
    // A read that does not cover the damaged chunk still succeeds (chunks are verified as they are read).
    expect(toHex(await badReader.read(0, 16384))).toBe(toHex(long.subarray(0, 16384)));
  });

  it('a source that returns short data is not authentic', async () => {
    const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
    const inner = bufferRangeSource(ct);
    const reader = await openBlobRandomAccess(
      {
        size: inner.size,
        read: async (o, l) => (o === 56 ? (await inner.read(o, l)).subarray(1) : inner.read(o, l)),
      },
      key,
      { context: unboundBlobContext() },
    );
    await expect(reader.read(0, 10)).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
  });
});

describe('random access from a source that reads into the reader (a file)', () => {
  // 150 chunks and a short final one: long reads cross several windows.
  const long = testBytes(150 * 16384 + 321, 17);
  const ctOf = (aesGcm: AesGcm) => encryptBlob(long, key, { context: unboundBlobContext(), aesGcm });

  for (const aesGcm of IMPLEMENTATIONS) {
    it(`${aesGcm.name}: any range equals the plaintext, read in a first window of 16 chunks, then windows of 64`, async () => {
      const ct = await ctOf(aesGcm);
      const { source, requests } = readIntoSource(ct);
      const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext(), aesGcm });
      const random = prng(23);
      const ranges: [number, number][] = [
        [0, long.length],
        [5, 16 * 16384],
        [16383, 2],
        [long.length - 1, 1],
        [149 * 16384 + 10, 16384 + 100],
      ];
      for (let i = 0; i < 20; i++) {
        const offset = Math.floor(random() * long.length);
        ranges.push([offset, Math.floor(random() * (long.length - offset))]);
      }
      for (const [offset, length] of ranges) {
        requests.length = 0;
        // Far apart from each other: no read is sequential to the one before, so none is read ahead.
        const got = await reader.read(offset, length);
        expect(
          Buffer.from(got).equals(Buffer.from(long.subarray(offset, offset + length))),
          `${offset}+${length}`,
        ).toBe(true);
        const first = Math.floor(offset / 16384);
        const count =
          length === 0
            ? 0
            : Math.max(0, Math.min(Math.floor((offset + length - 1) / 16384), 149) - first + 1);
        const windows: number[] = [];
        for (let left = count; left > 0; ) {
          const window = Math.min(left, windows.length === 0 ? 16 : 64);
          windows.push(window);
          left -= window;
        }
        expect(
          requests.map((r) => r.length / 16400),
          `${offset}+${length}`,
        ).toEqual(windows);
        if (requests.length > 0) expect(requests[0]?.offset).toBe(56 + first * 16400);
      }
    });
  }

  it('reads that follow one another have the next range read ahead; a read elsewhere still gets its own bytes', async () => {
    const ct = await ctOf(nodeAesGcm);
    const { source, requests } = readIntoSource(ct);
    const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
    const piece = 20 * 16384 + 99;
    const at = (n: number) => 1000 + n * piece;
    const expectRead = async (offset: number, length: number) => {
      const got = await reader.read(offset, length);
      expect(Buffer.from(got).equals(Buffer.from(long.subarray(offset, offset + length)))).toBe(true);
    };
    const firstRequest = (offset: number) => 56 + Math.floor(offset / 16384) * 16400;
    await expectRead(at(0), piece);
    // Nothing precedes the first read: nothing is read ahead after it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(requests.some((r) => r.offset === firstRequest(at(1)))).toBe(false);
    requests.length = 0;
    await expectRead(at(1), piece);
    // The second read followed the first: the chunks of the third are asked for before it is made.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(requests.some((r) => r.offset === firstRequest(at(2)))).toBe(true);
    requests.length = 0;
    await expectRead(at(2), piece);
    // Its bytes came from the read ahead: nothing was asked for the third range itself.
    expect(requests.some((r) => r.offset === firstRequest(at(2)))).toBe(false);
    // A read elsewhere drops what was read ahead and reads its own chunks.
    await expectRead(7, 3 * 16384);
    await expectRead(at(3) + 5, piece);
  });

  /** A readInto source whose reads take a timer tick, recording the arrays it was given and the most reads at once. */
  const slowSource = (ct: Uint8Array) => {
    const seen = { arrays: new Set<ArrayBufferLike>(), inFlight: 0, most: 0, onRead: () => {} };
    const source: RangeSource = {
      size: async () => ct.length,
      read: async (offset, length) => ct.slice(offset, offset + length),
      readInto: async (offset, out) => {
        seen.arrays.add(out.buffer);
        seen.inFlight++;
        seen.most = Math.max(seen.most, seen.inFlight);
        seen.onRead();
        await new Promise((resolve) => setTimeout(resolve, 1));
        seen.inFlight--;
        const part = ct.subarray(offset, offset + out.length);
        out.set(part);
        return part.length;
      },
    };
    return { source, seen };
  };

  it('reads into a few arrays it reuses, two windows at once; results never share them and stay put', async () => {
    const ct = await ctOf(nodeAesGcm);
    const { source, seen } = slowSource(ct);
    const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
    const random = prng(31);
    const results: [number, number, Uint8Array][] = [];
    for (let i = 0; i < 16; i++) {
      // At least two windows (17+ chunks), never starting where the last ended: nothing is read ahead.
      const offset = Math.floor(random() * 40) * 16384 + i;
      const length = 17 * 16384 + Math.floor(random() * 100 * 16384);
      const got = await reader.read(offset, length);
      expect(seen.arrays.has(got.buffer), 'a result is not a read array').toBe(false);
      results.push([offset, length, got]);
    }
    // Every result is still its plaintext after the reads that reused the arrays after it.
    for (const [offset, length, got] of results) {
      expect(
        Buffer.from(got).equals(Buffer.from(long.subarray(offset, offset + length))),
        `${offset}+${length}`,
      ).toBe(true);
    }
    expect(seen.most).toBe(2);
    expect(seen.arrays.size).toBe(2);
  });

  it('an abort while the windows are read fails with ERR_ABORTED, and the reader reads on', async () => {
    const ct = await ctOf(nodeAesGcm);
    const { source, seen } = slowSource(ct);
    const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
    const controller = new AbortController();
    seen.onRead = () => controller.abort();
    await expect(reader.read(100, 80 * 16384, controller.signal)).rejects.toMatchObject({
      code: 'ERR_ABORTED',
    });
    seen.onRead = () => {};
    const got = await reader.read(100, 80 * 16384);
    expect(Buffer.from(got).equals(Buffer.from(long.subarray(100, 100 + 80 * 16384)))).toBe(true);
  });

  for (const aesGcm of [nodeAesGcm, asAsync(nodeAesGcm)]) {
    it(`${aesGcm.name}: damage in a later window, or a short read, fails the read with ERR_DECRYPTION_FAILED`, async () => {
      const ct = await ctOf(aesGcm);
      const bad = ct.slice();
      bad[56 + 40 * 16400 + 3] = (bad[56 + 40 * 16400 + 3] as number) ^ 1;
      const damaged = await openBlobRandomAccess(readIntoSource(bad).source, key, {
        context: unboundBlobContext(),
        aesGcm,
      });
      await expect(damaged.read(0, 64 * 16384)).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
      // Chunks outside the damage still read (each verified as it is read).
      const before = await damaged.read(0, 16 * 16384);
      expect(Buffer.from(before).equals(Buffer.from(long.subarray(0, 16 * 16384)))).toBe(true);
      const short = await openBlobRandomAccess(readIntoSource(ct, { short: 56 + 16 * 16400 }).source, key, {
        context: unboundBlobContext(),
        aesGcm,
      });
      await expect(short.read(0, 64 * 16384)).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
    });
  }
});

describe('limits and options', () => {
  it('maxPlaintextBytes stops encryption and decryption with LimitError', async () => {
    const plaintext = testBytes(50_000, 14);
    await expect(
      encryptBlob(plaintext, key, { context: unboundBlobContext(), maxPlaintextBytes: 49_999 }),
    ).rejects.toMatchObject({
      code: 'ERR_LIMIT_EXCEEDED',
    });
    expect(
      (await encryptBlob(plaintext, key, { context: unboundBlobContext(), maxPlaintextBytes: 50_000 }))
        .length,
    ).toBe(ciphertextSize(50_000));
    const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
    await expect(
      decryptBlob(ct, key, { context: unboundBlobContext(), maxPlaintextBytes: 40_000 }),
    ).rejects.toMatchObject({
      code: 'ERR_LIMIT_EXCEEDED',
    });
    const streamed = await runStream(
      createDecryptStream(key, { context: unboundBlobContext(), maxPlaintextBytes: 20_000 }),
      [ct],
    );
    expect(streamed.error).toMatchObject({ code: 'ERR_LIMIT_EXCEEDED' });
    expect(streamed.output.length).toBeLessThanOrEqual(20_000);
    await expect(
      openBlobRandomAccess(bufferRangeSource(ct), key, {
        context: unboundBlobContext(),
        maxPlaintextBytes: 40_000,
      }),
    ).rejects.toMatchObject({ code: 'ERR_LIMIT_EXCEEDED' });
  });

  it('bad keys, contexts, AES-GCM implementations and chunks are InvalidArgumentError naming the parameter', async () => {
    expect(() => createEncryptStream(new Uint8Array(31), { context: unboundBlobContext() })).toThrow(
      /32-byte key for `key` but received 31 bytes/,
    );
    expect(() =>
      createDecryptStream('k' as unknown as Uint8Array, { context: unboundBlobContext() }),
    ).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }));
    await expect(
      encryptBlob(new Uint8Array(1), key, { context: 'x' as unknown as Uint8Array }),
    ).rejects.toThrow(/`context`/);
    await expect(
      encryptBlob(new Uint8Array(1), key, {
        context: unboundBlobContext(),
        aesGcm: 'openssl' as unknown as AesGcm,
      }),
    ).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
    await expect(
      encryptBlob(new Uint8Array(1), key, { context: unboundBlobContext(), maxPlaintextBytes: -1 }),
    ).rejects.toThrow(/maxPlaintextBytes/);
    const run = await runStream(createEncryptStream(key, { context: unboundBlobContext() }), [
      'text' as unknown as Uint8Array,
    ]);
    expect(run.error).toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
  });

  it("the default is the runtime's AES-GCM, whichever is installed when the operation starts", async () => {
    expect(getRuntime().aesGcm).toBe(nodeAesGcm);
    const calls = { seal: 0, open: 0, inFlight: 0, maxInFlight: 0 };
    const counted = asAsync(nodeAesGcm, { calls });
    const ct = await withRuntime({ ...nodeRuntime, aesGcm: counted }, async () => {
      const sealed = await encryptBlob(new Uint8Array(3), key, { context: unboundBlobContext() });
      expect(await decryptBlob(sealed, key, { context: unboundBlobContext() })).toEqual(new Uint8Array(3));
      return sealed;
    });
    expect(calls).toMatchObject({ seal: 1, open: 1 });
    // Back on node:crypto: no call reaches the counted one any more.
    expect(await decryptBlob(ct, key, { context: unboundBlobContext() })).toEqual(new Uint8Array(3));
    expect(calls.open).toBe(1);
  });
});
