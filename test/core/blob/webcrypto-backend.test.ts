/**
 * The WebCrypto backend's chunk cipher (here on Node's `crypto.subtle`): `sealChunks`/`openChunks` give
 * one array per chunk (what `seal`/`open` join), a whole batch is refused when one tag fails, and every
 * call gets a nonce of its own that is never written afterwards; the streams emit those arrays as they
 * are, one piece per chunk (the encrypt stream byte-identical to `encryptBlob`).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEncryptStreamWithSalt, encryptBlobWithSalt } from '../../../src/core/blob/_testing.js';
import { webCryptoBlobBackend } from '../../../src/core/blob/backend-webcrypto.js';
import { BLOB_CHUNK_SIZE, BLOB_SEALED_CHUNK_SIZE } from '../../../src/core/blob/constants.js';
import { createDecryptStream, encryptBlob } from '../../../src/core/blob/index.js';
import { chunkNonceInto } from '../../../src/core/blob/key-schedule.js';
import { rejectionCodeOf } from '../../helpers/errors.js';
import { cut, runStream, type StreamRun, testBytes } from './blob-test-utils.js';

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

describe('webcrypto chunk cipher', () => {
  it('openChunks gives each chunk its own verified array, equal to what open joins', async () => {
    const cipher = await webCryptoBlobBackend.createChunkCipher(aeadKey, baseNonce);
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
    const cipher = await webCryptoBlobBackend.createChunkCipher(aeadKey, baseNonce);
    const pieces = await cipher.sealChunks!(3, plaintexts);
    expect(pieces.map((p) => p.length)).toEqual(plaintexts.map((p) => p.length + 16));
    expect(new Set(pieces.map((p) => p.buffer)).size).toBe(pieces.length);
    expect(Buffer.concat(pieces)).toEqual(Buffer.from(await cipher.seal(3, plaintexts)));
    const opened = await cipher.openChunks!(3, pieces);
    for (const [i, piece] of opened.entries()) expect(Buffer.from(piece).equals(plaintexts[i]!)).toBe(true);
  });

  it('one bad tag refuses the whole batch: nothing of it is returned', async () => {
    const cipher = await webCryptoBlobBackend.createChunkCipher(aeadKey, baseNonce);
    const sealed = sealedChunks(
      await cipher.seal(0, plaintexts),
      plaintexts.map((p) => p.length),
    ).map((c) => c.slice());
    sealed[3]![100]! ^= 0x01;
    expect(await rejectionCodeOf(() => cipher.openChunks!(0, sealed))).toBe('ERR_DECRYPTION_FAILED');
    expect(await rejectionCodeOf(() => cipher.open(0, sealed))).toBe('ERR_DECRYPTION_FAILED');
  });

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
    const cipher = await webCryptoBlobBackend.createChunkCipher(aeadKey, baseNonce);
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

describe('webcrypto streams', () => {
  it('the encrypt stream emits the header, then one piece per sealed chunk, byte-identical to encryptBlob', async () => {
    const key = testBytes(32, 5);
    const plaintext = testBytes(5 * BLOB_CHUNK_SIZE + 777, 6);
    const salt = testBytes(24, 9);
    const whole = await encryptBlobWithSalt(plaintext, key, salt, { backend: 'webcrypto' });
    for (const size of [BLOB_CHUNK_SIZE * 2 + 5, 1 << 20]) {
      const { run, lengths } = await runCounted(
        createEncryptStreamWithSalt(key, salt, { backend: 'webcrypto' }),
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
    const blob = await encryptBlob(plaintext, key, { backend: 'webcrypto' });
    for (const size of [BLOB_SEALED_CHUNK_SIZE * 3 + 5, 1 << 20]) {
      const { run, lengths } = await runCounted(
        createDecryptStream(key, { backend: 'webcrypto' }),
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
