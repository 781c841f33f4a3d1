/** The buffered nonce source: every nonce fresh, across refills, and each its own array. */
import { describe, expect, it } from 'vitest';
import { toHex } from '../../../src/core/bytes.js';
import { randomNonce } from '../../../src/core/envelope/nonce.js';

describe('randomNonce', () => {
  it('hands out distinct nonces across many refills of the 4 KiB buffer, each in its own buffer', () => {
    const seen = new Set<string>();
    // 3000 × 12 + 500 × 24 bytes: about a dozen refills, with lengths that do not divide 4096.
    for (let i = 0; i < 3500; i++) {
      const length = i < 3000 ? 12 : 24;
      const nonce = randomNonce(length);
      expect(nonce.length).toBe(length);
      expect(nonce.buffer.byteLength).toBe(length);
      seen.add(toHex(nonce));
    }
    expect(seen.size).toBe(3500);
  });

  it('a caller writing into its nonce changes no later nonce', () => {
    const a = randomNonce(12);
    a.fill(0);
    const b = randomNonce(12);
    expect(toHex(b)).not.toBe('00'.repeat(12));
  });
});
