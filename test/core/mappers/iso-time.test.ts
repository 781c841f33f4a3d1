/**
 * Provider timestamps are read by hand in their common ISO 8601 UTC forms: on any text the answer is
 * `Date.parse`'s.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTimestamp } from '../../../src/core/mappers/iso-time.js';

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** ISO texts with fields in and out of range, with and without milliseconds. */
const isoText = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.integer({ min: 0, max: 60 }),
    second: fc.integer({ min: 0, max: 61 }),
    milli: fc.option(fc.integer({ min: 0, max: 999 })),
  })
  .map(
    ({ year, month, day, hour, minute, second, milli }) =>
      `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${milli === null ? '' : `.${pad(milli, 3)}`}Z`,
  );

/** An ISO text with one character replaced. */
const mutated = fc
  .tuple(isoText, fc.nat(), fc.constantFrom('-', ':', 'T', 'Z', '.', ' ', '+', 'a', '9', '0', '/'))
  .map(([text, at, character]) => {
    const i = at % text.length;
    return `${text.slice(0, i)}${character}${text.slice(i + 1)}`;
  });

describe('parseTimestamp', () => {
  it('answers what Date.parse answers', () => {
    fc.assert(
      fc.property(fc.oneof(isoText, mutated, fc.string({ maxLength: 26 })), (text) => {
        expect(parseTimestamp(text)).toBe(Date.parse(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('reads the forms providers write, leap days and the ends of the range included', () => {
    for (const text of [
      '2025-10-02T09:00:00.200Z',
      '2025-10-02T09:00:00Z',
      '2024-02-29T23:59:59.999Z',
      '2025-02-29T00:00:00.000Z',
      '2000-02-29T12:00:00Z',
      '1900-02-29T12:00:00Z',
      '1970-01-01T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
      '0000-03-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      '1969-12-31T23:59:59.999Z',
    ]) {
      expect(parseTimestamp(text), text).toBe(Date.parse(text));
    }
    expect(parseTimestamp('2025-10-02T09:00:00.200Z')).toBe(1759395600200);
  });
});
