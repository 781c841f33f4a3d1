/**
 * The CLI against Happy's REAL server (HAPPY_MEDIA_HAPPY_SERVER_URL; skipped without it): `send --happy`
 * into a session (photo, video, file as v2, a file as v1), `transcript`, `sessions`, `play --happy` of
 * each message, and the errors a user meets (another account's session, a malformed secret file, a
 * rejected token, a file over Happy's cap). The secret goes in a file only, never on the command line.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBase64 } from '../../../src/core/bytes.js';
import { contentKeyPair } from '../../../src/core/envelope/index.js';
import {
  createAccountSecret,
  formatAccountSecret,
  HappyClient,
  type HappySession,
} from '../../../src/core/happy/index.js';
import { HAPPY_MAX_PLAINTEXT_BYTES } from '../../../src/node/happy/index.js';
import { runCli } from '../../helpers/cli.js';
import { stripPlanned } from '../../helpers/strip-check.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { hasFfmpeg, makeMp4, makePng } from '../playback/helpers/samples.js';

const SERVER = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
if (!SERVER) {
  console.warn(
    "cli-happy.test: skipped: HAPPY_MEDIA_HAPPY_SERVER_URL is not set (start Happy's server with scripts/happy-server.sh install/start DIR and source DIR/env)",
  );
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe.skipIf(!SERVER)("happy-media CLI against Happy's real server", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let secretFile: string;
  let session: HappySession;
  let foreignSession: HappySession;
  const files: Record<'photo' | 'video' | 'file', string> = { photo: '', video: '', file: '' };
  const sent: { id: string; seq: number; path: string; line: Record<string, unknown> }[] = [];
  let env: NodeJS.ProcessEnv;

  const happy = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runCli(args, { env: { ...env, ...extra }, timeoutMs: 120_000 });

  beforeAll(async () => {
    tmp = await makeTempDir();
    const secret = createAccountSecret();
    secretFile = join(tmp.dir, 'happy-secret');
    await writeFile(secretFile, `${formatAccountSecret(secret)}\n`, { mode: 0o600 });
    const client = await HappyClient.connect({
      url: SERVER as string,
      credentials: { kind: 'secret', secret },
    });
    session = await client.createSession({ metadata: { path: tmp.dir, host: 'test', name: 'cli test' } });
    const stranger = await HappyClient.connect({
      url: SERVER as string,
      credentials: { kind: 'secret', secret: createAccountSecret() },
    });
    foreignSession = await stranger.createSession({ metadata: { path: '/', host: 'other' } });
    files.photo = join(tmp.dir, 'photo.png');
    await writeFile(files.photo, await makePng(64, 48));
    files.video = (await hasFfmpeg()) ? join(tmp.dir, 'clip.mp4') : '';
    if (files.video) await writeFile(files.video, await makeMp4(tmp.dir, 1));
    files.file = join(tmp.dir, 'notes.txt');
    await writeFile(files.file, 'notes for the session\n'.repeat(3000));
    // The URL and the secret file by environment; the session by flag. Nothing secret is in argv.
    env = {
      HAPPY_MEDIA_HAPPY_SERVER_URL: SERVER,
      HAPPY_MEDIA_SECRET_FILE: secretFile,
      HAPPY_MEDIA_CACHE_DIR: join(tmp.dir, 'cache'),
    };
  }, 120_000);
  afterAll(async () => tmp?.cleanup());

  it('sends a photo, a video and a file as v2 and a file as v1 into the session, each with its seq', async () => {
    const plan: [string, string[]][] = [
      [files.photo, []],
      ...(files.video ? [[files.video, []] as [string, string[]]] : []),
      [files.file, []],
      [files.file, ['--format', 'v1']],
    ];
    for (const [path, extra] of plan) {
      const r = await happy(['send', path, '--session', session.id, '--secret-file', secretFile, ...extra]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const line = JSON.parse(r.stdout) as { message: Record<string, unknown> & { id: string }; seq: number };
      sent.push({ id: line.message.id, seq: line.seq, path, line: line.message });
    }
    expect(sent.map((s) => s.seq)).toEqual(sent.map((_, i) => i + 1));
    expect(sent[0]?.line).toMatchObject({ role: 'user', type: 'photo', width: 64, height: 48 });
    if (files.video) expect(sent[1]?.line).toMatchObject({ type: 'video', mimeType: 'video/mp4' });
    expect(sent.at(-2)?.line).toMatchObject({ type: 'file', name: 'notes.txt', mimeType: 'text/plain' });
    expect(sent.at(-1)?.line).toMatchObject({
      role: 'user',
      ev: {
        t: 'file',
        name: 'notes.txt',
        ref: expect.stringMatching(`^sessions/${session.id}/attachments/[0-9a-f-]+\\.enc$`),
      },
    });
  });

  it('reads the transcript back as v2 JSON lines that validate, the v1 event through the legacy reader', async () => {
    const r = await happy(['transcript', session.id, '--happy', SERVER as string]);
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; type: string });
    expect(lines.map((l) => l.id)).toEqual(sent.map((s) => s.id));
    expect(lines.at(-1)?.type).toBe('file');
    expect(r.stderr).toContain(`1 record(s) in Happy's older shapes read through the legacy reader`);
    const valid = await runCli(['validate', '-'], { input: r.stdout });
    expect(valid.code).toBe(0);
    const records = await happy(['transcript', session.id, '--records', '--after', '1']);
    const kinds = records.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; kind: string });
    expect(kinds.map((k) => k.seq)).toEqual(sent.slice(1).map((s) => s.seq));
    expect(kinds.at(-1)?.kind).toBe('legacy');
  });

  it('plays each sent message by its id: the verified file equals what was sent (its metadata stripped)', async () => {
    for (const { id, path } of sent) {
      const r = await happy(['play', '--happy', SERVER as string, '--session', session.id, id]);
      expect(r.stderr, id).toBe('');
      expect(r.code).toBe(0);
      const sentBytes = await stripPlanned(new Uint8Array(await readFile(path)));
      expect(await sha256(r.stdout.trim())).toBe(createHash('sha256').update(sentBytes).digest('hex'));
    }
  });

  it('lists the session with its metadata', async () => {
    const r = await happy(['sessions']);
    expect(r.code).toBe(0);
    const listed = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(listed.find((s) => s.id === session.id)).toMatchObject({
      variant: 'datakey',
      name: 'cli test',
      host: 'test',
    });
  });

  it('a session of another account is ERR_NOT_FOUND (exit 1) for send, transcript and play', async () => {
    for (const args of [
      ['send', files.file, '--happy', SERVER as string, '--session', foreignSession.id],
      ['transcript', foreignSession.id],
      ['play', '--happy', SERVER as string, '--session', foreignSession.id, 'x'],
    ]) {
      const r = await happy(args);
      expect(r.code, args[0]).toBe(1);
      expect(r.stderr).toMatch(/^happy-media: ERR_NOT_FOUND: /);
    }
  });

  it('a malformed, missing or absent secret file is ERR_USAGE (exit 2), never quoting the file', async () => {
    const bad = join(tmp.dir, 'bad-secret');
    await writeFile(bad, 'ABCDE-FGHIJ-SECRET-LOOKING-TEXT\n', { mode: 0o600 });
    for (const extra of [
      { HAPPY_MEDIA_SECRET_FILE: bad },
      { HAPPY_MEDIA_SECRET_FILE: join(tmp.dir, 'none') },
      { HAPPY_MEDIA_SECRET_FILE: '' },
    ]) {
      const r = await happy(['sessions'], extra);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^happy-media: ERR_USAGE: /);
      expect(r.stderr).not.toContain('SECRET-LOOKING');
    }
    const json = join(tmp.dir, 'bad-access.key');
    await writeFile(json, '{"token": "t"}', { mode: 0o600 });
    expect((await happy(['sessions', '--secret-file', json])).code).toBe(2);
  });

  it("reads Happy CLI's access.key; its public-key form with a token the server refuses is ERR_UNAUTHORIZED (exit 1)", async () => {
    const secret = createAccountSecret();
    const legacyForm = join(tmp.dir, 'access.key');
    await writeFile(legacyForm, JSON.stringify({ secret: toBase64(secret), token: 'stale' }, null, 2), {
      mode: 0o600,
    });
    expect((await happy(['sessions', '--secret-file', legacyForm])).code).toBe(0);
    const linkedForm = join(tmp.dir, 'linked-access.key');
    await writeFile(
      linkedForm,
      JSON.stringify({
        encryption: {
          publicKey: toBase64(contentKeyPair(secret).publicKey),
          machineKey: toBase64(new Uint8Array(32)),
        },
        token: 'not-a-token',
      }),
      { mode: 0o600 },
    );
    const r = await happy(['sessions', '--secret-file', linkedForm]);
    expect(r.code).toBe(1);
    // The flag names another file than HAPPY_MEDIA_SECRET_FILE: a note says which one is used.
    expect(r.stderr).toMatch(
      /^happy-media: note: using the secret file ".*linked-access.key" from --secret-file, not /,
    );
    expect(r.stderr).toMatch(/^happy-media: ERR_UNAUTHORIZED: /m);
    expect(r.stderr).not.toContain('not-a-token');
  });

  it("a file over Happy's cap: v1 is refused before uploading, saying to send v2; v2 goes in parts and plays back", async () => {
    const big = join(tmp.dir, 'big.bin');
    await writeFile(big, randomBytes(HAPPY_MAX_PLAINTEXT_BYTES.v1 + 1));
    const before = (await happy(['transcript', session.id, '--records'])).stdout;
    const v1 = await happy([
      'send',
      big,
      '--happy',
      SERVER as string,
      '--session',
      session.id,
      '--format',
      'v1',
    ]);
    expect(v1.code).toBe(1);
    expect(v1.stderr).toMatch(/^happy-media: ERR_LIMIT_EXCEEDED: /);
    expect(v1.stderr).toContain(String(HAPPY_MAX_PLAINTEXT_BYTES.v1));
    expect(v1.stderr).toContain('Send it as v2');
    expect((await happy(['transcript', session.id, '--records'])).stdout).toBe(before);

    const v2 = await happy(['send', big, '--happy', SERVER as string, '--session', session.id]);
    expect(v2.code).toBe(0);
    // Off a terminal: a line per part stored.
    expect(v2.stderr).toContain('happy-media send: part 2 of 2 stored');
    const { message } = JSON.parse(v2.stdout) as { message: { id: string; size: number; ref: string } };
    expect(message.size).toBe(HAPPY_MAX_PLAINTEXT_BYTES.v1 + 1);
    const played = await happy(['play', '--happy', SERVER as string, '--session', session.id, message.id]);
    expect(played.code).toBe(0);
    expect(await sha256(played.stdout.trim())).toBe(await sha256(big));
  });

  it('refuses keys, stores and tokens next to --happy: the session gives them', async () => {
    const r = await happy([
      'send',
      files.file,
      '--happy',
      SERVER as string,
      '--session',
      session.id,
      '--key-file',
      secretFile,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--key-file cannot go with --happy');
  });
});
