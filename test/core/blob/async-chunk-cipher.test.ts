/**
 * The chunk driver of an asynchronous AES-GCM, over WebCrypto (Node's `crypto.subtle`) and over node:crypto
 * wrapped as asynchronous (calls settling out of order): `sealChunks`/`openChunks` give one array per chunk
 * (what `seal`/`open` join), a whole batch is refused when one tag fails, every call of a push is in flight
 * before any is awaited, and every call gets a nonce of its own that is never written afterwards; the
 * streams emit those arrays as they are, one piece per chunk (the encrypt stream byte-identical to
 * `encryptBlob` and to the synchronous driver's), and tampering, truncation and abort end as they do there.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AsyncAesGcm } from '../../../src/core/aes-gcm/aes-gcm.js';
import { webCryptoAesGcm } from '../../../src/core/aes-gcm/webcrypto.js';
import { createEncryptStreamWithSalt, encryptBlobWithSalt } from '../../../src/core/blob/_testing.js';
import { createChunkCipher } from '../../../src/core/blob/chunk-cipher.js';
import { BLOB_CHUNK_SIZE, BLOB_SEALED_CHUNK_SIZE, chunkNonceInto } from '../../../src/core/blob/format.js';
import {
  bufferRangeSource,
  createDecryptStream,
  createEncryptStream,
  decryptBlob,
  encryptBlob,
  openBlobRandomAccess,
  unboundBlobContext,
} from '../../../src/core/blob/index.js';
import { nodeAesGcm } from '../../../src/node/runtime/node-aes-gcm.js';
import { asAsync } from '../../helpers/aes-gcm.js';
import { rejectionCodeOf } from '../../helpers/errors.js';
import { cut, prng, runStream, type StreamRun, testBytes } from './blob-test-utils.js';

const aeadKey = testBytes(32, 3);
const baseNonce = testBytes(12, 4);
/** Five chunks' worth of plaintext, the last one short. */
const plaintexts = [0, 1, 2, 3, 4].map((i) => testBytes(i === 4 ? 1000 : BLOB_CHUNK_SIZE, 10 + i));

afterEach(() => {
  vi.restoreAllMocks();
});

/** Splits one sealed batch (`ciphertext || tag` per chunk, concatenated) into its chunks. */
function sealedChunks(batch: Uint8Array, lengths: readonly number[]): Uint8Array[] {
  let at = 0;
  return lengths.map((n) => {
    const chunk = batch.subarray(at, at + n + 16);
    at += n + 16;
    return chunk;
  });
}

/** WebCrypto, and node:crypto driven as an asynchronous implementation whose calls settle out of order. */
const ASYNC: AsyncAesGcm[] = [webCryptoAesGcm, asAsync(nodeAesGcm)];

/** A chunk cipher of the asynchronous driver over `aes`. */
const asyncCipher = async (aes: AsyncAesGcm) => {
  const cipher = await createChunkCipher(aes, aeadKey, baseNonce);
  expect(cipher.openChunks).toBeTypeOf('function');
  return cipher;
};

describe.each(ASYNC)('asynchronous chunk cipher over $name', (aes) => {
  it('opens batch after batch with a few nonce arrays, each used again only once its batch settled', async () => {
    const buffers = new Set<ArrayBufferLike>();
    const watched: AsyncAesGcm = {
      ...aes,
      open: (key, nonce, sealed) => {
        buffers.add(nonce.buffer);
        return aes.open(key, nonce, sealed);
      },
    };
    const cipher = await createChunkCipher(watched, aeadKey, baseNonce);
    // Three runs of chunks at other indices (other nonces), opened at once: a nonce array reused before
    // its calls read it would open one of them with another's nonces.
    const firsts = [0, 5, 10];
    const runs = await Promise.all(
      firsts.map(async (first) =>
        sealedChunks(
          await cipher.seal(first, plaintexts),
          plaintexts.map((p) => p.length),
        ),
      ),
    );
    for (let round = 0; round < 8; round++) {
      const opened = await Promise.all(firsts.map((first, i) => cipher.openChunks!(first, runs[i]!)));
      for (const pieces of opened) expect(Buffer.concat(pieces)).toEqual(Buffer.concat(plaintexts));
    }
    expect(buffers.size).toBeLessThanOrEqual(3);
  });

  it('openChunks gives each chunk its own verified array, equal to what open joins', async () => {
    const cipher = await asyncCipher(aes);
    const sealed = sealedChunks(
      await cipher.seal(7, plaintexts),
      plaintexts.map((p) => p.length),
    );
    const pieces = await cipher.openChunks!(7, sealed);
    expect(pieces.map((p) => p.length)).toEqual(plaintexts.map((p) => p.length));
    for (const [i, piece] of pieces.entries()) expect(Buffer.from(piece).equals(plaintexts[i]!)).toBe(true);
    // Distinct arrays (the stream hands each to its reader), not views of one buffer.
    expect(new Set(pieces.map((p) => p.buffer)).size).toBe(pieces.length);
    expect(Buffer.from(await cipher.open(7, sealed))).toEqual(Buffer.concat(plaintexts));
    // The index matters: the same chunks opened as if they started elsewhere do not verify.
    expect(await rejectionCodeOf(() => cipher.openChunks!(8, sealed))).toBe('ERR_DECRYPTION_FAILED');
  });

  it('sealChunks gives each chunk its own `ciphertext || tag`, equal to what seal joins', async () => {
    const cipher = await asyncCipher(aes);
    const pieces = await cipher.sealChunks!(3, plaintexts);
    expect(pieces.map((p) => p.length)).toEqual(plaintexts.map((p) => p.length + 16));
    expect(new Set(pieces.map((p) => p.buffer)).size).toBe(pieces.length);
    expect(Buffer.concat(pieces)).toEqual(Buffer.from(await cipher.seal(3, plaintexts)));
    const opened = await cipher.openChunks!(3, pieces);
    for (const [i, piece] of opened.entries()) expect(Buffer.from(piece).equals(plaintexts[i]!)).toBe(true);
  });

  it('one bad tag refuses the whole batch: nothing of it is returned', async () => {
    const cipher = await asyncCipher(aes);
    const sealed = sealedChunks(
      await cipher.seal(0, plaintexts),
      plaintexts.map((p) => p.length),
    ).map((c) => c.slice());
    sealed[3]![100]! ^= 0x01;
    expect(await rejectionCodeOf(() => cipher.openChunks!(0, sealed))).toBe('ERR_DECRYPTION_FAILED');
    expect(await rejectionCodeOf(() => cipher.open(0, sealed))).toBe('ERR_DECRYPTION_FAILED');
  });
});

describe('asynchronous chunk cipher over webcrypto', () => {
  it('every call gets the nonce of its own chunk, never written again after the call', async () => {
    const subtle = globalThis.crypto.subtle;
    const seen: { iv: Uint8Array; atCall: Uint8Array }[] = [];
    for (const method of ['encrypt', 'decrypt'] as const) {
      const real = subtle[method].bind(subtle);
      vi.spyOn(subtle, method).mockImplementation((algorithm, key, data) => {
        const iv = (algorithm as AesGcmParams).iv as Uint8Array;
        seen.push({ iv, atCall: iv.slice() });
        return real(algorithm, key, data);
      });
    }
    const cipher = await asyncCipher(webCryptoAesGcm);
    const sealed = sealedChunks(
      await cipher.seal(40, plaintexts),
      plaintexts.map((p) => p.length),
    );
    await cipher.openChunks!(40, sealed);
    expect(seen).toHaveLength(2 * plaintexts.length);
    for (const [call, { iv, atCall }] of seen.entries()) {
      const index = 40 + (call % plaintexts.length);
      expect(toHexString(atCall), `call ${call}`).toBe(
        toHexString(chunkNonceInto(baseNonce, index, new Uint8Array(12))),
      );
      expect(toHexString(iv), `call ${call} afterwards`).toBe(toHexString(atCall));
    }
  });
});

describe.each(ASYNC)('streams over $name', (aesGcm) => {
  it('the encrypt stream emits the header, then one piece per sealed chunk, byte-identical to encryptBlob', async () => {
    const key = testBytes(32, 5);
    const plaintext = testBytes(5 * BLOB_CHUNK_SIZE + 777, 6);
    const salt = testBytes(24, 9);
    const whole = await encryptBlobWithSalt(plaintext, key, salt, { context: unboundBlobContext(), aesGcm });
    for (const size of [BLOB_CHUNK_SIZE * 2 + 5, 1 << 20]) {
      const { run, lengths } = await runCounted(
        createEncryptStreamWithSalt(key, salt, { context: unboundBlobContext(), aesGcm }),
        cut(plaintext, () => size),
      );
      expect(run.error).toBeUndefined();
      expect(Buffer.from(run.output).equals(whole)).toBe(true);
      expect(lengths).toEqual([56, ...Array(5).fill(BLOB_SEALED_CHUNK_SIZE), 777 + 16]);
    }
  });

  it('the decrypt stream emits one piece per verified chunk, whatever the input pieces', async () => {
    const key = testBytes(32, 5);
    const plaintext = testBytes(5 * BLOB_CHUNK_SIZE + 777, 6);
    const blob = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm });
    for (const size of [BLOB_SEALED_CHUNK_SIZE * 3 + 5, 1 << 20]) {
      const { run, lengths } = await runCounted(
        createDecryptStream(key, { context: unboundBlobContext(), aesGcm }),
        cut(blob, () => size),
      );
      expect(run.error).toBeUndefined();
      expect(Buffer.from(run.output).equals(plaintext)).toBe(true);
      expect(lengths).toEqual([...Array(5).fill(BLOB_CHUNK_SIZE), 777]);
    }
  });
});

/** Runs `stream` over `pieces` (as {@link runStream}) and also records the length of every piece it emits. */
async function runCounted(
  stream: TransformStream<Uint8Array, Uint8Array>,
  pieces: Iterable<Uint8Array>,
): Promise<{ run: StreamRun; lengths: number[] }> {
  const lengths: number[] = [];
  const counted = new TransformStream<Uint8Array, Uint8Array>({
    transform(piece, controller) {
      lengths.push(piece.length);
      controller.enqueue(piece);
    },
  });
  const run = await runStream(
    { writable: stream.writable, readable: stream.readable.pipeThrough(counted) },
    pieces,
  );
  return { run, lengths };
}

function toHexString(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

describe('the asynchronous driver against the synchronous one', () => {
  const key = testBytes(32, 31);
  const salt = testBytes(24, 32);
  const counted = () => {
    const calls = { seal: 0, open: 0, inFlight: 0, maxInFlight: 0 };
    return { calls, aes: asAsync(nodeAesGcm, { calls }) };
  };

  it('node:crypto wrapped as asynchronous gives the same bytes, whole and streamed in random pieces', async () => {
    for (const length of [0, 1, BLOB_CHUNK_SIZE, 64 * BLOB_CHUNK_SIZE, 130 * BLOB_CHUNK_SIZE + 77]) {
      const plaintext = testBytes(length, length + 1);
      const bySync = await encryptBlobWithSalt(plaintext, key, salt, {
        context: unboundBlobContext(),
        aesGcm: nodeAesGcm,
      });
      const { aes } = counted();
      expect(
        toHexString(
          await encryptBlobWithSalt(plaintext, key, salt, { context: unboundBlobContext(), aesGcm: aes }),
        ),
      ).toBe(toHexString(bySync));
      const random = prng(length + 5);
      const sizes = () => 1 + Math.floor(random() * 200_000);
      const streamed = await runStream(
        createEncryptStreamWithSalt(key, salt, { context: unboundBlobContext(), aesGcm: aes }),
        cut(plaintext, sizes),
      );
      expect(streamed.error).toBeUndefined();
      expect(toHexString(streamed.output)).toBe(toHexString(bySync));
      expect(
        toHexString(await decryptBlob(bySync, key, { context: unboundBlobContext(), aesGcm: aes })),
      ).toBe(toHexString(plaintext));
      const opened = await runStream(
        createDecryptStream(key, { context: unboundBlobContext(), aesGcm: aes }),
        cut(bySync, sizes),
      );
      expect(opened.error).toBeUndefined();
      expect(toHexString(opened.output)).toBe(toHexString(plaintext));
    }
  });

  it('puts every chunk of a push in flight before awaiting any (two batches of 64 at once)', async () => {
    const plaintext = testBytes(128 * BLOB_CHUNK_SIZE + 5, 40);
    const { calls, aes } = counted();
    // One 2 MiB piece: two batches of 64 chunks (encryptBlob would feed 1 MiB pieces, one batch each).
    const sealed = await runStream(createEncryptStream(key, { context: unboundBlobContext(), aesGcm: aes }), [
      plaintext,
    ]);
    expect(sealed.error).toBeUndefined();
    const blob = sealed.output;
    expect(calls.seal).toBe(129);
    expect(calls.maxInFlight).toBe(128);
    calls.maxInFlight = 0;
    const run = await runStream(createDecryptStream(key, { context: unboundBlobContext(), aesGcm: aes }), [
      blob,
    ]);
    expect(run.error).toBeUndefined();
    expect(calls.open).toBe(129);
    expect(calls.maxInFlight).toBe(128);
  });

  it('releases nothing of a batch with a bad tag, and only verified chunks before it; truncation fails', async () => {
    const plaintext = testBytes(200 * BLOB_CHUNK_SIZE + 9, 41);
    const blob = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm: nodeAesGcm });
    const { aes } = counted();
    // Damage in chunk 100: the first batch (0-63) may be released, nothing from the second on.
    const bad = blob.slice();
    bad[56 + 100 * BLOB_SEALED_CHUNK_SIZE + 3]! ^= 1;
    const run = await runStream(
      createDecryptStream(key, { context: unboundBlobContext(), aesGcm: aes }),
      cut(bad, () => 1 << 20),
    );
    expect(run.error).toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
    expect(run.output.length).toBeLessThanOrEqual(100 * BLOB_CHUNK_SIZE);
    expect(toHexString(run.output)).toBe(toHexString(plaintext.subarray(0, run.output.length)));
    expect(
      await rejectionCodeOf(() => decryptBlob(bad, key, { context: unboundBlobContext(), aesGcm: aes })),
    ).toBe('ERR_DECRYPTION_FAILED');
    for (const length of [
      56 + 64 * BLOB_SEALED_CHUNK_SIZE,
      56 + 10 * BLOB_SEALED_CHUNK_SIZE + 7,
      blob.length - 1,
    ]) {
      const truncated = blob.subarray(0, length);
      const cutRun = await runStream(
        createDecryptStream(key, { context: unboundBlobContext(), aesGcm: aes }),
        [truncated],
      );
      expect(cutRun.error, `${length}`).toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
      expect(toHexString(cutRun.output)).toBe(toHexString(plaintext.subarray(0, cutRun.output.length)));
      expect(
        await rejectionCodeOf(() =>
          decryptBlob(truncated, key, { context: unboundBlobContext(), aesGcm: aes }),
        ),
      ).toBe('ERR_DECRYPTION_FAILED');
    }
    const reader = await openBlobRandomAccess(bufferRangeSource(bad), key, {
      context: unboundBlobContext(),
      aesGcm: aes,
    });
    expect(await rejectionCodeOf(() => reader.read(90 * BLOB_CHUNK_SIZE, 20 * BLOB_CHUNK_SIZE))).toBe(
      'ERR_DECRYPTION_FAILED',
    );
  });

  it('an implementation failing with its own error (or throwing at the call) is the one DecryptionError', async () => {
    const blob = await encryptBlob(testBytes(70_000, 42), key, {
      context: unboundBlobContext(),
      aesGcm: nodeAesGcm,
    });
    const rejecting: AsyncAesGcm = {
      ...asAsync(nodeAesGcm),
      open: () => Promise.reject(new TypeError('native bridge: tag mismatch')),
    };
    const throwing: AsyncAesGcm = {
      ...asAsync(nodeAesGcm),
      open: () => {
        throw new RangeError('thrown at the call');
      },
    };
    for (const aes of [rejecting, throwing]) {
      expect(
        await rejectionCodeOf(() => decryptBlob(blob, key, { context: unboundBlobContext(), aesGcm: aes })),
      ).toBe('ERR_DECRYPTION_FAILED');
      const run = await runStream(createDecryptStream(key, { context: unboundBlobContext(), aesGcm: aes }), [
        blob,
      ]);
      expect(run.error).toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
      expect(run.output.length).toBe(0);
    }
  });

  it('abort: a cancelled decrypt stream and an aborted range stream stop, with only verified bytes out', async () => {
    const plaintext = testBytes(300 * BLOB_CHUNK_SIZE, 43);
    const blob = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm: nodeAesGcm });
    const { calls, aes } = counted();
    const stream = createDecryptStream(key, { context: unboundBlobContext(), aesGcm: aes });
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    const writing = (async () => {
      for (const piece of cut(blob, () => 1 << 20)) await writer.write(piece);
      await writer.close();
    })().catch(() => undefined);
    const first = await reader.read();
    expect(toHexString(first.value as Uint8Array)).toBe(toHexString(plaintext.subarray(0, BLOB_CHUNK_SIZE)));
    await reader.cancel();
    await writing;
    expect(calls.open).toBeLessThan(300);
    // Settle whatever was in flight: nothing surfaces as an unhandled rejection.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls.inFlight).toBe(0);

    const opened = await openBlobRandomAccess(bufferRangeSource(blob), key, {
      context: unboundBlobContext(),
      aesGcm: aes,
    });
    const controller = new AbortController();
    const pieces: Uint8Array[] = [];
    const reading = (async () => {
      for await (const piece of opened.stream(0, plaintext.length, controller.signal)) {
        pieces.push(piece);
        if (pieces.length === 2) controller.abort();
      }
    })();
    expect(await rejectionCodeOf(reading)).toBe('ERR_ABORTED');
    const got = Buffer.concat(pieces);
    expect(got.length).toBeLessThan(plaintext.length);
    expect(toHexString(got)).toBe(toHexString(plaintext.subarray(0, got.length)));
  });

  it('an encrypt stream over it is byte-identical to the synchronous one, fed the same pieces', async () => {
    const plaintext = testBytes(3 * 64 * BLOB_CHUNK_SIZE + 1234, 44);
    const { aes } = counted();
    const bySync = await runStream(
      createEncryptStreamWithSalt(key, salt, { context: unboundBlobContext(), aesGcm: nodeAesGcm }),
      [plaintext],
    );
    const byAsync = await runStream(
      createEncryptStreamWithSalt(key, salt, { context: unboundBlobContext(), aesGcm: aes }),
      [plaintext],
    );
    expect(toHexString(byAsync.output)).toBe(toHexString(bySync.output));
    // And it opens with the public default (the runtime's AES-GCM) too.
    const run = await runStream(createDecryptStream(key, { context: unboundBlobContext() }), [
      byAsync.output,
    ]);
    expect(toHexString(run.output)).toBe(toHexString(plaintext));
  });
});
