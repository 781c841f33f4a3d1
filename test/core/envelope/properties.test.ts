/**
 * Property tests: seal/open round trips for random messages and keys, and no single-bit change anywhere
 * in an envelope ever yields a crash or a plaintext.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from '../../../src/core/bytes.js';
import {
  dataKey,
  decryptDataKey,
  decryptLegacy,
  encryptDataKey,
  encryptLegacy,
  legacyKey,
  openMessage,
  sealMessage,
} from '../../../src/core/envelope/index.js';
import { HappyMediaError } from '../../../src/core/errors.js';
import { sessionKeyArb, sessionMessageArb } from './arbitraries.js';

const REJECTIONS = ['ERR_DECRYPTION_FAILED', 'ERR_FORMAT', 'ERR_UNSUPPORTED_VERSION'];

function expectRejected(fn: () => unknown): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught, 'a modified envelope opened').toBeInstanceOf(HappyMediaError);
  expect(REJECTIONS).toContain((caught as HappyMediaError).code);
}

describe('round trip', () => {
  it('openMessage(sealMessage(m, k), k) equals m for random messages and keys', () => {
    fc.assert(
      fc.property(sessionMessageArb, sessionKeyArb, (message, key) => {
        expect(openMessage(sealMessage(message, key), key)).toEqual(message);
      }),
      { numRuns: 300 },
    );
  });
  it('raw byte records round-trip for random plaintexts and keys', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2000 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (plaintext, key) => {
          expect(decryptLegacy(encryptLegacy(plaintext, key), key)).toEqual(plaintext);
          expect(decryptDataKey(encryptDataKey(plaintext, key), key)).toEqual(plaintext);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('single-bit flips', () => {
  it('in the decoded record: every bit of c rejected with a decryption or format error', () => {
    fc.assert(
      fc.property(sessionMessageArb, sessionKeyArb, fc.nat(), (message, key, where) => {
        const envelope = sealMessage(message, key);
        const record = fromBase64(envelope.c);
        const bit = where % (record.length * 8);
        record[bit >> 3]! ^= 1 << (bit & 7);
        expectRejected(() => openMessage({ t: 'encrypted', c: toBase64(record) }, key));
      }),
      { numRuns: 500 },
    );
  });
  it('in the base64 text of c: every bit of every character rejected the same way', () => {
    fc.assert(
      fc.property(sessionMessageArb, sessionKeyArb, fc.nat(), (message, key, where) => {
        const { c } = sealMessage(message, key);
        const bit = where % (c.length * 8);
        const at = bit >> 3;
        const changed =
          c.slice(0, at) + String.fromCharCode(c.charCodeAt(at) ^ (1 << (bit & 7))) + c.slice(at + 1);
        expectRejected(() => openMessage({ t: 'encrypted', c: changed }, key));
      }),
      { numRuns: 500 },
    );
  });
  it('exhaustively for one small message of each variant', () => {
    const message = sealMessage(
      { id: 'a', time: 1, role: 'user', type: 'text', text: 'hi' },
      legacyKey(new Uint8Array(32).fill(1)),
    );
    for (const key of [legacyKey(new Uint8Array(32).fill(1)), dataKey(new Uint8Array(32).fill(1))]) {
      const envelope =
        key.variant === 'legacy'
          ? message
          : sealMessage({ id: 'a', time: 1, role: 'user', type: 'text', text: 'hi' }, key);
      const record = fromBase64(envelope.c);
      for (let bit = 0; bit < record.length * 8; bit++) {
        const flipped = record.slice();
        flipped[bit >> 3]! ^= 1 << (bit & 7);
        expectRejected(() => openMessage({ t: 'encrypted', c: toBase64(flipped) }, key));
      }
    }
  });
});
