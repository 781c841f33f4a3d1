/** `happy-media serve` as a user runs it: URL on stdout when ready, token from the environment, clean stop. */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMediaRef } from '../../../src/core/protocol/refs.js';
import { HttpBlobStore } from '../../../src/node/storage/index.js';
import { CLI_BIN, runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { collect, streamOf } from './store-contract.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTempDir();
});
afterAll(async () => tmp.cleanup());

describe('happy-media serve', () => {
  it('prints its URL when ready, serves with a token, and exits 0 on SIGTERM', async () => {
    const token = randomBytes(16).toString('hex');
    const child = spawn(process.execPath, [CLI_BIN, 'serve', '--dir', tmp.dir, '--port', '0'], {
      env: { ...process.env, HAPPY_MEDIA_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.on('close', () => reject(new Error(`serve exited early: ${stderr}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stderr).not.toContain(token);

    const store = new HttpBlobStore(url, { token });
    const ref = createMediaRef();
    const blob = new Uint8Array(randomBytes(40_000));
    await store.put(ref, streamOf(blob), blob.length);
    expect(
      Buffer.from(await collect(await store.get(ref, { offset: 100, length: 50 }))).equals(
        Buffer.from(blob.subarray(100, 150)),
      ),
    ).toBe(true);
    await expect(new HttpBlobStore(url).head(ref)).rejects.toMatchObject({ code: 'ERR_DOWNLOAD_FAILED' });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('a bad --store or --dir, or a token no client can send, is usage (exit 2) and serves nothing (issue 24, item 8)', async () => {
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const file = join(tmp.dir, 'not-a-dir');
    await writeFile(file, 'x');
    for (const [args, pattern] of [
      [['--store', 's3://'], /ERR_USAGE: --store: expected s3:\/\/bucket/],
      [['--dir', file], /ERR_USAGE: --dir: expected a directory for `dir` but .* is a file/],
      [
        ['--dir', tmp.dir, '--token', 'a b'],
        /ERR_USAGE: expected a bearer token of visible ASCII characters for `--token` but it contains a space/,
      ],
    ] as const) {
      const r = await runCli(['serve', '--port', '0', ...args], {
        env: { HAPPY_MEDIA_S3_BUCKET: '' },
        timeoutMs: 20_000,
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(pattern);
      expect(r.stdout).toBe('');
    }
  });

  it('accepts the bearer scheme in any case (RFC 9110: schemes are case-insensitive)', async () => {
    const token = randomBytes(16).toString('hex');
    const child = spawn(process.execPath, [CLI_BIN, 'serve', '--dir', tmp.dir, '--port', '0'], {
      env: { ...process.env, HAPPY_MEDIA_TOKEN: token },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const exited = new Promise((resolve) => child.on('close', resolve));
    try {
      const url = await new Promise<string>((resolve) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.trim());
        });
      });
      const ref = createMediaRef();
      await new HttpBlobStore(url, { token }).put(ref, streamOf(new Uint8Array(10)), 10);
      for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
        const answer = await fetch(`${url}/v1/blobs/${ref}`, {
          headers: { authorization: `${scheme} ${token}` },
        });
        expect(answer.status, scheme).toBe(200);
        await answer.body?.cancel();
      }
      const wrong = await fetch(`${url}/v1/blobs/${ref}`, { headers: { authorization: `Basic ${token}` } });
      expect(wrong.status).toBe(401);
      await wrong.body?.cancel();
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('rejects a bad --host as usage (exit 2): an invalid IP, a malformed name, a name that is not local', async () => {
    for (const host of ['256.1.1.1', '1.2.3', 'bad_host!', 'no-such-host.invalid']) {
      const result = await runCli(['serve', '--dir', tmp.dir, '--port', '0', '--host', host]);
      expect(result.code, `${host}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(/^happy-media: ERR_USAGE: .*--host/);
    }
  });

  it('rejects a bad --allow-host as usage (exit 2)', async () => {
    const result = await runCli([
      'serve',
      '--dir',
      tmp.dir,
      '--port',
      '0',
      '--allow-host',
      'ok.lan,bad name',
    ]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('ERR_USAGE');
  });

  it('rejects a bad port as usage (exit 2)', async () => {
    const result = await runCli(['serve', '--port', '70000']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ERR_USAGE');
  });
});
