/**
 * SharedWork: the one way the playback caches (Node's MediaCache, openExpoMedia) share a download
 * between every caller of one entry.
 */
import { describe, expect, it } from 'vitest';
import { SharedWork, type SharedWorkContext } from '../../src/core/shared-work.js';

/** Work that runs until `finish` or its signal aborts; counts how often it was started. */
function controllableWork() {
  let starts = 0;
  let context: SharedWorkContext | undefined;
  let finish: (value: string) => void = () => undefined;
  const start = (given: SharedWorkContext) => {
    starts++;
    context = given;
    return new Promise<string>((resolve, reject) => {
      finish = resolve;
      given.signal.addEventListener('abort', () => reject(new Error('work aborted')), { once: true });
    });
  };
  return {
    start,
    get starts() {
      return starts;
    },
    get context() {
      return context as SharedWorkContext;
    },
    finish: (value: string) => finish(value),
  };
}

describe('SharedWork', () => {
  it('starts the work once for concurrent callers, tells each its progress, and forgets it once settled', async () => {
    const shared = new SharedWork<string>();
    const work = controllableWork();
    const heard: string[] = [];
    const first = shared.join('k', work.start, { onProgress: (e) => heard.push(`a${e.done}`) }, 'x');
    const second = shared.join('k', work.start, { onProgress: (e) => heard.push(`b${e.done}`) }, 'x');
    expect(work.starts).toBe(1);
    expect(shared.has('k')).toBe(true);
    work.context.onProgress({ done: 1, total: 2 });
    work.finish('file');
    await expect(Promise.all([first, second])).resolves.toEqual(['file', 'file']);
    expect(heard).toEqual(['a1', 'b1']);
    expect(shared.has('k')).toBe(false);
    const again = shared.join('k', work.start, {}, 'x');
    expect(work.starts).toBe(2);
    work.finish('again');
    await expect(again).resolves.toBe('again');
  });

  it('one caller aborting stops its wait only; the last one aborting aborts the work', async () => {
    const shared = new SharedWork<string>();
    const work = controllableWork();
    const a = new AbortController();
    const b = new AbortController();
    const heard: number[] = [];
    const first = shared.join(
      'k',
      work.start,
      { signal: a.signal, onProgress: (e) => heard.push(e.done) },
      'the open',
    );
    const second = shared.join('k', work.start, { signal: b.signal }, 'the open');
    a.abort(new Error('left'));
    await expect(first).rejects.toMatchObject({ code: 'ERR_ABORTED', message: 'the open was aborted' });
    expect(work.context.signal.aborted).toBe(false);
    work.context.onProgress({ done: 1, total: 1 });
    expect(heard).toEqual([]);
    b.abort(new Error('left too'));
    await expect(second).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    expect(work.context.signal.aborted).toBe(true);
    expect((work.context.signal.reason as Error).message).toBe('left too');
    await new Promise((resolve) => setTimeout(resolve, 0)); // the work's rejection settles
    expect(shared.has('k')).toBe(false);
  });
});
