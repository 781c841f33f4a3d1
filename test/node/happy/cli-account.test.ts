/**
 * A Happy user's CLI against Happy's REAL server (HAPPY_MEDIA_HAPPY_SERVER_URL; skipped without it):
 * `account create/import/secret/status` keep the secret in a 0600 file (by default under
 * XDG_CONFIG_HOME) with no repository script; `sessions create` makes a session Happy's app opens (a
 * data-key bundle, metadata sealed with its key, titled by `--name`); files that are evidently not a
 * secret (a keygen key, a bearer token) are refused before any sign-in; `send`/`play` honour
 * HAPPY_MEDIA_HAPPY_SERVER_URL and say which setting they used when two disagree; an empty file is
 * refused with nothing appended; `play MESSAGE.json` is understood in a session; `--store happy+…`
 * checks the blob key against the session before anything is uploaded.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, fchmodSync, openSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64, toBase64 } from '../../../src/core/bytes.js';
import { decryptJson } from '../../../src/core/envelope/index.js';
import { HappyApi } from '../../../src/core/happy/happy-api.js';
import {
  createAccountSecret,
  formatAccountSecret,
  HappyClient,
  parseAccountSecret,
  parseHappyCredentials,
} from '../../../src/core/happy/index.js';
import { requestToken } from '../../../src/core/happy/sign-in.js';
import { CLI_BIN, runCli } from '../../helpers/cli.js';
import { newHappyAccount } from '../../helpers/happy-account.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { startFaultProxy } from '../playback/helpers/fault-proxy.js';
import { makePng } from '../playback/helpers/samples.js';

const SERVER = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
if (!SERVER) {
  console.warn(
    "cli-account.test: skipped: HAPPY_MEDIA_HAPPY_SERVER_URL is not set (start Happy's server with scripts/happy-server.sh and source DIR/env)",
  );
}

/** The environment of a user with nothing set up: no server, no secret file, an empty config home. */
function bareEnv(configHome: string): NodeJS.ProcessEnv {
  return {
    XDG_CONFIG_HOME: configHome,
    HAPPY_MEDIA_HAPPY_SERVER_URL: '',
    HAPPY_MEDIA_SECRET_FILE: '',
    HAPPY_MEDIA_SESSION: '',
    HAPPY_MEDIA_STORE: '',
    HAPPY_MEDIA_KEY: '',
    HAPPY_MEDIA_TOKEN: '',
  };
}

/** Runs the CLI with stdout going to the file descriptor `fd`. */
function runToFd(args: string[], fd: number, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      stdio: ['ignore', fd, 'pipe'],
      env: { ...process.env, ...env },
    });
    const err: Buffer[] = [];
    child.stderr?.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr: Buffer.concat(err).toString('utf8') }));
  });
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe.skipIf(!SERVER)("a Happy user's CLI against Happy's real server", () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  const p = (name: string) => join(tmp.dir, name);
  beforeAll(async () => {
    tmp = await makeTempDir('happy-media-account-');
  });
  afterAll(async () => tmp?.cleanup());

  it('account create writes a new secret 0600 in the default place, never over one; status and secret read it', async () => {
    const env = bareEnv(p('config-a'));
    const created = await runCli(['account', 'create'], { env });
    expect(created.code, created.stderr).toBe(0);
    const line = JSON.parse(created.stdout) as { secretFile: string; kind: string; server: null };
    expect(line).toEqual({
      secretFile: join(p('config-a'), 'happy-media', 'secret'),
      kind: 'secret',
      server: null,
    });
    expect((await stat(line.secretFile)).mode & 0o777).toBe(0o600);
    expect((await stat(join(p('config-a'), 'happy-media'))).mode & 0o777).toBe(0o700);
    const before = await readFile(line.secretFile, 'utf8');

    const again = await runCli(['account', 'create'], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /^happy-media: ERR_USAGE: .* exists: an account secret is never overwritten/,
    );
    expect(await readFile(line.secretFile, 'utf8')).toBe(before);

    const status = await runCli(['account', '--happy', SERVER as string], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toEqual({
      secretFile: line.secretFile,
      kind: 'secret',
      server: SERVER,
      signedIn: true,
    });
    const shown = await runCli(['account', 'secret'], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout.trim()).toMatch(/^([A-Z2-7]{5}-){10}[A-Z2-7]{2}$/);
    expect(parseAccountSecret(shown.stdout)).toEqual(parseAccountSecret(before));
  });

  it('account secret refuses stdout in a file others can read (nothing written) and writes into a private one', async () => {
    const env = bareEnv(p('config-b'));
    expect((await runCli(['account', 'create'], { env })).code).toBe(0);
    const shared = p('shared.txt');
    const fd = openSync(shared, 'w', 0o644);
    fchmodSync(fd, 0o644);
    const refused = await runToFd(['account', 'secret'], fd, env);
    closeSync(fd);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('stdout is a file other users can read (mode 0644)');
    expect(await readFile(shared, 'utf8')).toBe('');
    const own = p('own.txt');
    const privateFd = openSync(own, 'w', 0o600);
    const written = await runToFd(['account', 'secret'], privateFd, env);
    closeSync(privateFd);
    expect(written.code).toBe(0);
    expect((await readFile(own, 'utf8')).trim()).toMatch(/^([A-Z2-7]{5}-){10}[A-Z2-7]{2}$/);
  });

  it("account import takes the app's secret key on stdin and Happy CLI's access.key from a file; refuses a keygen key and a token", async () => {
    const secret = createAccountSecret();
    const env = { ...bareEnv(p('config-c')), HAPPY_MEDIA_HAPPY_SERVER_URL: SERVER };
    const typed = formatAccountSecret(secret).toLowerCase().replaceAll('-', ' ');
    const imported = await runCli(['account', 'import', '--secret-file', p('imported.secret')], {
      env,
      input: `${typed}\n`,
    });
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({
      secretFile: p('imported.secret'),
      kind: 'secret',
      server: SERVER,
    });
    expect((await stat(p('imported.secret'))).mode & 0o777).toBe(0o600);
    const stored = parseHappyCredentials(await readFile(p('imported.secret'), 'utf8'));
    expect(stored).toEqual({ kind: 'secret', secret });

    const accessKey = p('access.key');
    await writeFile(accessKey, JSON.stringify({ secret: toBase64(secret), token: 'stale' }), { mode: 0o600 });
    const fromFile = await runCli(['account', 'import', accessKey, '--env'], { env });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const defaultFile = join(p('config-c'), 'happy-media', 'secret');
    expect(fromFile.stdout).toBe(
      `export HAPPY_MEDIA_SECRET_FILE='${defaultFile}'\nexport HAPPY_MEDIA_HAPPY_SERVER_URL='${SERVER}'\n`,
    );
    expect(parseHappyCredentials(await readFile(defaultFile, 'utf8'))).toEqual({ kind: 'secret', secret });

    const keygen = await runCli(['keygen']);
    const token = (await newHappyAccount(SERVER as string)).token;
    for (const [what, text] of [
      ['keygen', keygen.stdout],
      ['bearer token', `${token}\n`],
    ] as const) {
      const target = p(`refused-${what.replace(' ', '-')}.secret`);
      const r = await runCli(['account', 'import', '--secret-file', target], { env, input: text });
      expect(r.code, what).toBe(2);
      expect(r.stderr).toContain(what === 'keygen' ? '`happy-media keygen` writes' : 'a bearer token');
      expect(r.stderr).not.toContain(text.trim());
      await expect(stat(target)).rejects.toThrow();
    }
  });

  it('a secret file holding a keygen key or a token is refused before anyone signs in', async () => {
    // An address where nothing listens: a sign-in attempt would fail with ERR_STORAGE, not ERR_USAGE.
    const nowhere = 'http://127.0.0.1:9';
    const keyFile = p('blob.key');
    expect((await runCli(['keygen', '--out', keyFile])).code).toBe(0);
    const tokenFile = p('token.txt');
    await writeFile(tokenFile, `${(await newHappyAccount(SERVER as string)).token}\n`, { mode: 0o600 });
    for (const file of [keyFile, tokenFile]) {
      for (const args of [
        ['sessions', '--happy', nowhere, '--secret-file', file],
        ['send', keyFile, '--happy', nowhere, '--secret-file', file, '--session', 'x'],
      ]) {
        const r = await runCli(args, { env: bareEnv(p('config-d')) });
        expect(r.code, `${args[0]} ${file}`).toBe(2);
        expect(r.stderr).toMatch(
          /^happy-media: ERR_USAGE: --secret-file ".*" holds (a bare base64 32-byte key|a bearer token)/,
        );
        expect(r.stderr).not.toContain((await readFile(file, 'utf8')).trim());
      }
    }
  });

  it("sessions create makes a session Happy's app opens: a 105-byte bundle, sealed metadata with its title", async () => {
    const env = { ...bareEnv(p('config-e')), HAPPY_MEDIA_HAPPY_SERVER_URL: SERVER };
    expect((await runCli(['account', 'create'], { env })).code).toBe(0);
    const created = await runCli(
      ['sessions', 'create', '--name', 'screenshots of the build', '--path', tmp.dir, '--flavor', 'claude'],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const line = JSON.parse(created.stdout) as Record<string, unknown> & { id: string };
    expect(line).toMatchObject({
      variant: 'datakey',
      name: 'screenshots of the build',
      summary: 'screenshots of the build',
      path: tmp.dir,
      host: expect.any(String),
    });
    const listed = await runCli(['sessions'], { env });
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toContain(line.id);

    // What the server holds, opened as Happy's app opens it (the secret → the bundle → the metadata).
    const secret = parseAccountSecret(await readFile(join(p('config-e'), 'happy-media', 'secret'), 'utf8'));
    const client = await HappyClient.connect({
      url: SERVER as string,
      credentials: { kind: 'secret', secret },
    });
    const session = await client.openSession(line.id);
    expect(session.metadata).toMatchObject({
      path: tmp.dir,
      host: expect.any(String),
      os: process.platform,
      homeDir: expect.any(String),
      flavor: 'claude',
      summary: { text: 'screenshots of the build', updatedAt: expect.any(Number) },
    });
    // The server holds a 105-byte data-key bundle and metadata that is not plaintext.
    const token = await requestToken(new HappyApi({ url: SERVER as string }), secret);
    const listedRaw = (await (
      await fetch(`${SERVER}/v1/sessions`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { sessions: { id: string; metadata: string; dataEncryptionKey: string | null }[] };
    const raw = listedRaw.sessions.find((s) => s.id === line.id);
    expect(fromBase64(raw?.dataEncryptionKey ?? '')).toHaveLength(105);
    expect(raw?.metadata).not.toContain('screenshots');
    expect(decryptJson(fromBase64(raw?.metadata ?? ''), session.key)).toMatchObject({
      name: 'screenshots of the build',
    });

    const env2 = await runCli(['sessions', 'create', '--env', '--tag', 'my-tag'], { env });
    const again = await runCli(['sessions', 'create', '--env', '--tag', 'my-tag'], { env });
    expect(env2.stdout).toMatch(/^export HAPPY_MEDIA_SESSION='[a-z0-9]+'\n$/);
    expect(again.stdout).toBe(env2.stdout);
  });

  describe('send and play in a session', () => {
    let env: NodeJS.ProcessEnv;
    let sessionId: string;
    let photo: string;
    const transcriptIds = async () =>
      (await runCli(['transcript', sessionId], { env })).stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id: string }).id);

    beforeAll(async () => {
      env = {
        ...bareEnv(p('config-f')),
        HAPPY_MEDIA_HAPPY_SERVER_URL: SERVER,
        HAPPY_MEDIA_CACHE_DIR: p('cache'),
      };
      expect((await runCli(['account', 'create'], { env })).code).toBe(0);
      sessionId = (JSON.parse((await runCli(['sessions', 'create'], { env })).stdout) as { id: string }).id;
      photo = p('photo.png');
      await writeFile(photo, await makePng(32, 24));
    });

    it('send honours HAPPY_MEDIA_HAPPY_SERVER_URL and HAPPY_MEDIA_SESSION with no flag at all', async () => {
      const r = await runCli(['send', photo], { env: { ...env, HAPPY_MEDIA_SESSION: sessionId } });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const { message, seq } = JSON.parse(r.stdout) as { message: { id: string; type: string }; seq: number };
      expect(message.type).toBe('photo');
      expect(seq).toBe(1);
      expect(await transcriptIds()).toEqual([message.id]);
    });

    it('says which setting it used when a flag and a variable disagree, or the store variables are set too', async () => {
      const r = await runCli(['send', photo, '--session', sessionId], {
        env: { ...env, HAPPY_MEDIA_SESSION: 'another-session', HAPPY_MEDIA_STORE: p('store') },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `happy-media: note: using the session "${sessionId}" from --session, not "another-session" from HAPPY_MEDIA_SESSION`,
      );
      const byEnvironment = await runCli(['send', photo], {
        env: { ...env, HAPPY_MEDIA_SESSION: sessionId, HAPPY_MEDIA_STORE: p('store') },
      });
      expect(byEnvironment.code, byEnvironment.stderr).toBe(0);
      expect(byEnvironment.stderr).toContain(
        "happy-media: note: using Happy's server from HAPPY_MEDIA_HAPPY_SERVER_URL (the session gives the store and keys), not HAPPY_MEDIA_STORE",
      );
      await expect(stat(p('store'))).rejects.toThrow();
    });

    it('an empty file is ERR_USAGE with nothing appended or uploaded, in a session and in a store', async () => {
      const empty = p('empty.txt');
      await writeFile(empty, '');
      const before = await transcriptIds();
      const r = await runCli(['send', empty, '--session', sessionId], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^happy-media: ERR_USAGE: ".*empty.txt" is empty \(0 bytes\)/);
      expect(await transcriptIds()).toEqual(before);
      const keyFile = p('store.key');
      await runCli(['keygen', '--out', keyFile]);
      const local = await runCli(['send', empty, '--store', p('local-store'), '--key-file', keyFile], {
        env,
      });
      expect(local.code).toBe(2);
      await expect(stat(p('local-store'))).rejects.toThrow();
    });

    it('play MESSAGE.json in a session plays its blob with the session key; a path that is no file is ERR_USAGE', async () => {
      const sent = await runCli(['send', photo, '--session', sessionId], { env });
      const messageFile = p('sent.json');
      await writeFile(messageFile, sent.stdout);
      const played = await runCli(['play', messageFile, '--session', sessionId], { env });
      expect(played.code, played.stderr).toBe(0);
      expect(await sha256(played.stdout.trim())).toBe(await sha256(photo));
      const fromStdin = await runCli(['play', '-', '--session', sessionId], { env, input: sent.stdout });
      expect(fromStdin.code, fromStdin.stderr).toBe(0);
      const missing = await runCli(['play', p('missing.json'), '--session', sessionId], { env });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(
        /^happy-media: ERR_USAGE: expected a message id of the session or a message \.json file/,
      );
    });

    it('--store happy+… checks the blob key against the session before any upload', async () => {
      const session = await newHappyAccount(SERVER as string);
      const proxy = await startFaultProxy(SERVER as string);
      try {
        const ownerSecret = p('owner.secret');
        await writeFile(ownerSecret, `${formatAccountSecret(session.secret)}\n`, { mode: 0o600 });
        const wrongKey = p('wrong.key');
        await runCli(['keygen', '--out', wrongKey]);
        const rightKey = p('right.key');
        await writeFile(rightKey, `${toBase64(session.session.blobKey)}\n`, { mode: 0o600 });
        const storeEnv = {
          ...bareEnv(p('config-g')),
          HAPPY_MEDIA_TOKEN: session.token,
          HAPPY_MEDIA_SESSION: session.sessionId,
        };
        const args = (key: string) => ['send', photo, '--store', `happy+${proxy.url}`, '--key-file', key];
        const uploads = () => proxy.requests.filter((r) => r.path.endsWith('/request-upload')).length;

        const wrong = await runCli(args(wrongKey), {
          env: { ...storeEnv, HAPPY_MEDIA_SECRET_FILE: ownerSecret },
        });
        expect(wrong.code).toBe(2);
        expect(wrong.stderr).toMatch(/^happy-media: ERR_USAGE: the blob key is not session .*'s/);
        expect(uploads()).toBe(0);

        const right = await runCli(args(rightKey), {
          env: { ...storeEnv, HAPPY_MEDIA_SECRET_FILE: ownerSecret },
        });
        expect(right.code, right.stderr).toBe(0);
        expect(right.stderr).toBe('');
        expect(uploads()).toBe(1);

        // A session key beside the blob key: the two must belong together, with or without the secret.
        const sealKey = p('seal.key');
        await runCli(['keygen', '--out', sealKey]);
        const mismatched = await runCli([...args(rightKey), '--seal-key-file', sealKey], { env: storeEnv });
        expect(mismatched.code).toBe(2);
        expect(mismatched.stderr).toContain(
          'is not the one the session key (--seal-key-file, datakey) gives',
        );

        // Without the secret the session cannot tell: it says so, and the upload goes ahead.
        const unchecked = await runCli(args(wrongKey), { env: storeEnv });
        expect(unchecked.code, unchecked.stderr).toBe(0);
        expect(unchecked.stderr).toContain(
          'happy-media: warning: the blob key cannot be checked against session',
        );
        expect(uploads()).toBe(2);
      } finally {
        await proxy.close();
      }
    });
  });
});
