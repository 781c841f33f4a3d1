/**
 * Runs one benchmark case in a child process of its own, so its peak memory (`maxRSS`) is its own and
 * sizes do not contaminate each other.
 *
 * The job (which may hold a throw-away benchmark key) goes to the child on stdin, never in argv; the
 * child answers with one JSON line on stdout.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Path of the compiled child entry (`dist/bench/child-entry.js`). */
export const CHILD_ENTRY = fileURLToPath(new URL('../child-entry.js', import.meta.url));

/** What a child case returns. */
export interface ChildOutcome<R> {
  /** The case's own result. */
  result: R;
  /** Peak resident set size of the child, bytes (its own `VmHWM` on Linux, see child-entry.ts). */
  maxRssBytes: number;
}

/**
 * Spawns `node dist/bench/child-entry.js`, sends `{ kind, payload }` on stdin and resolves with the
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
