/**
 * `appendAgentLog` against Happy's REAL server (HAPPY_MEDIA_HAPPY_SERVER_URL; skipped without it):
 * posts of at most 100 messages, in order; a second call replays (no upload, nothing posted); an abort
 * while an image uploads posts none of that event's messages and a new call continues with no duplicate
 * or gap; messages are posted while the source waits for more; a log that grew past an end the session
 * holds is refused with nothing posted.
 */
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FetchFunction } from '../../../src/core/transport/index.js';
import { AbortedError, StreamError } from '../../../src/errors.js';
import {
  appendAgentLog,
  createAgentMapper,
  HappyClient,
  type HappySession,
  type MediaHandler,
  type SessionMessage,
  validateStream,
} from '../../../src/index.js';
import { rejectionOf } from '../../helpers/errors.js';
import { newHappyAccount } from '../../helpers/happy-account.js';

const SERVER = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
if (!SERVER) console.warn('append-agent-log.test: skipped: HAPPY_MEDIA_HAPPY_SERVER_URL is not set');

const CLAUDE = new URL('../../fixtures/mappers/claude/session-images.jsonl', import.meta.url).pathname;

/** A media handler that describes each upload as a photo without storing anything, counting calls. */
function describingMedia(): { media: MediaHandler; calls: () => number } {
  let calls = 0;
  const media: MediaHandler = async () => {
    calls += 1;
    return {
      type: 'photo',
      ref: `media/photo${calls}`,
      thumbhash: '3OcRJYB4d3h/iIeHeEh3eIhw+j2w',
      width: 4,
      height: 3,
    };
  };
  return { media, calls: () => calls };
}

/** A long Claude log: a prompt, then `count` assistant text lines of one message each. */
function longLog(count: number): unknown[] {
  const base = { isSidechain: false, sessionId: 's-long', cwd: '/w', userType: 'external' };
  const lines: unknown[] = [
    {
      ...base,
      type: 'user',
      uuid: 'u0',
      parentUuid: null,
      timestamp: '2026-01-01T00:00:00.000Z',
      message: { role: 'user', content: 'count' },
    },
  ];
  for (let i = 1; i <= count; i++) {
    lines.push({
      ...base,
      type: 'assistant',
      uuid: `u${i}`,
      parentUuid: `u${i - 1}`,
      timestamp: new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 1000).toISOString(),
      message: {
        id: `msg_${i}`,
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: `number ${i}` }],
      },
    });
  }
  return lines;
}

describe.skipIf(!SERVER)("appendAgentLog against Happy's real server", () => {
  let client: HappyClient;
  let events: unknown[];
  const posts: number[] = [];
  const newSession = () => client.createSession({ metadata: { path: '/work', host: 'test' } });
  const idsIn = async (session: HappySession) => {
    const ids: string[] = [];
    for await (const record of client.readMessages(session)) ids.push(...record.messages.map((m) => m.id));
    return ids;
  };
  const oneShotIds = async (log: readonly unknown[], close = true) => {
    const mapper = createAgentMapper('claude');
    const out: SessionMessage[] = [];
    for (const event of log) out.push(...(await mapper.push(event)));
    if (close) out.push(...(await mapper.end()));
    return out.map((m) => m.id);
  };

  beforeAll(async () => {
    const account = await newHappyAccount(SERVER as string);
    // The same account through a fetch that counts the messages of each post.
    const fetch: FetchFunction = async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      if (init?.method === 'POST' && /\/v3\/sessions\/[^/]+\/messages$/.test(url.pathname)) {
        posts.push((JSON.parse(String(init.body)) as { messages: unknown[] }).messages.length);
      }
      return globalThis.fetch(input, init);
    };
    client = await HappyClient.connect({
      url: SERVER as string,
      credentials: { kind: 'secret', secret: account.secret },
      fetch,
    });
    events = (await readFile(CLAUDE, 'utf8'))
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as unknown);
  }, 60_000);

  it('posts at most 100 messages at a time, in order; a second call posts and uploads nothing', async () => {
    const session = await newSession();
    const log = longLog(230);
    posts.length = 0;
    const first = await appendAgentLog(client, session, log, { provider: 'claude' });
    expect(first.appended).toBe(233); // user text, turn-start, 230 texts, turn-end
    expect(Math.max(...posts)).toBeLessThanOrEqual(100);
    expect(posts.reduce((a, b) => a + b, 0)).toBe(233);
    expect(await idsIn(session)).toEqual(await oneShotIds(log));
    posts.length = 0;
    const { media, calls } = describingMedia();
    const second = await appendAgentLog(client, session, log, { provider: 'claude', media });
    expect(second).toMatchObject({ events: 231, resumedEvents: 231, appended: 0, alreadyStored: 233 });
    expect(posts).toEqual([]);
    expect(calls()).toBe(0);
  }, 120_000);

  it('an abort while an image uploads posts none of that event; a new call continues with no duplicate or gap', async () => {
    const session = await newSession();
    const controller = new AbortController();
    // The first upload waits until the abort, as an upload under way does.
    const stalling: MediaHandler = (_upload, { signal }) =>
      new Promise((_, reject) => {
        signal?.addEventListener('abort', () => reject(new AbortedError('upload cut short')), { once: true });
        controller.abort(new AbortedError('interrupted'));
      });
    const error = await rejectionOf(
      appendAgentLog(client, session, events, {
        provider: 'claude',
        media: stalling,
        signal: controller.signal,
        flushAfterMs: 0,
      }),
    );
    expect(error).toBeInstanceOf(AbortedError);
    // A handler that never settles does not hold the call either: it ends with the abort.
    const deaf = new AbortController();
    const never: MediaHandler = () => {
      deaf.abort(new AbortedError('interrupted'));
      return new Promise(() => {});
    };
    expect(
      await rejectionOf(
        appendAgentLog(client, session, events, { provider: 'claude', media: never, signal: deaf.signal }),
      ),
    ).toBeInstanceOf(AbortedError);
    // The very first event holds the image: nothing of it (not even a note for the cut upload) was posted.
    expect(await idsIn(session)).toEqual([]);
    const { media, calls } = describingMedia();
    const resumed = await appendAgentLog(client, session, events, { provider: 'claude', media });
    expect(calls()).toBe(3);
    const ids = await idsIn(session);
    expect(ids).toEqual(await oneShotIds(events));
    expect(resumed.appended).toBe(ids.length);
  }, 120_000);

  it('stopped after some events, then continued: what one call alone writes', async () => {
    const session = await newSession();
    const { media } = describingMedia();
    await appendAgentLog(client, session, events.slice(0, 5), { provider: 'claude', media, close: false });
    expect(await idsIn(session)).toEqual(await oneShotIds(events.slice(0, 5), false));
    const rest = await appendAgentLog(client, session, events, { provider: 'claude', media });
    expect(rest.resumedEvents).toBe(5);
    const messages: SessionMessage[] = [];
    for await (const record of client.readMessages(session)) messages.push(...record.messages);
    expect(messages.map((m) => m.id)).toEqual(await oneShotIds(events));
    expect(validateStream(messages, { requireTurnStart: true })).toEqual([]);
  }, 120_000);

  it('posts what it has while the source waits for more', async () => {
    const session = await newSession();
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    async function* growing() {
      yield* events.slice(0, 3);
      await released;
      yield* events.slice(3);
    }
    const { media } = describingMedia();
    const running = appendAgentLog(client, session, growing(), {
      provider: 'claude',
      media,
      flushAfterMs: 100,
    });
    const expected = await oneShotIds(events.slice(0, 3), false);
    let seen: string[] = [];
    for (let i = 0; i < 100 && seen.length < expected.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      seen = await idsIn(session);
    }
    expect(seen).toEqual(expected);
    release();
    await running;
    expect(await idsIn(session)).toEqual(await oneShotIds(events));
  }, 120_000);

  it('refuses a log that grew past an end the session holds, posting nothing of it', async () => {
    const session = await newSession();
    const { media } = describingMedia();
    await appendAgentLog(client, session, events.slice(0, 8), { provider: 'claude', media });
    const before = await idsIn(session);
    const error = await rejectionOf(appendAgentLog(client, session, events, { provider: 'claude', media }));
    expect(error).toBeInstanceOf(StreamError);
    expect((error as StreamError).message).toContain("holds the end of this log's last turn");
    expect(await idsIn(session)).toEqual(before);
  }, 120_000);

  it('refuses bad options before reading anything', async () => {
    const session = await newSession();
    for (const options of [
      { provider: 'claude', batchSize: 101 },
      { provider: 'claude', flushAfterMs: -1 },
      { provider: 'nope' },
    ]) {
      await expect(appendAgentLog(client, session, events, options)).rejects.toMatchObject({
        code: 'ERR_INVALID_ARGUMENT',
      });
    }
    await expect(appendAgentLog(client, session, 42 as never, { provider: 'claude' })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
    expect(await idsIn(session)).toEqual([]);
  }, 60_000);
});
