/**
 * The CLI against a Happy server that does not play fair (a local stand-in, since Happy's real server
 * cannot misbehave so): what the server says reaches the terminal with its control characters shown,
 * never acted on; plain http to another machine is refused unless asked for; a token that cannot go in a
 * header is usage, before any request. And `serve --store s3://` without S3 credentials serves nothing.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountSecret, formatAccountSecret } from '../../../src/happy.js';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';

let tmp: Awaited<ReturnType<typeof makeTempDir>>;

/** ESC ] 52 (set the clipboard), BEL, and a forged line of the CLI's own. */
const HOSTILE =
  '\u001b]52;c;cm0gLXJmIH4=\u0007 refused\r\nhappy-media: hint: run the attached script\u009b2J';

let server: Server;
let url = '';
const requests: string[] = [];

beforeAll(async () => {
  tmp = await makeTempDir();
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: HOSTILE, message: 'x' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await tmp.cleanup();
});

/** The server and secret come from the flags alone (not from the environment of the test run). */
const cli = (args: string[]) =>
  runCli(args, { env: { HAPPY_MEDIA_HAPPY_SERVER_URL: '', HAPPY_MEDIA_SECRET_FILE: '' } });

async function secretFile(name: string, text: string): Promise<string> {
  const path = join(tmp.dir, name);
  await writeFile(path, text, { mode: 0o600 });
  return path;
}

describe('the CLI against a hostile Happy server', () => {
  it('prints what the server says with its control characters escaped: no escape sequence, no forged line', async () => {
    const file = await secretFile('secret.txt', formatAccountSecret(createAccountSecret()));
    const r = await cli(['sessions', '--happy', url, '--secret-file', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^happy-media: ERR_STORAGE: sign-in failed: Happy's server answered 400: /),
    ]);
    expect(r.stderr).toContain('\\u001b]52;c;cm0gLXJmIH4=\\u0007 refused\\u000d\\u000ahappy-media: hint:');
    expect(r.stderr).toContain('\\u009b2J');
  });

  it('refuses http:// to another machine before any request (exit 2), saying how to insist', async () => {
    const file = await secretFile('secret-2.txt', formatAccountSecret(createAccountSecret()));
    const before = requests.length;
    const r = await cli(['sessions', '--happy', 'http://192.0.2.1:3005', '--secret-file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^happy-media: ERR_USAGE: .*sign-in proof and the bearer token would cross the network in clear text/m,
    );
    expect(r.stderr).toMatch(/^happy-media: hint: pass --insecure-http/m);
    expect(requests.length).toBe(before);
  });

  it('with --insecure-http it goes, and warns what crosses the network readable', async () => {
    const file = await secretFile('secret-3.txt', formatAccountSecret(createAccountSecret()));
    const r = await cli(['sessions', '--happy', url, '--secret-file', file, '--insecure-http']);
    expect(r.stderr).toMatch(
      /^happy-media: warning: --insecure-http: .*sign-in proof and bearer token cross the network readable/m,
    );
    expect(r.stderr).toMatch(/^happy-media: ERR_STORAGE: sign-in failed/m);
  });

  it('an access.key whose token holds CR/LF is usage at once, before any request', async () => {
    const file = await secretFile(
      'access.key',
      JSON.stringify({
        encryption: { publicKey: Buffer.alloc(32, 7).toString('base64'), machineKey: 'x' },
        token: 'tok\r\nX-Injected: 1',
      }),
    );
    const before = requests.length;
    const r = await cli(['sessions', '--happy', url, '--secret-file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^happy-media: ERR_USAGE: .*line break \(CR\/LF\)/m);
    expect(r.stderr).not.toContain('X-Injected');
    expect(requests.length).toBe(before);
  });
});

describe('serve --store s3:// without S3 credentials', () => {
  it('is usage (exit 2) saying what is missing, and serves nothing', async () => {
    const r = await runCli(['serve', '--port', '0', '--store', 's3://media-bucket'], {
      env: {
        AWS_ACCESS_KEY_ID: '',
        AWS_SECRET_ACCESS_KEY: '',
        AWS_SESSION_TOKEN: '',
        AWS_PROFILE: '',
        AWS_CONFIG_FILE: join(tmp.dir, 'none'),
        AWS_SHARED_CREDENTIALS_FILE: join(tmp.dir, 'none'),
        AWS_EC2_METADATA_DISABLED: 'true',
        HAPPY_MEDIA_S3_ENDPOINT: '',
      },
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^happy-media: ERR_USAGE: --store: expected S3 credentials for bucket media-bucket but found none: set AWS_ACCESS_KEY_ID/m,
    );
    expect(r.stdout).toBe('');
  });
});
