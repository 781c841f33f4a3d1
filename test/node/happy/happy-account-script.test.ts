/**
 * scripts/happy-account.mjs against Happy's REAL server (skipped without HAPPY_MEDIA_HAPPY_SERVER_URL):
 * the session it makes is one Happy's app opens (a data-key bundle, metadata sealed with the data key),
 * and its secrets never land in a file other users can read (issue 24, item 9).
 */
import { spawn } from 'node:child_process';
import { closeSync, fchmodSync, openSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HappyClient, parseAccountSecret } from '../../../src/core/happy/index.js';
import { decryptJson, fromBase64 } from '../../../src/index.js';
import { makeTempDir } from '../../helpers/tmp.js';

const SERVER = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
if (!SERVER) {
  console.warn('happy-account-script.test: skipped: HAPPY_MEDIA_HAPPY_SERVER_URL is not set');
}
const SCRIPT = new URL('../../../scripts/happy-account.mjs', import.meta.url).pathname;

/** Runs the script with stdout to `stdout` (a pipe by default, or a file descriptor). */
function runScript(args: string[], stdout: 'pipe' | number = 'pipe', cwd?: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ['ignore', stdout, 'pipe'], cwd });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr?.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

describe.skipIf(!SERVER)('scripts/happy-account.mjs', () => {
  let tmp: { dir: string; cleanup: () => Promise<void> };
  beforeAll(async () => {
    tmp = await makeTempDir();
  });
  afterAll(async () => tmp?.cleanup());

  it("makes a session as Happy's CLI does: a data-key bundle, metadata sealed with the data key", async () => {
    const r = await runScript([SERVER as string]);
    expect(r.code).toBe(0);
    const account = JSON.parse(r.stdout) as { url: string; sessionId: string; token: string; secret: string };
    expect(account.secret).toMatch(/^([A-Z2-7]{5}-){10}[A-Z2-7]{2}$/);
    // What the server holds: a 105-byte bundle and metadata that is not plaintext.
    const listed = (await (
      await fetch(`${SERVER}/v1/sessions`, { headers: { authorization: `Bearer ${account.token}` } })
    ).json()) as { sessions: { id: string; metadata: string; dataEncryptionKey: string | null }[] };
    const raw = listed.sessions.find((s) => s.id === account.sessionId);
    expect(fromBase64(raw?.dataEncryptionKey ?? '')).toHaveLength(105);
    expect(raw?.metadata).not.toContain('happy-media');
    // Happy's app signed in with the secret opens it: the data key from the bundle opens the metadata.
    const client = await HappyClient.connect({
      url: SERVER as string,
      credentials: { kind: 'secret', secret: parseAccountSecret(account.secret) },
    });
    const session = await client.openSession(account.sessionId);
    expect(decryptJson(fromBase64(raw?.metadata ?? ''), session.key)).toMatchObject({
      name: 'happy-media',
      path: expect.any(String),
      host: expect.any(String),
    });
  });

  it('writes --out and --secret-out 0600; the env file names the secret file', async () => {
    const out = join(tmp.dir, 'account.env');
    const secretFile = join(tmp.dir, 'account.secret');
    const r = await runScript([SERVER as string, '--env', '--out', out, '--secret-out', secretFile]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect((await stat(out)).mode & 0o777).toBe(0o600);
    expect((await stat(secretFile)).mode & 0o777).toBe(0o600);
    const env = await readFile(out, 'utf8');
    expect(env).toContain(`export HAPPY_MEDIA_SECRET_FILE='${secretFile}'`);
    expect(env).toMatch(/^export HAPPY_MEDIA_SESSION='[^']+'$/m);
    expect(parseAccountSecret(await readFile(secretFile, 'utf8'))).toHaveLength(32);
  });

  it('refuses to print secrets into a file others can read (`--env > file`), and makes nothing', async () => {
    const path = join(tmp.dir, 'shared.env');
    const fd = openSync(path, 'w');
    fchmodSync(fd, 0o644);
    try {
      const r = await runScript([SERVER as string, '--env'], fd);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--out FILE');
    } finally {
      closeSync(fd);
    }
    expect((await stat(path)).size).toBe(0);
    // A private file (umask 077) is fine.
    const privatePath = join(tmp.dir, 'private.env');
    const privateFd = openSync(privatePath, 'w', 0o600);
    fchmodSync(privateFd, 0o600);
    try {
      expect((await runScript([SERVER as string, '--env'], privateFd)).code).toBe(0);
    } finally {
      closeSync(privateFd);
    }
    expect(await readFile(privatePath, 'utf8')).toMatch(/^export HAPPY_MEDIA_HAPPY_SERVER_URL=/);
  });
});
