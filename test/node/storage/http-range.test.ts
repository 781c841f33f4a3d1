import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRangeHeader } from '../../../src/node/storage/index.js';

describe('parseRangeHeader', () => {
  it('resolves the three single-range forms and cuts at the end', () => {
    expect(parseRangeHeader('bytes=0-0', 10)).toEqual({ ok: true, start: 0, end: 0 });
    expect(parseRangeHeader('bytes=3-', 10)).toEqual({ ok: true, start: 3, end: 9 });
    expect(parseRangeHeader('bytes=-4', 10)).toEqual({ ok: true, start: 6, end: 9 });
    expect(parseRangeHeader('bytes=-40', 10)).toEqual({ ok: true, start: 0, end: 9 });
    expect(parseRangeHeader('bytes=8-400', 10)).toEqual({ ok: true, start: 8, end: 9 });
  });

  it('refuses what it cannot satisfy or does not serve', () => {
    for (const header of [
      'bytes=10-',
      'bytes=10-20',
      'bytes=5-4',
      'bytes=-0',
      'bytes=-',
      'bytes=0-1,3-4',
      'bytes = 0-1',
      'chars=0-1',
      'bytes=1e3-',
      'bytes=0x1-2',
      `bytes=${'9'.repeat(20)}-`,
    ]) {
      expect(parseRangeHeader(header, 10), header).toEqual({ ok: false });
    }
    expect(parseRangeHeader('bytes=0-', 0)).toEqual({ ok: false });
    expect(parseRangeHeader('bytes=-5', 0)).toEqual({ ok: false });
  });

  it('always returns a range inside the blob (property)', () => {
    fc.assert(
      fc.property(fc.nat(1e9), fc.option(fc.nat(2e9)), fc.option(fc.nat(2e9)), (size, a, b) => {
        const header = `bytes=${a ?? ''}-${b ?? ''}`;
        const answer = parseRangeHeader(header, size);
        if (answer.ok) {
          expect(answer.start).toBeGreaterThanOrEqual(0);
          expect(answer.end).toBeGreaterThanOrEqual(answer.start);
          expect(answer.end).toBeLessThan(size);
        }
      }),
    );
  });
});
