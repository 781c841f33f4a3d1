import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../../src/cli/main.js';
import { CLI_BIN, PACKAGE_BIN, runCli, runNodeProgram } from '../helpers/cli.js';

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

  // The tests run the one-file CLI (what happy-media-cli installs); happy-media's own bin loads the same
  // code module by module and must say exactly the same.
  it("the one-file CLI and happy-media's bin print the same version and help, for every command", async () => {
    const argvs = [['--version'], ['--help'], ...COMMAND_NAMES.map((name) => [name, '--help'])];
    const run = (bin: string) => Promise.all(argvs.map((args) => runNodeProgram(bin, args)));
    const [oneFile, packaged] = await Promise.all([run(CLI_BIN), run(PACKAGE_BIN)]);
    argvs.forEach((args, i) => {
      expect(oneFile[i]!.code, args.join(' ')).toBe(0);
      expect(oneFile[i], args.join(' ')).toEqual(packaged[i]);
    });
  }, 60_000);

  it('reports bad usage with ERR_USAGE and exit 2', async () => {
    const r = await runCli(['no-such-command']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^happy-media: ERR_USAGE: /m);
  });
});
