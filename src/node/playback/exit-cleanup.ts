/**
 * Removes private plaintext directories when the process exits, whatever path it takes to exit.
 *
 * Why synchronous: `process.on('exit')` handlers cannot await, and a decrypted temp file must not outlive
 * the process that made it. A signal that kills the process without an `exit` event (SIGKILL, or SIGINT
 * when nobody handles it) skips this; {@link sweepStaleDirectories} then removes such leftovers on the next
 * run, because every directory name carries the pid of its owner.
 *
 * @module
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const tracked = new Set<string>();
let hooked = false;

function removeAllTracked(): void {
  for (const path of tracked) {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Best effort at exit: there is nobody left to report to.
    }
  }
  tracked.clear();
}

/**
 * Registers `path` (file or directory) for removal at process exit; returns the function that forgets it
 * again (call it after removing the path yourself, or when the path is handed over to a cache).
 */
export function removeOnExit(path: string): () => void {
  if (!hooked) {
    hooked = true;
    process.once('exit', removeAllTracked);
  }
  tracked.add(path);
  return () => {
    tracked.delete(path);
  };
}

/** True while a process with this pid exists (signal 0 checks existence without signalling). */
function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes directories named `<prefix><pid>-<random>` under `root` whose owning process is gone and that
 * belong to the current user. Leftovers of crashed runs are plaintext; they must not accumulate.
 * Returns the number of directories removed. Never throws.
 */
export function sweepStaleDirectories(root: string, prefix: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return 0;
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const match = /^(\d+)-[A-Za-z0-9_-]+$/.exec(name.slice(prefix.length));
    if (!match || isAlive(Number(match[1]))) continue;
    const path = join(root, name);
    try {
      const info = statSync(path);
      if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
      rmSync(path, { recursive: true, force: true });
      removed++;
    } catch {
      // Raced with another sweeper, or not ours to remove.
    }
  }
  return removed;
}
