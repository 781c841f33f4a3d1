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
  /** What the program said on stderr (its first 64 KiB). */
  stderr: string;
}

/** How {@link runProgram} runs a program beyond its arguments. */
export interface ProgramOptions {
  /** Added to this process's environment (a key goes here, never in the arguments). */
  env?: Record<string, string>;
  /** Killed (SIGKILL) past this, ms (default 300 000). */
  timeoutMs?: number;
  /**
   * Kills the program (SIGKILL, as a power cut would) when it aborts; `runProgram` then resolves with
   * `killed` and what it said (no time, no peak RSS).
   */
  kill?: AbortSignal;
}

/** What {@link runProgram} saw of a program it killed (`options.kill`). */
export interface KilledProgram {
  killed: true;
  /** What the program said on stderr before it was killed (its first 64 KiB). */
  stderr: string;
}

/**
 * Runs `node <script> ...args` with the peak-RSS hook preloaded (harness/peak-rss-hook.ts) and resolves
 * with its time, peak memory and stderr; or, killed (`options.kill`), with what it said.
 *
 * @throws {Error} when the program exits non-zero unasked, times out or the hook reports nothing.
 */
export function runProgram(
  script: string,
  args: readonly string[],
  options: ProgramOptions & { kill: AbortSignal },
): Promise<ProgramOutcome | KilledProgram>;
export function runProgram(
  script: string,
  args: readonly string[],
  options?: ProgramOptions,
): Promise<ProgramOutcome>;
export function runProgram(
  script: string,
  args: readonly string[],
  options: ProgramOptions = {},
): Promise<ProgramOutcome | KilledProgram> {
  const { env = {}, timeoutMs = 300_000, kill } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', PEAK_RSS_HOOK, script, ...args], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    const report: Buffer[] = [];
    let stderr = '';
    let killed = false;
    const killNow = () => {
      killed = true;
      child.kill('SIGKILL');
    };
    if (kill?.aborted) killNow();
    else kill?.addEventListener('abort', killNow, { once: true });
    child.stdio[3]!.on('data', (d: Buffer) => report.push(d));
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 65_536) stderr += d.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      kill?.removeEventListener('abort', killNow);
      if (killed) {
        resolve({ killed: true, stderr });
        return;
      }
      if (code !== 0) {
        const tail = stderr.trim().split('\n').slice(-5).join(' | ');
        reject(new Error(`${args[0] ?? script} exited with ${signal ?? code}: ${tail}`));
        return;
      }
      try {
        const { ms, maxRssBytes } = JSON.parse(Buffer.concat(report).toString('utf8').trim()) as {
          ms: number;
          maxRssBytes: number;
        };
        resolve({ ms, maxRssBytes, stderr });
      } catch {
        reject(new Error(`${args[0] ?? script} exited without the peak-RSS hook's report`));
      }
    });
  });
}
