/**
 * The one Range parser of the three endpoints. The policies stay at the call sites and are tested over
 * HTTP: the media server answers a malformed header 416 (test/node/storage/http-store.test.ts), the
 * playback endpoint (test/node/playback/serve-media.test.ts) and the Service Worker
 * (test/browser/player.test.ts) serve the whole file with 200.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRangeHeader } from '../../../src/core/transport/range-header.js';

describe('parseRangeHeader', () => {
  it('answers the forms a player sends', () => {
    expect(parseRangeHeader(undefined, 100)).toEqual({ kind: 'whole' });
    expect(parseRangeHeader('bytes=0-', 100)).toEqual({ kind: 'partial', start: 0, end: 99 });
    expect(parseRangeHeader('bytes=10-19', 100)).toEqual({ kind: 'partial', start: 10, end: 19 });
    expect(parseRangeHeader('bytes=90-500', 100)).toEqual({ kind: 'partial', start: 90, end: 99 });
    expect(parseRangeHeader('bytes=-10', 100)).toEqual({ kind: 'partial', start: 90, end: 99 });
    expect(parseRangeHeader('bytes=-500', 100)).toEqual({ kind: 'partial', start: 0, end: 99 });
    expect(parseRangeHeader('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRangeHeader('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRangeHeader('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRangeHeader('BYTES=1-2', 100)).toEqual({ kind: 'partial', start: 1, end: 2 });
  });

  it('calls everything but one byte range malformed (each server applies its policy: 416 or 200)', () => {
    for (const header of [
      'bytes=5-4',
      'bytes=-',
      'bytes=0-1,3-4',
      'bytes = 0-1',
      'chars=0-1',
      'items=0-1',
      'bytes=1e3-',
      'bytes=0x1-2',
      'bytes=abc',
      `bytes=${'9'.repeat(20)}-`,
    ]) {
      expect(parseRangeHeader(header, 10), header).toEqual({ kind: 'malformed' });
    }
    expect(parseRangeHeader('bytes=10-', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRangeHeader('bytes=10-20', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRangeHeader('bytes=-5', 0)).toEqual({ kind: 'unsatisfiable' });
  });

  it('never answers a partial range outside the representation (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), fc.string(), (size, tail) => {
        const decision = parseRangeHeader(`bytes=${tail}`, size);
        if (decision.kind === 'partial') {
          expect(decision.start).toBeGreaterThanOrEqual(0);
          expect(decision.start).toBeLessThanOrEqual(decision.end);
          expect(decision.end).toBeLessThan(size);
        }
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e9 }), fc.nat(), fc.nat(), (size, a, b) => {
        const decision = parseRangeHeader(`bytes=${Math.min(a, b)}-${Math.max(a, b)}`, size);
        if (Math.min(a, b) >= size) expect(decision.kind).toBe('unsatisfiable');
        else
          expect(decision).toEqual({
            kind: 'partial',
            start: Math.min(a, b),
            end: Math.min(Math.max(a, b), size - 1),
          });
      }),
    );
  });
});
