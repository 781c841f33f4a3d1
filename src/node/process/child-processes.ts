/**
 * How the library starts helper processes (ffprobe, ffmpeg) so that none outlives its parent or runs
 * without bounds:
 *
 * - **Own process group.** Each child starts as the leader of a new process group (`detached` on
 *   POSIX), and every kill is a SIGKILL of the whole group, so whatever the tool started dies with it.
 * - **Killed with us.** Children still running when the process exits (`exit` event) are killed; the
 *   CLI also forwards SIGTERM, SIGINT and SIGHUP to them ({@link forwardSignalsToChildren}) before
 *   dying by the signal as it would have; and a sentinel (`parent-sentinel.ts`) kills what is left when
 *   the process dies without running any code (SIGKILL).
 * - **Their own limits.** With `limits`, the child runs under `ulimit -t` (CPU seconds) and `ulimit -d`
 *   (data memory), set by a `/bin/sh` that then `exec`s the tool (same pid, no shell left running): a
 *   runaway decode is stopped by the kernel even when nobody is left to time it, and a tiny file that
 *   claims a huge picture cannot make the tool allocate gigabytes.
 * - **No secrets.** The environment is `childEnvironment()`: this process's minus its keys and tokens.
 *
 * On Windows there are no process groups or `ulimit`: children are started directly and killed one by one.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { DiskError } from '../../core/errors.js';
import { isExecutableFile } from '../fs/executable-file.js';
import { childEnvironment } from './child-environment.js';
import { releaseFromSentinel, watchWithSentinel } from './parent-sentinel.js';

/** Limits the kernel enforces on a child, whoever is left to watch it. */
export interface ChildLimits {
  /** CPU time in seconds (`RLIMIT_CPU`); past it the kernel kills the child (SIGKILL). */
  cpuSeconds?: number;
  /** Data memory in bytes (`RLIMIT_DATA`: heap and private mappings); allocations past it fail. */
  memoryBytes?: number;
}

/** Options of {@link spawnChild}. */
export interface SpawnChildOptions {
  stdio: StdioOptions;
  limits?: ChildLimits;
}

const POSIX = process.platform !== 'win32';

/** Children started by {@link spawnChild} that have not exited yet. */
const live = new Set<ChildProcess>();
let exitHooked = false;
let forwarding = false;
const FORWARDED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
let listening = false;

/** Whether `binary` can be run as `spawn` would find it (a path, or a name on the `PATH`). */
function runnable(binary: string): boolean {
  if (binary.includes('/')) return isExecutableFile(binary);
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && isAbsolute(dir) && isExecutableFile(join(dir, binary)));
}

/** The `ulimit` lines for `limits` (integers we computed: nothing of the caller's reaches the shell). */
function limitCommands(limits: ChildLimits | undefined): string {
  let script = '';
  if (limits?.cpuSeconds !== undefined)
    script += `ulimit -t ${Math.max(1, Math.ceil(limits.cpuSeconds))} 2>/dev/null; `;
  if (limits?.memoryBytes !== undefined)
    script += `ulimit -d ${Math.max(1, Math.ceil(limits.memoryBytes / 1024))} 2>/dev/null; `;
  return script;
}

/**
 * Starts `binary args…` in its own process group, with the secrets removed from its environment and,
 * on POSIX, under `limits`; it is killed if this process exits or dies first.
 *
 * @throws {DiskError} `ERR_DISK` when a limited child's binary is missing or not executable (a direct
 *   spawn reports the same through the child's `error` event, as an errno error `ENOENT`/`EACCES`).
 * @example
 * ```ts
 * const child = spawnChild('/usr/bin/ffprobe', args, { stdio: ['ignore', 'pipe', 'pipe'], limits: { cpuSeconds: 16 } });
 * ```
 */
export function spawnChild(
  binary: string,
  args: readonly string[],
  options: SpawnChildOptions,
): ChildProcess {
  const limits = POSIX ? limitCommands(options.limits) : '';
  if (limits !== '' && !runnable(binary)) {
    // The shell would report this as exit status 127; say it the way spawn does.
    const exists =
      binary.includes('/') &&
      (() => {
        try {
          statSync(binary);
          return true;
        } catch {
          return false;
        }
      })();
    throw new DiskError(
      `cannot run ${binary}: ${exists ? 'it is not executable (EACCES)' : 'no such file (ENOENT)'}`,
    );
  }
  const [command, argv] =
    limits === '' ? [binary, [...args]] : ['/bin/sh', ['-c', `${limits}exec "$0" "$@"`, binary, ...args]];
  const child = spawn(command, argv, {
    stdio: options.stdio,
    env: childEnvironment(),
    detached: POSIX,
    windowsHide: true,
  });
  const pid = child.pid;
  if (pid === undefined) return child; // spawn failed: the child's `error` event says why
  live.add(child);
  if (POSIX) watchWithSentinel(pid);
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', killChildProcesses);
  }
  updateSignalListeners();
  child.once('exit', () => {
    live.delete(child);
    // Whatever the tool itself started goes with it.
    if (POSIX) killGroup(pid);
    if (POSIX) releaseFromSentinel(pid);
    updateSignalListeners();
  });
  return child;
}

function killGroup(pid: number): boolean {
  try {
    process.kill(-pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGKILLs `child` and, on POSIX, its whole process group (anything the tool started).
 *
 * @example
 * ```ts
 * killChild(child); // then wait for its `close` event
 * ```
 */
export function killChild(child: ChildProcess): void {
  if (child.pid !== undefined && POSIX && live.has(child) && killGroup(child.pid)) return;
  child.kill('SIGKILL');
}

/** SIGKILLs every child still running (synchronous: also safe in an `exit` handler). */
export function killChildProcesses(): void {
  for (const child of live) killChild(child);
}

function onSignal(signal: NodeJS.Signals): void {
  killChildProcesses();
  stopListening();
  // Nobody else handles it: die by it, as this process would have without our listener.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

const listeners = new Map<NodeJS.Signals, () => void>(
  FORWARDED_SIGNALS.map((signal) => [signal, () => onSignal(signal)]),
);

function stopListening(): void {
  if (!listening) return;
  listening = false;
  for (const [signal, listener] of listeners) process.off(signal, listener);
}

function updateSignalListeners(): void {
  if (forwarding && live.size > 0 && !listening) {
    listening = true;
    for (const [signal, listener] of listeners) process.on(signal, listener);
  } else if (live.size === 0) {
    stopListening();
  }
}

/**
 * Makes SIGTERM, SIGINT and SIGHUP kill the running ffprobe/ffmpeg children first (the CLI calls this at
 * start; a command-line program built on `probeMedia` or `sendMedia` may too). A
 * listener is installed only while a child runs; when no other listener handles the signal, the
 * process then dies by it as it would have. Libraries embedding happy-media are not opted in: an
 * application's own signal handling is left alone (the exit hook and the sentinel still apply).
 */
export function forwardSignalsToChildren(): void {
  forwarding = true;
  updateSignalListeners();
}
