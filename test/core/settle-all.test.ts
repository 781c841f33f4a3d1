/** settleAllThenThrow: every step settles before a failure is reported, and the first failure in order is the one reported. */
import { describe, expect, it } from 'vitest';
import { settleAllThenThrow } from '../../src/core/settle-all.js';

const settleIn = <T>(ms: number, value: T, fail = false) =>
  new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(value) : resolve(value)), ms));

describe('settleAllThenThrow', () => {
  it('resolves when every step resolves, values and non-promises alike', async () => {
    await expect(settleAllThenThrow([undefined, 1, settleIn(5, 'x')])).resolves.toBeUndefined();
  });

  it('reports a failure only once the slower steps have settled', async () => {
    let slowDone = false;
    const slow = settleIn(30, 'late').then(() => {
      slowDone = true;
    });
    await expect(settleAllThenThrow([settleIn(1, new Error('fast'), true), slow])).rejects.toThrow('fast');
    expect(slowDone).toBe(true);
  });

  it('reports the first failed step in order, not the first to fail in time', async () => {
    const second = new Error('second, fails first');
    const first = new Error('first in order, fails later');
    await expect(settleAllThenThrow([settleIn(20, first, true), settleIn(1, second, true)])).rejects.toBe(
      first,
    );
  });
});
