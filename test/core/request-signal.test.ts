/**
 * The one way the library links a request to its caller's signal and its head timer (requestSignal), and
 * the one way a caller stops waiting for shared work (waitOrAbort).
 */
import { describe, expect, it } from 'vitest';
import { LimitError } from '../../src/core/errors.js';
import { requestSignal } from '../../src/core/timeout.js';
import { waitOrAbort } from '../../src/core/wait-or-abort.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('requestSignal', () => {
  it('aborts with the caller, with the caller’s reason, and at once when the caller already aborted', () => {
    const caller = new AbortController();
    const request = requestSignal(caller.signal, 0);
    expect(request.signal.aborted).toBe(false);
    caller.abort(new Error('user left'));
    expect(request.signal.aborted).toBe(true);
    expect((request.signal.reason as Error).message).toBe('user left');
    expect(request.timedOut).toBe(false);
    const late = requestSignal(caller.signal, 1000);
    expect(late.signal.aborted).toBe(true);
    late.release();
  });

  it('aborts with a LimitError when no head came in time, and says it timed out', async () => {
    const request = requestSignal(undefined, 20);
    await sleep(80);
    expect(request.signal.aborted).toBe(true);
    expect(request.timedOut).toBe(true);
    expect(request.signal.reason).toBeInstanceOf(LimitError);
  });

  it('0 is no limit; stopTimer keeps the link to the caller, release lets go of it', async () => {
    const unlimited = requestSignal(undefined, 0);
    const stopped = requestSignal(undefined, 20);
    stopped.stopTimer();
    await sleep(80);
    expect(unlimited.signal.aborted).toBe(false);
    expect(stopped.signal.aborted).toBe(false);

    const caller = new AbortController();
    const body = requestSignal(caller.signal, 20);
    body.stopTimer();
    const done = requestSignal(caller.signal, 20);
    done.release();
    caller.abort();
    expect(body.signal.aborted).toBe(true);
    expect(done.signal.aborted).toBe(false);
  });
});

describe('waitOrAbort', () => {
  it('passes the shared result on, and a later abort of the caller does nothing', async () => {
    const caller = new AbortController();
    let left = 0;
    await expect(waitOrAbort(Promise.resolve(7), caller.signal, () => left++, 'the open')).resolves.toBe(7);
    caller.abort();
    expect(left).toBe(0);
    await expect(
      waitOrAbort(Promise.reject(new Error('shared failure')), caller.signal, () => left++, 'x'),
    ).rejects.toThrow('x was aborted');
  });

  it('stops waiting when the caller aborts, or has aborted, leaving once, while the work goes on', async () => {
    let finish: (value: string) => void = () => {};
    const shared = new Promise<string>((resolve) => {
      finish = resolve;
    });
    const caller = new AbortController();
    let left = 0;
    const waiting = waitOrAbort(shared, caller.signal, () => left++, 'the download');
    caller.abort(new Error('gone'));
    await expect(waiting).rejects.toMatchObject({ code: 'ERR_ABORTED', message: 'the download was aborted' });
    await expect(waitOrAbort(shared, caller.signal, () => left++, 'the download')).rejects.toMatchObject({
      code: 'ERR_ABORTED',
    });
    expect(left).toBe(2);
    finish('done');
    await expect(waitOrAbort(shared, undefined, () => left++, 'the download')).resolves.toBe('done');
    expect(left).toBe(2);
  });
});
