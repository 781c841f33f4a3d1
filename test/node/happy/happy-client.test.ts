/**
 * HappyClient against Happy's REAL server (slopus/happy happy-server, standalone mode, started by
 * scripts/happy-server.sh; HAPPY_MEDIA_HAPPY_SERVER_URL names it). Without the server every test here is
 * skipped with the reason printed. Every new secret is a new account.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { AsyncAesGcm } from '../../../src/core/aes-gcm/aes-gcm.js';
import { expoCryptoAesGcm } from '../../../src/core/aes-gcm/expo-crypto.js';
import { toBase64 } from '../../../src/core/bytes.js';
import { contentKeyPair, dataKey, sealRaw } from '../../../src/core/envelope/index.js';
import { HappyApi } from '../../../src/core/happy/happy-api.js';
import {
  createAccountSecret,
  HappyClient,
  type HappySession,
  type HappySessionRecord,
  happyFileEvent,
} from '../../../src/core/happy/index.js';
import { requestToken } from '../../../src/core/happy/sign-in.js';
import { foldTranscript, textMessage, validateStream } from '../../../src/core/protocol/index.js';
import type { FetchFunction } from '../../../src/core/transport/index.js';
import { nodeRuntime } from '../../../src/node/runtime/index.js';
import {
  assistant,
  text as claudeText,
  toolResult,
  toolUse,
  userBlocks,
} from '../../core/mappers/claude-fixtures.js';
import { rejectionCodeOf } from '../../helpers/errors.js';
import { loadExpoCryptoAes } from '../../helpers/expo-crypto.js';
import { withRuntime } from '../../helpers/installed.js';

const SERVER = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
if (!SERVER) {
  console.warn(
    "happy-client.test: skipped: HAPPY_MEDIA_HAPPY_SERVER_URL is not set (start Happy's server with scripts/happy-server.sh install/start DIR and source DIR/env)",
  );
}

const METADATA = { path: '/work/project', host: 'test-host', name: 'happy-media test' };

function connect(secret: Uint8Array, fetch?: FetchFunction): Promise<HappyClient> {
  return HappyClient.connect({
    url: SERVER as string,
    credentials: { kind: 'secret', secret },
    retryDelayMs: 1,
    maxRetryDelayMs: 5,
    ...(fetch ? { fetch } : {}),
  });
}

async function readAll(client: HappyClient, session: HappySession, after = 0): Promise<HappySessionRecord[]> {
  const out: HappySessionRecord[] = [];
  for await (const record of client.readMessages(session, { after, pageSize: 2 })) out.push(record);
  return out;
}

function pathOf(input: Parameters<FetchFunction>[0]): string {
  return new URL(String(input instanceof Request ? input.url : input)).pathname;
}

describe.skipIf(!SERVER)("HappyClient against Happy's real server", () => {
  const secret = createAccountSecret();
  let client: HappyClient;
  let session: HappySession;

  beforeAll(async () => {
    client = await connect(secret);
    session = await client.createSession({ metadata: METADATA });
  });

  it('creates a session as Happy CLI does: a data-key bundle, metadata sealed with the data key', async () => {
    expect(session.variant).toBe('datakey');
    expect(session.metadata).toEqual(METADATA);
    // A second client of the same account (same secret, new token) lists and opens it from the server.
    const again = await connect(secret);
    const listed = await again.listSessions();
    expect(listed.map((s) => s.id)).toContain(session.id);
    expect(listed.find((s) => s.id === session.id)?.metadata).toEqual(METADATA);
    const opened = await again.openSession(session.id);
    expect(opened.key).toEqual(session.key);
    expect(opened.blobKey).toEqual(session.blobKey);
    expect(opened.metadata).toEqual(METADATA);
  });

  it('the same tag gives back the same session and its key', async () => {
    const tag = `tag-${Date.now()}`;
    const first = await client.createSession({ metadata: METADATA, tag });
    const second = await client.createSession({ metadata: { ...METADATA, name: 'other' }, tag });
    expect(second.id).toBe(first.id);
    expect(second.key).toEqual(first.key);
  });

  it('appends v2 messages and a v1 file event, and reads them back in order', async () => {
    const s = await client.createSession({ metadata: METADATA });
    const text = textMessage({ role: 'user', text: 'hello from happy-media' });
    const event = happyFileEvent({
      role: 'user',
      ref: `sessions/${s.id}/attachments/00000000-0000-4000-8000-000000000000.enc`,
      name: 'a.txt',
      size: 3,
    });
    const more = Array.from({ length: 3 }, (_, i) => textMessage({ role: 'user', text: `n${i}` }));
    const appended = await client.appendMessages(s, [text, event, ...more]);
    expect(appended.map((a) => a.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(appended[0]?.localId).toBe(text.id);
    const records = await readAll(client, s);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(records[0]).toMatchObject({ kind: 'message', message: text, localId: text.id });
    // The v1 event comes back in the wrapper both of Happy's readers accept, and the legacy reader makes
    // it a v2 file message with its id, its blob reported as v1.
    expect(records[1]).toMatchObject({
      kind: 'legacy',
      record: { role: 'session', content: event, meta: { sentFrom: 'cli' } },
      messages: [
        {
          id: event.id,
          type: 'file',
          role: 'user',
          ref: 'media/00000000-0000-4000-8000-000000000000',
          name: 'a.txt',
        },
      ],
      v1Blobs: [{ ref: 'media/00000000-0000-4000-8000-000000000000', size: 3 }],
    });
    expect(records[0]?.messages).toEqual([text]);
    expect(validateStream(records.flatMap((r) => r.messages))).toEqual([]);
    expect(
      records.slice(2).map((r) => (r.kind === 'message' && r.message.type === 'text' ? r.message.text : '')),
    ).toEqual(['n0', 'n1', 'n2']);
    expect((await readAll(client, s, 3)).map((r) => r.seq)).toEqual([4, 5]);
  });

  it("over the app's asynchronous AES-GCM (expo-crypto's web AES) appends and reads back what the Node client reads", async () => {
    const expo = expoCryptoAesGcm(await loadExpoCryptoAes());
    const calls = { seal: 0, open: 0 };
    const counted: AsyncAesGcm = {
      ...expo,
      seal: (k, n, p) => {
        calls.seal++;
        return expo.seal(k, n, p);
      },
      open: (k, n, s) => {
        calls.open++;
        return expo.open(k, n, s);
      },
    };
    const s = await client.createSession({ metadata: METADATA });
    const sent = [
      textMessage({ role: 'user', text: 'from the app' }),
      happyFileEvent({
        role: 'user',
        ref: `sessions/${s.id}/attachments/00000000-0000-4000-8000-000000000001.enc`,
        name: 'b.txt',
        size: 5,
      }),
      ...Array.from({ length: 5 }, (_, i) => textMessage({ role: 'user', text: `app ${i}` })),
    ];
    const appended = await withRuntime({ ...nodeRuntime, aesGcm: counted }, () =>
      client.appendMessages(s, sent),
    );
    expect(appended.map((a) => a.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(calls.seal).toBe(sent.length);
    const byApp = await withRuntime({ ...nodeRuntime, aesGcm: counted }, () => readAll(client, s));
    expect(calls.open).toBe(sent.length);
    // Node's synchronous client reads the same records the same way.
    expect(await readAll(client, s)).toEqual(byApp);
    expect(byApp.map((r) => r.kind)).toEqual([
      'message',
      'legacy',
      'message',
      'message',
      'message',
      'message',
      'message',
    ]);
    expect(byApp.flatMap((r) => r.messages).map((m) => m.id)).toEqual(sent.map((m) => m.id));
  });

  it('posting the same message again (same localId) stores it once', async () => {
    const s = await client.createSession({ metadata: METADATA });
    const message = textMessage({ role: 'user', text: 'once' });
    const [first] = await client.appendMessages(s, [message]);
    const [second] = await client.appendMessages(s, [message]);
    expect(second?.seq).toBe(first?.seq);
    expect(second?.recordId).toBe(first?.recordId);
    expect(await readAll(client, s)).toHaveLength(1);
  });

  it('a post whose answer is lost is retried and appears once', async () => {
    let lost = 0;
    const losing: FetchFunction = async (input, init) => {
      const response = await globalThis.fetch(input, init);
      if (init?.method === 'POST' && pathOf(input).startsWith('/v3/') && lost === 0) {
        lost++;
        await response.body?.cancel();
        throw new TypeError('fetch failed: the connection dropped before the answer');
      }
      return response;
    };
    const flaky = await connect(secret, losing);
    const s = await flaky.createSession({ metadata: METADATA });
    const [appended] = await flaky.appendMessages(s, [textMessage({ role: 'user', text: 'lost answer' })]);
    expect(lost).toBe(1);
    expect(appended?.seq).toBe(1);
    expect(await readAll(client, await client.openSession(s.id))).toHaveLength(1);
  });

  it('429 and 503 on posting are retried with backoff; the message is stored once', async () => {
    const answers = [429, 503, 429];
    let posts = 0;
    const limiting: FetchFunction = async (input, init) => {
      if (init?.method === 'POST' && pathOf(input).startsWith('/v3/')) {
        posts++;
        const status = answers.shift();
        if (status) return new Response(JSON.stringify({ error: 'Too many requests' }), { status });
      }
      return globalThis.fetch(input, init);
    };
    const limited = await connect(secret, limiting);
    const s = await limited.createSession({ metadata: METADATA });
    const [appended] = await limited.appendMessages(s, [textMessage({ role: 'user', text: 'rate limited' })]);
    expect(posts).toBe(4);
    expect(appended?.seq).toBe(1);
    expect(await readAll(limited, s)).toHaveLength(1);
  });

  it('a session of another account is a clean ERR_NOT_FOUND, to open, append or read', async () => {
    const stranger = await connect(createAccountSecret());
    expect(await rejectionCodeOf(stranger.openSession(session.id))).toBe('ERR_NOT_FOUND');
    expect(
      await rejectionCodeOf(stranger.appendMessages(session, [textMessage({ role: 'user', text: 'x' })])),
    ).toBe('ERR_NOT_FOUND');
    expect(await rejectionCodeOf(readAll(stranger, session))).toBe('ERR_NOT_FOUND');
  });

  it('a rejected token is ERR_UNAUTHORIZED, not retried', async () => {
    let requests = 0;
    const counting: FetchFunction = (input, init) => {
      requests++;
      return globalThis.fetch(input, init);
    };
    const rejected = await HappyClient.connect({
      url: SERVER as string,
      credentials: {
        kind: 'content-public-key',
        contentPublicKey: contentKeyPair(secret).publicKey,
        token: 'not-a-token',
      },
      fetch: counting,
    });
    expect(await rejectionCodeOf(rejected.listSessions())).toBe('ERR_UNAUTHORIZED');
    expect(requests).toBe(1);
    try {
      await rejected.listSessions();
    } catch (error) {
      expect((error as Error).message).not.toContain('not-a-token');
    }
  });

  it("Happy CLI's public-key credentials create a session and send into it; the secret opens it, they open no other", async () => {
    const token = await requestToken(new HappyApi({ url: SERVER as string }), secret);
    const cli = await HappyClient.connect({
      url: SERVER as string,
      credentials: { kind: 'content-public-key', contentPublicKey: contentKeyPair(secret).publicKey, token },
    });
    expect(cli.canOpenSessions).toBe(false);
    const s = await cli.createSession({ metadata: METADATA });
    const message = textMessage({ role: 'user', text: 'from the CLI key' });
    await cli.appendMessages(s, [message]);
    const opened = await client.openSession(s.id);
    expect(opened.metadata).toEqual(METADATA);
    expect(await readAll(client, opened)).toMatchObject([{ kind: 'message', message }]);
    expect(await rejectionCodeOf(cli.openSession(session.id))).toBe('ERR_INVALID_ARGUMENT');
    expect((await cli.listSessions()).find((x) => x.id === s.id)?.metadata).toBeUndefined();
  });

  it('a legacy session (no data key) is sealed with the account secret, and reads back', async () => {
    const s = await client.createSession({ metadata: METADATA, variant: 'legacy' });
    expect(s.variant).toBe('legacy');
    const opened = await (await connect(secret)).openSession(s.id);
    expect(opened.variant).toBe('legacy');
    expect(opened.metadata).toEqual(METADATA);
    const message = textMessage({ role: 'user', text: 'legacy' });
    await client.appendMessages(opened, [message]);
    expect(await readAll(client, opened)).toMatchObject([{ kind: 'message', message }]);
  });

  it('a record that does not open is reported and skipped; the others still read', async () => {
    const s = await client.createSession({ metadata: METADATA });
    const before = textMessage({ role: 'user', text: 'before' });
    const after = textMessage({ role: 'user', text: 'after' });
    await client.appendMessages(s, [before]);
    // A record sealed under another key, posted straight to the route.
    const token = await requestToken(new HappyApi({ url: SERVER as string }), secret);
    const foreign = sealRaw({ hello: 'world' }, dataKey(new Uint8Array(32).fill(9))).c;
    const posted = await fetch(`${SERVER}/v3/sessions/${s.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [
          { content: foreign, localId: 'foreign-1' },
          { content: toBase64(new Uint8Array(3)), localId: 'short-1' },
        ],
      }),
    });
    expect(posted.status).toBe(200);
    await client.appendMessages(s, [after]);
    const records = await readAll(client, s);
    expect(records.map((r) => r.kind)).toEqual(['message', 'unreadable', 'unreadable', 'message']);
    expect(records.map((r) => r.messages.length)).toEqual([1, 0, 0, 1]);
    expect(records[1]?.kind === 'unreadable' && records[1].error.code).toBe('ERR_DECRYPTION_FAILED');
    expect(records[2]?.kind === 'unreadable' && records[2].error.code).toBe('ERR_FORMAT');
    expect(records[3]).toMatchObject({ kind: 'message', message: after });
  });

  it('a record the server sends without its id stays in its place among the records that open', async () => {
    const s = await client.createSession({ metadata: METADATA });
    const sent = [1, 2, 3].map((n) => textMessage({ role: 'user', text: `record ${n}` }));
    await client.appendMessages(s, sent);
    // The page as the server sent it, with the middle record's id taken away.
    const reader = await connect(secret, async (input, init) => {
      const response = await fetch(input, init);
      if (!pathOf(input).endsWith(`/sessions/${s.id}/messages`) || init?.method !== 'GET') return response;
      const page = (await response.json()) as { messages: { seq: number; id?: string }[] };
      for (const record of page.messages) if (record.seq === page.messages[0]!.seq + 1) delete record.id;
      return Response.json(page);
    });
    const out: HappySessionRecord[] = [];
    for await (const record of reader.readMessages(s)) out.push(record);
    expect(out.map((r) => r.kind)).toEqual(['message', 'unreadable', 'message']);
    expect(out[1]?.kind === 'unreadable' && out[1].error.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(out[0]).toMatchObject({ kind: 'message', message: sent[0] });
    expect(out[2]).toMatchObject({ kind: 'message', message: sent[2] });
  });

  it("reads a session in Happy's older shapes through the legacy reader into one valid v2 stream", async () => {
    const s = await client.createSession({ metadata: METADATA });
    const legacy = [
      { role: 'user', content: { type: 'text', text: 'List files' } },
      {
        role: 'agent',
        content: { type: 'output', data: assistant('msg_1', [toolUse('toolu_1', 'LS', { path: '/p' })]) },
      },
      {
        role: 'agent',
        content: { type: 'output', data: { ...userBlocks([toolResult('toolu_1', 'a')]), uuid: 'u2' } },
      },
      { role: 'agent', content: { type: 'output', data: assistant('msg_2', [claudeText('One file.')]) } },
      { role: 'agent', content: { type: 'event', id: 'e', data: { type: 'ready' } } },
    ];
    const token = await requestToken(new HappyApi({ url: SERVER as string }), secret);
    const posted = await fetch(`${SERVER}/v3/sessions/${s.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: legacy.map((record, i) => ({ content: sealRaw(record, s.key).c, localId: `legacy-${i}` })),
      }),
    });
    expect(posted.status).toBe(200);
    const records = await readAll(client, s);
    expect(records.map((r) => r.kind)).toEqual(Array(5).fill('legacy'));
    const messages = records.flatMap((r) => r.messages);
    expect(messages.map((m) => m.type)).toEqual([
      'text',
      'turn-start',
      'tool-call-start',
      'tool-call-end',
      'text',
      'turn-end',
    ]);
    // Ids come from the server's record ids, so reading again gives the same stream.
    expect(messages[0]?.id).toBe(records[0]?.recordId);
    expect((await readAll(client, s)).flatMap((r) => r.messages)).toEqual(messages);
    expect(validateStream(messages)).toEqual([]);
    expect(foldTranscript(messages).calls.get('toolu_1')?.status).toBe('completed');
  });

  it('refuses an invalid message before sending anything', async () => {
    let posts = 0;
    const counting: FetchFunction = (input, init) => {
      if (init?.method === 'POST' && pathOf(input).startsWith('/v3/')) posts++;
      return globalThis.fetch(input, init);
    };
    const c = await connect(secret, counting);
    const good = textMessage({ role: 'user', text: 'ok' });
    const bad = { ...good, id: 'other', type: 'nonsense' };
    expect(await rejectionCodeOf(c.appendMessages(session, [good, bad as never]))).toBe('ERR_SCHEMA');
    expect(await rejectionCodeOf(c.appendMessages(session, [good, good]))).toBe('ERR_INVALID_ARGUMENT');
    expect(posts).toBe(0);
  });
});
