/**
 * The parent-death guard of our child processes: a tiny `/bin/sh` started once per process (on the
 * first child), reading a pipe from us. We tell it the process group of every child we start (`+<pgid>`)
 * and of every child that ended (`-<pgid>`). When we die, however we die (SIGKILL included, which no
 * handler of ours can see), the kernel closes our end of the pipe; the sentinel reads end-of-file and
 * SIGKILLs every group still listed, then exits. So no ffprobe or ffmpeg outlives the process that
 * started it for more than a moment.
 *
 * Why a shell and not a Node watchdog: Node has no `prctl(PR_SET_PDEATHSIG)`, and a watchdog Node
 * process would cost tens of milliseconds and megabytes per start; `sh` costs about a millisecond, once.
 * The sentinel ignores the signals that stop a terminal job (INT, HUP, TERM, QUIT), so a Ctrl-C that
 * reaches the whole foreground group leaves it alive to clean up. It is not used on Windows (no
 * process groups; there the children are killed on exit and on abort only).
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { childEnvironment } from './child-environment.js';

/** The sentinel's program: keep the list of groups, kill what is left when the pipe ends. */
const SENTINEL_SCRIPT = [
  "trap '' HUP INT TERM QUIT PIPE",
  "groups=' '",
  'while IFS= read -r line; do',
  '  case $line in',
  `    +*) groups="$groups\${line#+} " ;;`,
  `    -*) kept=' '; for g in $groups; do [ "$g" = "\${line#-}" ] || kept="$kept$g "; done; groups=$kept ;;`,
  '  esac',
  'done',
  'for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done',
].join('\n');

/** The running sentinel; `null` once it could not be started (no `/bin/sh`): then there is none. */
let sentinel: ChildProcess | null | undefined;

function started(): ChildProcess | null {
  if (sentinel !== undefined) return sentinel;
  if (process.platform === 'win32') {
    sentinel = null;
    return sentinel;
  }
  try {
    const child = spawn('/bin/sh', ['-c', SENTINEL_SCRIPT], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: childEnvironment(),
    });
    // It must never keep us alive, and a write after it is gone must not crash us.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    child.stdin?.on('error', () => undefined);
    child.on('error', () => {
      sentinel = null;
    });
    child.on('exit', () => {
      sentinel = null;
    });
    sentinel = child;
  } catch {
    sentinel = null;
  }
  return sentinel;
}

/**
 * Puts the process group `pgid` (a child started as a group leader) under the sentinel's watch: it is
 * SIGKILLed if this process dies before {@link releaseFromSentinel} is called for it.
 */
export function watchWithSentinel(pgid: number): void {
  started()?.stdin?.write(`+${pgid}\n`);
}

/** Takes `pgid` off the sentinel's list (its child ended): a reused id is never killed later. */
export function releaseFromSentinel(pgid: number): void {
  sentinel?.stdin?.write(`-${pgid}\n`);
}
