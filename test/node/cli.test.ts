import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('happy-media CLI', () => {
  it('prints its package version with --version and exits 0', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });

  it('lists every command in --help and exits 0', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const c of [
      'demo',
      'validate',
      'keygen',
      'seal',
      'open',
      'encrypt',
      'decrypt',
      'probe',
      'serve',
      'send',
      'play',
      'sessions',
      'transcript',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^\\s+${c}\\b`, 'm'));
    }
    // The benchmarks are a program of the repository (`npm run bench`), not a command of the library.
    expect(r.stdout).not.toMatch(/^\s+bench\b/m);
  });

  it('reports bad usage with ERR_USAGE and exit 2', async () => {
    const r = await runCli(['no-such-command']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^happy-media: ERR_USAGE: /m);
  });
});
