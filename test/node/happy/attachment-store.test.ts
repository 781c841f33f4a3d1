/**
 * HappyServerStore against Happy's REAL server (slopus/happy happy-server, standalone mode, started by
 * scripts/happy-server.sh; .ci/run exports HAPPY_MEDIA_HAPPY_SERVER_URL). Without the server every test
 * here is skipped with the reason printed. Fresh accounts come from test/helpers/happy-account.ts.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ciphertextSize,
  decryptBlob,
  encryptBlob,
  mediaBlobContext,
  openBlobRandomAccess,
  unboundBlobContext,
} from '../../../src/core/blob/index.js';
import {
  dataKey,
  type EncryptedEnvelope,
  openRaw,
  sessionBlobKey,
} from '../../../src/core/envelope/index.js';
import { HappyServerStore } from '../../../src/core/happy/attachment-store.js';
import { decryptV1Blob, formatAccountSecret, unwrapSessionContent } from '../../../src/core/happy/index.js';
import type { FetchFunction } from '../../../src/core/transport/index.js';
import { openMedia } from '../../../src/node/playback/index.js';
import { sendMedia } from '../../../src/node/send/index.js';
import { storeRangeSource } from '../../../src/node/storage/index.js';
import { runCli } from '../../helpers/cli.js';
import { rejectionOf } from '../../helpers/errors.js';
import { newHappyAccount } from '../../helpers/happy-account.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { collect, describeStoreContract, streamOf } from '../storage/store-contract.js';

const SERVER = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
if (!SERVER) {
  console.warn(
    "attachment-store.test: skipped: HAPPY_MEDIA_HAPPY_SERVER_URL is not set (start Happy's server with scripts/happy-server.sh install/start DIR and source DIR/env)",
  );
}

interface Account {
  url: string;
  token: string;
  sessionId: string;
  /** The account secret and the session's blob key (the CLI's key check reads them). */
  secret: Uint8Array;
  blobKey: Uint8Array;
}

async function newAccount(): Promise<Account> {
  const { url, token, sessionId, secret, session } = await newHappyAccount(SERVER as string);
  return { url, token, sessionId, secret, blobKey: session.blobKey };
}

/** A fetch that records every request (method and path), to prove what was (not) sent. */
function countingFetch(): { fetch: FetchFunction; calls: string[] } {
  const calls: string[] = [];
  const fetch: FetchFunction = (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    calls.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    return globalThis.fetch(input, init);
  };
  return { fetch, calls };
}

if (SERVER)
  describeStoreContract(
    "HappyServerStore (Happy's real server)",
    async () => new HappyServerStore(await newAccount()),
  );

describe.skipIf(!SERVER)("HappyServerStore against Happy's real server (local mode)", () => {
  let owner: Account;
  let stranger: Account;
  let store: HappyServerStore;
  let tmp: { dir: string; cleanup: () => Promise<void> };
  const key = new Uint8Array(randomBytes(32));
  const plaintext = new Uint8Array(randomBytes(3 * 16384 + 1000));
  let ciphertext: Uint8Array;
  let ref: string;

  beforeAll(async () => {
    [owner, stranger] = await Promise.all([newAccount(), newAccount()]);
    store = new HappyServerStore(owner);
    tmp = await makeTempDir();
    ciphertext = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
  });
  afterAll(() => tmp?.cleanup());

  it('creates a blob under a ref the server issued, reads it back whole, by range and its size', async () => {
    const progress: number[] = [];
    ({ ref } = await store.create(ciphertext.length, () => streamOf(ciphertext), {
      onProgress: (done) => progress.push(done),
    }));
    expect(ref).toMatch(/^media\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(store.serverRef(ref)).toBe(`sessions/${owner.sessionId}/attachments/${ref.slice(6)}.enc`);
    expect(store.mediaRef(store.serverRef(ref))).toBe(ref);
    expect(progress.at(-1)).toBe(ciphertext.length);
    expect(await store.head(ref)).toEqual({ size: ciphertext.length });
    expect(Buffer.from(await collect(await store.get(ref))).equals(Buffer.from(ciphertext))).toBe(true);
    for (const [offset, length] of [
      [0, 56],
      [56, 16400],
      [16455, 2],
      [56 + 3 * 16400, 10_000_000],
      [ciphertext.length, 10],
      [100, 0],
    ] as const) {
      const got = await collect(await store.get(ref, { offset, length }));
      const want = ciphertext.subarray(offset, Math.min(ciphertext.length, offset + length));
      expect(Buffer.from(got).equals(Buffer.from(want)), `${offset}+${length}`).toBe(true);
    }
    expect((await rejectionOf(store.get(ref, { offset: ciphertext.length + 1, length: 1 }))).code).toBe(
      'ERR_INVALID_ARGUMENT',
    );
  });

  it('serves random access although the server ignores Range (it answers 200 with the whole body)', async () => {
    // The server really ignores Range: ask it directly.
    const { downloadUrl } = (await (
      await fetch(`${owner.url}/v1/sessions/${owner.sessionId}/attachments/request-download`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ref: store.serverRef(ref) }),
      })
    ).json()) as { downloadUrl: string };
    const raw = await fetch(downloadUrl, {
      headers: { authorization: `Bearer ${owner.token}`, range: 'bytes=0-9' },
    });
    expect(raw.status).toBe(200);
    expect((await raw.arrayBuffer()).byteLength).toBe(ciphertext.length);
    // Through the store, random-access decryption still gets exactly its chunks.
    const reader = await openBlobRandomAccess(storeRangeSource(store, ref), key, {
      context: unboundBlobContext(),
    });
    const piece = await reader.read(16380, 16400);
    expect(Buffer.from(piece).equals(Buffer.from(plaintext.subarray(16380, 32780)))).toBe(true);
  });

  it('reports a never-uploaded ref as ERR_NOT_FOUND, and refuses bad or foreign refs before any request', async () => {
    const missing = `media/${crypto.randomUUID()}`;
    expect((await rejectionOf(store.head(missing))).code).toBe('ERR_NOT_FOUND');
    expect((await rejectionOf(store.get(missing))).code).toBe('ERR_NOT_FOUND');
    const { fetch, calls } = countingFetch();
    const counted = new HappyServerStore({ ...owner, fetch });
    for (const bad of [
      'media/../x',
      'media/abc',
      'media/A8B6B8A5-D6A5-45F6-98E6-AE455C57B9A0',
      'x',
      'machine-file:///etc/passwd',
    ]) {
      expect((await rejectionOf(counted.get(bad))).code, bad).toBe('ERR_INVALID_REF');
      expect((await rejectionOf(counted.head(bad))).code, bad).toBe('ERR_INVALID_REF');
    }
    const foreign = `sessions/${stranger.sessionId}/attachments/${ref.slice(6)}.enc`;
    expect((await rejectionOf(Promise.resolve().then(() => counted.mediaRef(foreign)))).code).toBe(
      'ERR_INVALID_REF',
    );
    expect(
      (await rejectionOf(Promise.resolve().then(() => counted.mediaRef('sessions/x/../y.enc')))).code,
    ).toBe('ERR_INVALID_REF');
    expect(calls).toEqual([]);
  });

  it('another account cannot read or upload into the session: 404, not retried, named by leg', async () => {
    const { fetch, calls } = countingFetch();
    const intruder = new HappyServerStore({
      url: stranger.url,
      token: stranger.token,
      sessionId: owner.sessionId,
      fetch,
    });
    const read = await rejectionOf(intruder.get(ref));
    expect(read.code).toBe('ERR_NOT_FOUND');
    expect(read.message).toMatch(/^request-download failed/);
    const write = await rejectionOf(intruder.create(100, () => streamOf(new Uint8Array(100))));
    expect(write.code).toBe('ERR_UPLOAD_FAILED');
    expect(write.message).toMatch(/^request-upload failed/);
    expect(calls.length).toBe(2);
  });

  it('a missing or wrong token fails at once (401: ERR_UNAUTHORIZED, not retried) and never appears in the error', async () => {
    expect(() => new HappyServerStore({ ...owner, token: '' })).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
    const { fetch, calls } = countingFetch();
    const wrong = 'not-a-valid-token-123456';
    const bad = new HappyServerStore({ ...owner, token: wrong, fetch });
    const up = await rejectionOf(bad.create(10, () => streamOf(new Uint8Array(10))));
    expect(up.code).toBe('ERR_UNAUTHORIZED');
    expect(up.message).toMatch(/^request-upload failed.*401/);
    const down = await rejectionOf(bad.get(ref));
    expect(down.code).toBe('ERR_UNAUTHORIZED');
    expect(down.message).toMatch(/^request-download failed.*401/);
    expect(calls.length).toBe(2);
    expect(`${up.message}${down.message}`).not.toContain(wrong);
    expect(`${up.message}${down.message}`).not.toContain(owner.token);
  });

  it('refuses a blob over 10 MiB with ERR_LIMIT_EXCEEDED before any request; exactly 10 MiB goes through; sendMedia goes in parts', async () => {
    const { fetch, calls } = countingFetch();
    const counted = new HappyServerStore({ ...owner, fetch });
    const over = await rejectionOf(counted.create(10 * 1024 * 1024 + 1, () => streamOf(new Uint8Array(10))));
    expect(over.code).toBe('ERR_LIMIT_EXCEEDED');
    expect(over.message).toContain('10485760');
    expect(over.message).toMatch(/in parts/);
    expect(calls).toEqual([]);
    // The largest blob Happy accepts, byte for byte.
    const max = new Uint8Array(randomBytes(10 * 1024 * 1024));
    const { ref: maxRef } = await counted.create(max.length, () => streamOf(max, 1 << 20));
    expect((await counted.head(maxRef)).size).toBe(max.length);
    // sendMedia stores a file over one attachment in parts: two parts, then the manifest.
    const bigFile = join(tmp.dir, 'big.bin');
    await writeFile(bigFile, randomBytes(10 * 1024 * 1024 - 100));
    calls.length = 0;
    const send = await sendMedia(bigFile, { store: counted, blobKey: key });
    expect(send.parts).toBe(2);
    expect(calls.filter((call) => call.endsWith('/request-upload'))).toHaveLength(3);
  });

  it('round-trips a v2 photo through sendMedia and playback (openMedia)', async () => {
    const photo = join(tmp.dir, 'shot.png');
    await sharp(Buffer.from(randomBytes(64 * 48 * 3)), { raw: { width: 64, height: 48, channels: 3 } })
      .png()
      .toFile(photo);
    const blobKey = new Uint8Array(randomBytes(32));
    const sent = await sendMedia(photo, { store, blobKey });
    expect(sent.message.type).toBe('photo');
    expect(sent.message.ref).toBe(sent.ref);
    expect(sent.ref).toMatch(/^media\/[0-9a-f-]{36}$/);
    expect(sent.ciphertextSize).toBe(ciphertextSize(sent.probe.size));
    const stored = await collect(await store.get(sent.ref));
    const original = new Uint8Array(await import('node:fs/promises').then((fs) => fs.readFile(photo)));
    expect(
      Buffer.from(await decryptBlob(stored, blobKey, { context: mediaBlobContext(sent.ref) })).equals(
        Buffer.from(original),
      ),
    ).toBe(true);
    const opened = await openMedia(sent.message, { store, blobKey });
    try {
      const back = await import('node:fs/promises').then((fs) => fs.readFile(opened.path));
      expect(back.equals(Buffer.from(original))).toBe(true);
    } finally {
      await opened.dispose?.();
    }
  });

  it("round-trips a v1 photo (what Happy's released app opens): happy-wire file event with the server's ref", async () => {
    const photo = join(tmp.dir, 'v1.png');
    await sharp(Buffer.from(randomBytes(40 * 30 * 3)), { raw: { width: 40, height: 30, channels: 3 } })
      .png()
      .toFile(photo);
    const original = await readFile(photo);
    const sessionDataKey = new Uint8Array(randomBytes(32));
    const blobKey = sessionBlobKey(sessionDataKey);
    const sent = await sendMedia(photo, { store, blobKey, format: 'v1', sealKey: dataKey(sessionDataKey) });
    const event = sent.message;
    expect(event.ev.t).toBe('file');
    expect(event.ev.ref).toBe(store.serverRef(sent.ref));
    expect(event.ev.ref).toMatch(new RegExp(`^sessions/${owner.sessionId}/attachments/[0-9a-f-]{36}\\.enc$`));
    expect(event.ev.size).toBe(original.length);
    expect(event.ev.image).toMatchObject({ width: 40, height: 30 });
    expect(sent.ciphertextSize).toBe(original.length + 40);
    // The sealed envelope is the app's wrapper around the event.
    expect(
      unwrapSessionContent(openRaw(sent.envelope as EncryptedEnvelope, dataKey(sessionDataKey))),
    ).toEqual(event);
    // The stored blob is a v1 blob under the session blob key, as the app's decryptBlob expects.
    const stored = await collect(await store.get(sent.ref));
    expect(Buffer.from(decryptV1Blob(stored, blobKey)).equals(original)).toBe(true);
    // Playback of a v1 ref through the server.
    const opened = await openMedia(
      { ref: store.mediaRef(event.ev.ref), format: 'v1', size: event.ev.size },
      { store, blobKey },
    );
    try {
      expect((await readFile(opened.path)).equals(original)).toBe(true);
    } finally {
      await opened.dispose();
    }
  });

  it('v1: the largest file Happy takes (10485720 bytes) goes; one byte more is refused before any request', async () => {
    const { fetch, calls } = countingFetch();
    const counted = new HappyServerStore({ ...owner, fetch });
    const blobKey = new Uint8Array(randomBytes(32));
    const over = join(tmp.dir, 'over.bin');
    await writeFile(over, randomBytes(10 * 1024 * 1024 - 40 + 1));
    const refused = await rejectionOf(sendMedia(over, { store: counted, blobKey, format: 'v1' }));
    expect(refused.code).toBe('ERR_LIMIT_EXCEEDED');
    expect(calls).toEqual([]);
    const max = join(tmp.dir, 'max.bin');
    await writeFile(max, randomBytes(10 * 1024 * 1024 - 40));
    const sent = await sendMedia(max, { store: counted, blobKey, format: 'v1' });
    expect(sent.ciphertextSize).toBe(10 * 1024 * 1024);
    expect((await counted.head(sent.ref)).size).toBe(10 * 1024 * 1024);
    expect(refused.message).toContain('at most 10485720 bytes of plaintext');
    // And it plays back from the server (the event's server ref mapped back), byte for byte.
    const opened = await openMedia(
      { ref: counted.mediaRef(sent.message.ev.ref), format: 'v1', size: sent.message.ev.size },
      { store: counted, blobKey },
    );
    try {
      expect((await readFile(opened.path)).equals(await readFile(max))).toBe(true);
    } finally {
      await opened.dispose();
    }
  });

  it('CLI: send --store happy+http://… --session --format v1, then play the printed message; the token stays out of argv and output', async () => {
    const photo = join(tmp.dir, 'cli.png');
    await sharp(Buffer.from(randomBytes(32 * 32 * 3)), { raw: { width: 32, height: 32, channels: 3 } })
      .png()
      .toFile(photo);
    // The session's own blob key, checked against the session (its bundle opened with the secret) first.
    const keyFile = join(tmp.dir, 'blob.key');
    await writeFile(keyFile, Buffer.from(owner.blobKey).toString('base64'), { mode: 0o600 });
    const secretFile = join(tmp.dir, 'owner.secret');
    await writeFile(secretFile, formatAccountSecret(owner.secret), { mode: 0o600 });
    const spec = `happy+${owner.url}`;
    const env = { HAPPY_MEDIA_TOKEN: owner.token, HAPPY_MEDIA_SECRET_FILE: secretFile };
    const sent = await runCli(
      ['send', photo, '--store', spec, '--session', owner.sessionId, '--key-file', keyFile, '--format', 'v1'],
      { env },
    );
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    const printed = JSON.parse(sent.stdout) as { message: { ev: { ref: string } } };
    expect(printed.message.ev.ref).toMatch(/^sessions\//);
    const message = join(tmp.dir, 'message.json');
    await writeFile(message, sent.stdout);
    const cacheDir = join(tmp.dir, 'cache');
    const played = await runCli(
      [
        'play',
        message,
        '--store',
        spec,
        '--session',
        owner.sessionId,
        '--key-file',
        keyFile,
        '--cache-dir',
        cacheDir,
      ],
      { env },
    );
    expect(played.code, played.stderr).toBe(0);
    expect((await readFile(played.stdout.trim())).equals(await readFile(photo))).toBe(true);
    expect(`${sent.stdout}${sent.stderr}${played.stdout}${played.stderr}`).not.toContain(owner.token);
    // Without a token or a session: usage errors (exit 2) before any request.
    const noToken = await runCli(
      ['send', photo, '--store', spec, '--session', owner.sessionId, '--key-file', keyFile],
      {
        env: { HAPPY_MEDIA_TOKEN: '' },
      },
    );
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('ERR_USAGE');
    const noSession = await runCli(['send', photo, '--store', spec, '--key-file', keyFile], { env });
    expect(noSession.code).toBe(2);
  });
});
