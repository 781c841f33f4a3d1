/**
 * Runs one benchmark case in a child process of its own, so its peak memory (`maxRSS`) is its own and
 * sizes do not contaminate each other: a case of a suite (`runChild`), or a program as users run it
 * (`runProgram`, e.g. the `happy-media` bin).
 *
 * The job (which may hold a throw-away benchmark key) goes to the child on stdin or in its environment,
 * never in argv; the child answers with one JSON line.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Path of the compiled child entry (`bench/dist/child-entry.js`). */
export const CHILD_ENTRY = fileURLToPath(new URL('../child-entry.js', import.meta.url));

/** What a child case returns. */
export interface ChildOutcome<R> {
  /** The case's own result. */
  result: R;
  /** Peak resident set size of the child, bytes (its own `VmHWM` on Linux, see child-entry.ts). */
  maxRssBytes: number;
}

/**
 * Spawns `node bench/dist/child-entry.js`, sends `{ kind, payload }` on stdin and resolves with the
 * child's result and peak RSS.
 *
 * @throws {Error} when the child exits non-zero, times out or prints no result.
 */
export function runChild<R>(kind: string, payload: unknown, timeoutMs = 300_000): Promise<ChildOutcome<R>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD_ENTRY], {
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 256) err.push(d);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8').trim();
      const last = stdout.split('\n').pop() ?? '';
      if (code !== 0) {
        const stderr = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-5).join(' | ');
        reject(new Error(`bench child "${kind}" exited with ${signal ?? code}: ${stderr || last}`));
        return;
      }
      try {
        resolve(JSON.parse(last) as ChildOutcome<R>);
      } catch {
        reject(new Error(`bench child "${kind}" printed no result`));
      }
    });
    child.stdin.end(JSON.stringify({ kind, payload }));
  });
}

/** Path of the compiled peak-RSS preload (`bench/dist/harness/peak-rss-hook.js`). */
const PEAK_RSS_HOOK = new URL('./peak-rss-hook.js', import.meta.url).href;

/**
 * Path of the `happy-media` command as the package installs it (its package.json `bin`), so a suite runs
 * the CLI exactly as a user does.
 *
 * @throws {Error} when the package declares no `happy-media` bin.
 */
export function happyMediaBin(): string {
  const manifestPath = fileURLToPath(import.meta.resolve('happy-media/package.json'));
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: Record<string, string> };
  const bin = manifest.bin?.['happy-media'];
  if (bin === undefined) throw new Error(`${manifestPath} declares no happy-media bin`);
  return join(dirname(manifestPath), bin);
}

/** What {@link runProgram} measured. */
export interface ProgramOutcome {
  /** Time from the preload hook to the program's exit, ms (its module loading and work, not Node's start). */
  ms: number;
  /** Peak resident set size of the program's process, bytes. */
  maxRssBytes: number;
}

/**
 * Runs `node <script> ...args` with the peak-RSS hook preloaded (harness/peak-rss-hook.ts) and resolves
 * with its time and peak memory. `env` is added to this process's environment (a key goes there, never
 * in `args`).
 *
 * @throws {Error} when the program exits non-zero, times out or the hook reports nothing.
 */
export function runProgram(
  script: string,
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 300_000,
): Promise<ProgramOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', PEAK_RSS_HOOK, script, ...args], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    const report: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdio[3]!.on('data', (d: Buffer) => report.push(d));
    child.stderr!.on('data', (d: Buffer) => {
      if (err.length < 256) err.push(d);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code !== 0) {
        const stderr = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-5).join(' | ');
        reject(new Error(`${args[0] ?? script} exited with ${signal ?? code}: ${stderr}`));
        return;
      }
      try {
        resolve(JSON.parse(Buffer.concat(report).toString('utf8').trim()) as ProgramOutcome);
      } catch {
        reject(new Error(`${args[0] ?? script} exited without the peak-RSS hook's report`));
      }
    });
  });
}
