import { describe, expect, it } from 'vitest';
import { compare, speedRatio } from '../../bench/harness/figures.js';
import { timeInterleaved } from '../../bench/harness/measure.js';
import { megabytesPerSecond, perSecond, quantile, summarize } from '../../bench/harness/stats.js';

describe('bench statistics', () => {
  it('takes the middle sample as the median of an odd count, unsorted input', () => {
    const s = summarize([9, 1, 5]);
    expect(s.median).toBe(5);
    expect(s.min).toBe(1);
    expect(s.max).toBe(9);
    expect(s.n).toBe(3);
    expect(s.mean).toBe(5);
  });

  it('interpolates the median of an even count and the quartiles', () => {
    const s = summarize([4, 1, 3, 2]);
    expect(s.median).toBe(2.5);
    expect(s.q1).toBe(1.75);
    expect(s.q3).toBe(3.25);
    expect(s.spreadPct).toBeCloseTo((1.5 / 2.5) * 100, 10);
  });

  it('is robust to one outlier where the mean is not', () => {
    const s = summarize([100, 101, 99, 100, 5000]);
    expect(s.median).toBe(100);
    expect(s.mean).toBeGreaterThan(1000);
  });

  it('reports zero spread for identical samples and a single sample', () => {
    expect(summarize([7, 7, 7]).spreadPct).toBe(0);
    const one = summarize([42]);
    expect([one.median, one.q1, one.q3, one.spreadPct]).toEqual([42, 42, 42, 0]);
  });

  it('rejects empty or non-finite samples and quantiles outside [0, 1]', () => {
    expect(() => summarize([])).toThrow(RangeError);
    expect(() => summarize([1, Number.NaN])).toThrow(RangeError);
    expect(() => summarize([1, Number.POSITIVE_INFINITY])).toThrow(RangeError);
    expect(() => quantile([1, 2], 1.5)).toThrow(RangeError);
    expect(() => quantile([], 0.5)).toThrow(RangeError);
  });

  it('converts bytes and counts over milliseconds into rates', () => {
    expect(megabytesPerSecond(256 * 1e6, 1000)).toBe(256);
    expect(megabytesPerSecond(1e6, 250)).toBe(4);
    expect(perSecond(500, 250)).toBe(2000);
    expect(() => megabytesPerSecond(1, 0)).toThrow(RangeError);
  });
});

describe('speed ratios', () => {
  it('is ours ÷ reference for rates', () => {
    expect(speedRatio({ unit: 'MB/s', median: 1500 }, { unit: 'MB/s', median: 3000 })).toBe(0.5);
    expect(speedRatio({ unit: 'msg/s', median: 3000 }, { unit: 'msg/s', median: 1000 })).toBe(3);
  });

  it('is reference ÷ ours for durations, so > 1 still means faster', () => {
    expect(speedRatio({ unit: 'ms', median: 40 }, { unit: 'ms', median: 20 })).toBe(0.5);
    expect(speedRatio({ unit: 'ms', median: 10 }, { unit: 'ms', median: 30 })).toBe(3);
  });

  it('refuses to compare different units or non-positive medians', () => {
    expect(() => speedRatio({ unit: 'ms', median: 1 }, { unit: 'MB/s', median: 1 })).toThrow(RangeError);
    expect(() => speedRatio({ unit: 'ms', median: 0 }, { unit: 'ms', median: 1 })).toThrow(RangeError);
  });

  it('builds a comparison from two measurements by id', () => {
    const m = (id: string, median: number, reference = false) => ({
      id,
      suite: 'x',
      label: id,
      unit: 'MB/s' as const,
      reference,
      summary: summarize([median]),
    });
    expect(compare(m('ours', 200), m('ref', 800, true))).toEqual({
      suite: 'x',
      ours: 'ours',
      reference: 'ref',
      ratio: 0.25,
    });
  });
});

describe('interleaved timing', () => {
  it('runs warm-up rounds untimed, then every case once per round, rotating which goes first', async () => {
    const calls: string[] = [];
    const times = await timeInterleaved(
      ['a', 'b', 'c'].map((name) => () => {
        calls.push(name);
      }),
      { warmup: 1, runs: 3 },
    );
    expect(calls.join('')).toBe('abc' + 'abc' + 'bca' + 'cab');
    expect(times.map((t) => t.length)).toEqual([3, 3, 3]);
    for (const t of times.flat()) expect(t).toBeGreaterThanOrEqual(0);
  });
});
