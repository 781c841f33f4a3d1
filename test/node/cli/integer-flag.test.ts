/** The one reader of whole-number flags: digits only, a safe integer, within the flag's range. */
import { describe, expect, it } from 'vitest';
import { optionalIntegerFlag, parseIntegerFlag } from '../../../src/cli/integer-flag.js';

describe('parseIntegerFlag', () => {
  it('reads decimal digits within the range', () => {
    expect(parseIntegerFlag('0', '--offset')).toBe(0);
    expect(parseIntegerFlag('65535', '--port', { max: 65535 })).toBe(65535);
    expect(parseIntegerFlag('64', '--threads', { min: 1, max: 64 })).toBe(64);
    expect(parseIntegerFlag(String(Number.MAX_SAFE_INTEGER), '--max-bytes')).toBe(Number.MAX_SAFE_INTEGER);
    expect(optionalIntegerFlag(undefined, '--retries')).toBeUndefined();
    expect(optionalIntegerFlag('3', '--retries', { max: 100 })).toBe(3);
  });

  it('refuses signs, exponents, hex, fractions, blanks, unsafe and out-of-range values as ERR_USAGE naming the flag', () => {
    for (const text of ['-1', '+1', '1e3', '0x10', '1.5', '', ' 1', '9007199254740992']) {
      expect(() => parseIntegerFlag(text, '--length')).toThrow(
        expect.objectContaining({ code: 'ERR_USAGE', message: expect.stringContaining('--length') }),
      );
    }
    expect(() => parseIntegerFlag('0', '--max-line-bytes', { min: 1 })).toThrow(/a positive integer/);
    expect(() => parseIntegerFlag('65536', '--port', { max: 65535 })).toThrow(/an integer from 0 to 65535/);
    expect(() => parseIntegerFlag('65', '--threads', { min: 1, max: 64 })).toThrow(/from 1 to 64/);
    expect(() => parseIntegerFlag('x'.repeat(1000), '--after')).toThrow(/received "x{40}"$/);
  });
});
