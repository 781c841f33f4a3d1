/**
 * A resumable send into Happy's REAL server (HAPPY_MEDIA_HAPPY_SERVER_URL; skipped without it), as a user
 * meets it: `happy-media send FILE --happy …` as a real process, SIGKILLed at several points (between
 * parts, in the middle of a part's upload, after the last part, after the message was posted but before
 * the process heard so) and run again. The bytes uploaded are counted by a proxy in front of the server:
 * the run that resumes sends only what the server does not hold (the parts cut off, whole, at most),
 * the message is in the session exactly once and plays back. A file changed between the runs starts over
 * and says so. The journal is private (0700/0600), holds no key and no plaintext, and is gone when done.
 * Parts are made small (--part-bytes) so each send is a dozen attachments.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { appendFile, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partCiphertext, partLayout } from '../../../src/core/blob/parts.js';
import { toBase64 } from '../../../src/core/bytes.js';
import {
  createAccountSecret,
  formatAccountSecret,
  HappyClient,
  type HappySession,
} from '../../../src/core/happy/index.js';
import { CLI_BIN, runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { type FaultProxy, startFaultProxy } from '../playback/helpers/fault-proxy.js';

const SERVER = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
if (!SERVER) {
  console.warn(
    "resume-send.test: skipped: HAPPY_MEDIA_HAPPY_SERVER_URL is not set (start Happy's server with scripts/happy-server.sh install/start DIR and source DIR/env)",
  );
}

/** 63 chunks per part: 1 033 256 bytes in part 0, 1 033 200 in the others. */
const PART_BYTES = 56 + 63 * 16400;
const FILE_BYTES = 12 * 1024 * 1024 + 4321;
const LAYOUT = partLayout(FILE_BYTES, 63);
/** Ciphertext bytes of the first `k` parts (the header is in part 0 only). */
const firstParts = (k: number) => k * PART_BYTES - (k - 1) * 56;

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

/** A CLI run that can be killed from a line of its stderr (or from outside), and its end. */
function startCli(args: string[], env: NodeJS.ProcessEnv, killOn?: (line: string) => boolean) {
  const child: ChildProcess = spawn(process.execPath, [CLI_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 300_000,
  });
  let stdout = '';
  let stderr = '';
  let pending = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString('utf8');
  });
  child.stderr?.on('data', (d: Buffer) => {
    const text = d.toString('utf8');
    stderr += text;
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (killOn?.(line)) child.kill('SIGKILL');
  });
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

describe.skipIf(!SERVER)("resuming a send into Happy's real server after SIGKILL", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let proxy: FaultProxy;
  let client: HappyClient;
  let session: HappySession;
  let env: NodeJS.ProcessEnv;
  let state: string;

  beforeAll(async () => {
    tmp = await makeTempDir();
    proxy = await startFaultProxy(SERVER as string);
    const secret = createAccountSecret();
    const secretFile = join(tmp.dir, 'secret');
    await writeFile(secretFile, `${formatAccountSecret(secret)}\n`, { mode: 0o600 });
    client = await HappyClient.connect({ url: SERVER as string, credentials: { kind: 'secret', secret } });
    session = await client.createSession({ metadata: { path: tmp.dir, host: 'test', name: 'resume' } });
    state = join(tmp.dir, 'state');
    env = {
      HAPPY_MEDIA_HAPPY_SERVER_URL: proxy.url,
      HAPPY_MEDIA_SECRET_FILE: secretFile,
      HAPPY_MEDIA_SESSION: session.id,
      HAPPY_MEDIA_CACHE_DIR: join(tmp.dir, 'cache'),
      XDG_STATE_HOME: state,
    };
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await tmp?.cleanup();
  });

  const send = (file: string, killOn?: (line: string) => boolean) =>
    startCli(['send', file, '--part-bytes', String(PART_BYTES)], env, killOn);

  /** The session's v2 messages with this id. */
  async function messagesWithId(id: string): Promise<number> {
    let count = 0;
    for await (const record of client.readMessages(session, { after: 0 })) {
      count += record.messages.filter((message) => message.id === id).length;
    }
    return count;
  }

  /**
   * Ciphertext bytes of the parts Happy's server holds whole, of those the journal names (the send stores
   * two parts at once, so what a killed run leaves is not always the first k parts).
   */
  async function heldBytes(): Promise<{ held: number; parts: number }> {
    const dir = join(state, 'happy-media', 'uploads');
    const [name] = (await readdir(dir)).filter((n) => n.endsWith('.json'));
    const record = JSON.parse(await readFile(join(dir, name as string), 'utf8')) as {
      parts: { sent: ({ ref: string } | null)[] };
    };
    const store = client.attachmentStore(session);
    let held = 0;
    let parts = 0;
    for (const [index, entry] of record.parts.sent.entries()) {
      if (!entry) continue;
      const size = partCiphertext(LAYOUT, index).length;
      const found = await store.head(entry.ref).catch(() => undefined);
      if (found?.size === size) {
        held += size;
        parts += 1;
      }
    }
    return { held, parts };
  }

  async function newFile(name: string): Promise<string> {
    const path = join(tmp.dir, name);
    await writeFile(path, randomBytes(FILE_BYTES));
    return path;
  }

  /** Plays the message back through the CLI and compares with the file. */
  async function playsBack(id: string, file: string): Promise<void> {
    const played = await runCli(['play', id], { env, timeoutMs: 120_000 });
    expect(played.code, played.stderr).toBe(0);
    expect(await sha256(played.stdout.trim())).toBe(await sha256(file));
  }

  it('killed between parts and in the middle of a part: the next runs send only what is left, one message', async () => {
    const file = await newFile('a.bin');
    proxy.sent = {};
    // 1. Killed once part 3 is confirmed.
    const first = await send(file, (line) => line.includes(`part 3 of ${LAYOUT.count} stored`)).done;
    expect(first.signal).toBe('SIGKILL');
    const afterFirst = proxy.sent.PUT ?? 0;
    expect(afterFirst).toBeGreaterThanOrEqual(firstParts(3));
    const records = (await readdir(join(state, 'happy-media', 'uploads'))).filter((n) => n.endsWith('.json'));
    expect(records).toHaveLength(1);
    const record = await readFile(join(state, 'happy-media', 'uploads', records[0] as string), 'utf8');
    expect(record).not.toContain(toBase64(session.blobKey));
    expect(record).not.toContain((await readFile(file)).subarray(0, 18).toString('base64'));
    expect((await stat(join(state, 'happy-media', 'uploads'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(state, 'happy-media', 'uploads', records[0] as string))).mode & 0o777).toBe(
      0o600,
    );

    // 2. Resumed, then killed in the middle of its 4th PUT (two parts are stored at once, so another
    // part may be cut off too): half the part reaches the server, and the process dies.
    let puts = 0;
    const second = send(file);
    proxy.onRequest = (method) => {
      if (method !== 'PUT' || ++puts !== 4) return undefined;
      second.child.kill('SIGKILL');
      return PART_BYTES / 2;
    };
    const killed = await second.done;
    proxy.onRequest = undefined;
    expect(killed.signal).toBe('SIGKILL');
    // Part 3 was stored; the part beside it may have been too.
    expect(killed.stderr).toMatch(/resuming an interrupted send: [34] of 13 parts were stored/);
    const beforeLast = proxy.sent.PUT ?? 0;
    const { held, parts: heldParts } = await heldBytes();
    expect(heldParts).toBeGreaterThanOrEqual(5); // two of its PUTs ended before the 4th began
    expect(heldParts).toBeLessThan(LAYOUT.count);

    // 3. Runs to the end: what it sends is what was left, give or take the part that was cut off.
    const third = await send(file).done;
    expect(third.code).toBe(0);
    expect(third.stderr).toMatch(/resuming an interrupted send: \d+ of 13 parts were stored/);
    const { message } = JSON.parse(third.stdout) as { message: { id: string; ref: string } };
    const left = LAYOUT.ciphertextSize - held;
    const resent = (proxy.sent.PUT ?? 0) - beforeLast;
    // The parts the server does not hold (those cut off, again whole) and the manifest (a few hundred bytes).
    expect(resent).toBeGreaterThanOrEqual(left);
    expect(resent).toBeLessThanOrEqual(left + 2048);
    expect(resent / left).toBeLessThanOrEqual(1.1);
    // The first run's waste (at most the two parts in flight when it was killed), and nothing else.
    expect((proxy.sent.PUT ?? 0) - (beforeLast - afterFirst)).toBeLessThan(
      LAYOUT.ciphertextSize + 2 * PART_BYTES + 2048,
    );
    expect(await messagesWithId(message.id)).toBe(1);
    // Done: the record is swept.
    expect((await readdir(join(state, 'happy-media', 'uploads'))).filter((n) => !n.startsWith('.'))).toEqual(
      [],
    );
    await playsBack(message.id, file);
  }, 600_000);

  it('killed after the last part, and after the message was posted: the message is posted once', async () => {
    const file = await newFile('b.bin');
    const first = await send(file, (line) => line.includes(`part ${LAYOUT.count} of ${LAYOUT.count} stored`))
      .done;
    expect(first.signal).toBe('SIGKILL');
    // The append reaches the server, and the process dies before it hears the answer.
    const second = send(file);
    proxy.onAnswer = (method, path) => {
      if (method === 'POST' && /\/messages$/.test(path)) second.child.kill('SIGKILL');
    };
    const posted = await second.done;
    proxy.onAnswer = undefined;
    expect(posted.signal).toBe('SIGKILL');
    expect(posted.stderr).toMatch(/13 of 13 parts were stored/);
    proxy.sent = {};
    const third = await send(file).done;
    expect(third.code).toBe(0);
    expect(third.stderr).toMatch(/13 of 13 parts were stored, and the manifest/);
    expect(proxy.sent.PUT ?? 0).toBe(0);
    const { message } = JSON.parse(third.stdout) as { message: { id: string } };
    expect(await messagesWithId(message.id)).toBe(1);
    await playsBack(message.id, file);
  }, 600_000);

  it('a file changed between runs starts over and says so', async () => {
    const file = await newFile('c.bin');
    const first = await send(file, (line) => line.includes(`part 4 of ${LAYOUT.count} stored`)).done;
    expect(first.signal).toBe('SIGKILL');
    await appendFile(file, randomBytes(10));
    proxy.sent = {};
    const second = await send(file).done;
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/changed .*since the interrupted send; starting over/);
    expect(proxy.sent.PUT ?? 0).toBeGreaterThanOrEqual(partLayout(FILE_BYTES + 10, 63).ciphertextSize);
    const { message } = JSON.parse(second.stdout) as { message: { id: string } };
    await playsBack(message.id, file);
  }, 600_000);
});
