import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BLOB_MAX_CHUNKS, chunkNonceInto } from '../../../src/core/blob/format.js';
import { ciphertextSize, plaintextSize } from '../../../src/core/blob/index.js';
import { fromHex, toHex } from '../../../src/core/bytes.js';

const chunkNonce = (base: Uint8Array, index: number) => chunkNonceInto(base, index, new Uint8Array(12));

describe('ciphertextSize / plaintextSize', () => {
  it('gives the documented sizes at the chunk edges', () => {
    expect(ciphertextSize(0)).toBe(72);
    expect(ciphertextSize(1)).toBe(73);
    expect(ciphertextSize(16383)).toBe(56 + 16383 + 16);
    expect(ciphertextSize(16384)).toBe(56 + 16384 + 32);
    expect(ciphertextSize(16385)).toBe(56 + 16385 + 32);
    expect(ciphertextSize(32768)).toBe(56 + 32768 + 48);
    expect(ciphertextSize(1024 ** 3)).toBe(56 + 1024 ** 3 + 16 * (65536 + 1));
  });

  it('are inverse for every plaintext length', () => {
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 40 }), (n) => {
        expect(plaintextSize(ciphertextSize(n))).toBe(n);
      }),
    );
  });

  it('plaintextSize rejects every length no ciphertext can have, with ERR_FORMAT', () => {
    for (const bad of [0, 1, 55, 56, 71, 56 + 16400, 56 + 16400 + 15, 56 + 2 * 16400, 56 + 16400 + 1]) {
      expect(() => plaintextSize(bad), String(bad)).toThrow(expect.objectContaining({ code: 'ERR_FORMAT' }));
    }
    fc.assert(
      fc.property(fc.nat({ max: 2 ** 36 }), (k) => {
        // A body that is an exact multiple of the sealed chunk size means a full-size final chunk.
        expect(() => plaintextSize(56 + k * 16400)).toThrow(expect.objectContaining({ code: 'ERR_FORMAT' }));
      }),
    );
  });

  it('reject non-integers with ERR_INVALID_ARGUMENT', () => {
    for (const bad of [-1, 1.5, Number.NaN, '72' as unknown as number]) {
      expect(() => ciphertextSize(bad)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }));
      expect(() => plaintextSize(bad)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }));
    }
  });

  it('ciphertextSize raises LimitError past 2^38 chunks', () => {
    expect(() => ciphertextSize(BLOB_MAX_CHUNKS * 16384)).toThrow(
      expect.objectContaining({ code: 'ERR_LIMIT_EXCEEDED' }),
    );
    expect(ciphertextSize(BLOB_MAX_CHUNKS * 16384 - 1)).toBeGreaterThan(0);
  });
});

describe('chunk nonces', () => {
  const base = fromHex('f206a92ac0ba380c8e9e3843');
  it('XOR the big-endian chunk index into the low bytes of the base nonce', () => {
    expect(toHex(chunkNonce(base, 0))).toBe('f206a92ac0ba380c8e9e3843');
    expect(toHex(chunkNonce(base, 1))).toBe('f206a92ac0ba380c8e9e3842');
    expect(toHex(chunkNonce(base, 0x100))).toBe('f206a92ac0ba380c8e9e3943');
    expect(toHex(chunkNonce(base, 0x1_0000_0000))).toBe('f206a92ac0ba380d8e9e3843');
    expect(toHex(chunkNonce(base, BLOB_MAX_CHUNKS - 1))).toBe('f206a92ac0ba38337161c7bc');
  });
  it('stop at 2^38 with LimitError', () => {
    expect(() => chunkNonce(base, BLOB_MAX_CHUNKS)).toThrow(
      expect.objectContaining({ code: 'ERR_LIMIT_EXCEEDED' }),
    );
  });
});
