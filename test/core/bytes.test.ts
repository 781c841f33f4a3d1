import { describe, expect, it } from 'vitest';
import {
  assertBytes,
  assertNonNegativeInteger,
  concatBytes,
  equalBytes,
  fromBase64,
  fromHex,
  fromUtf8,
  joinBytes,
  randomBytes,
  toBase64,
  toHex,
} from '../../src/core/bytes.js';
import { codeOf } from '../helpers/errors.js';

describe('input checks', () => {
  it('names the parameter, the expectation and what was received', () => {
    expect(() => assertBytes(new Uint8Array(31), 'key', 32)).toThrow(
      'expected a 32-byte key for `key` but received 31 bytes',
    );
    expect(() => assertBytes('nope', 'nonce', 24)).toThrowError(/`nonce` but received a string/);
    expect(codeOf(() => assertBytes(null, 'key', 32))).toBe('ERR_INVALID_ARGUMENT');
    expect(() => assertNonNegativeInteger(-1, 'offset')).toThrow(/`offset` but received -1/);
    expect(() => assertNonNegativeInteger(1.5, 'offset')).toThrow(/non-negative integer/);
    expect(assertNonNegativeInteger(0, 'offset')).toBe(0);
  });

  it('accepts views at a non-zero offset', () => {
    const backing = new Uint8Array(40).map((_, i) => i);
    const view = backing.subarray(8, 40);
    expect(assertBytes(view, 'key', 32)).toBe(view);
    expect(toHex(view).slice(0, 4)).toBe('0809');
    expect(toBase64(view)).toBe(toBase64(Uint8Array.from(view)));
  });
});

describe('encodings', () => {
  it('round-trips standard padded base64 and rejects anything else', () => {
    const data = Uint8Array.from([0xfb, 0xff, 0x00, 1]);
    expect(toBase64(data)).toBe('+/8AAQ==');
    expect(fromBase64('+/8AAQ==')).toEqual(data);
    for (const bad of ['-_8AAQ==', '+/8AAQ', '+/8A AQ==', '+/8AAQ=', '!!!!']) {
      expect(() => fromBase64(bad)).toThrowError(expect.objectContaining({ code: 'ERR_FORMAT' }));
    }
  });

  it('decodes hex strictly', () => {
    expect(fromHex('00ffA0')).toEqual(Uint8Array.from([0, 255, 160]));
    expect(() => fromHex('abc')).toThrowError(expect.objectContaining({ code: 'ERR_FORMAT' }));
    expect(() => fromHex('zz')).toThrowError(expect.objectContaining({ code: 'ERR_FORMAT' }));
  });

  it('decodes UTF-8 strictly', () => {
    expect(fromUtf8(Uint8Array.from([0x68, 0x69]))).toBe('hi');
    expect(() => fromUtf8(Uint8Array.from([0xff]))).toThrowError(
      expect.objectContaining({ code: 'ERR_FORMAT' }),
    );
  });

  it('concatenates, compares and draws random bytes', () => {
    expect(concatBytes(Uint8Array.of(1), new Uint8Array(0), Uint8Array.of(2, 3))).toEqual(
      Uint8Array.of(1, 2, 3),
    );
    // More parts than a spread call takes, one of them a view with a non-zero offset.
    const parts = Array.from({ length: 300_000 }, () => Uint8Array.of(7));
    parts[1] = Uint8Array.of(0, 9).subarray(1);
    const joined = joinBytes(parts);
    expect(joined.length).toBe(300_000);
    expect([joined[0], joined[1], joined[2]]).toEqual([7, 9, 7]);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 2))).toBe(true);
    expect(equalBytes(Uint8Array.of(1, 2), Uint8Array.of(1, 3))).toBe(false);
    expect(equalBytes(Uint8Array.of(1), Uint8Array.of(1, 2))).toBe(false);
    const r = randomBytes(70_000);
    expect(r.length).toBe(70_000);
    // 70 000 random bytes are never all zero in the last getRandomValues window.
    expect(r.subarray(65_536).some((b) => b !== 0)).toBe(true);
  });
});
