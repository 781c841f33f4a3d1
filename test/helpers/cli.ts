/**
 * Runs the built CLI as a real child process, the way a user would: the one-file CLI happy-media-cli
 * ships (`dist/cli/happy-media.js`, scripts/bundle-cli.mjs), or happy-media's own unbundled `bin`.
 * `npm test` builds both first (pretest); when running vitest directly, run `npm run build` before.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The CLI as happy-media-cli installs it: one file (what {@link runCli} runs). */
export const CLI_BIN = fileURLToPath(new URL('../../dist/cli/happy-media.js', import.meta.url));

/** happy-media's own `bin`: the same CLI from the package's modules, for an install of the library with its peers. */
export const PACKAGE_BIN = fileURLToPath(new URL('../../dist/src/cli/bin.js', import.meta.url));

/** What a CLI run produced. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCli} and {@link runNodeProgram}. */
export interface RunOptions {
  input?: string | Uint8Array;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
  /** Options for node itself, before the script (e.g. `['--import', hook]`). */
  nodeOptions?: string[];
}

/** Runs `happy-media ...args`, optionally feeding `input` on stdin. */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return runNodeProgram(CLI_BIN, args, options);
}

/** Runs `node script ...args`, optionally feeding `input` on stdin. */
export function runNodeProgram(script: string, args: string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeOptions ?? []), script, ...args], {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: options.timeoutMs ?? 60_000,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    child.stdin.end(options.input ?? '');
  });
}
