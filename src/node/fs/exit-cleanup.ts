/**
 * Removes private plaintext directories when the process exits, whatever path it takes to exit.
 *
 * Why synchronous: `process.on('exit')` handlers cannot await, and a decrypted temp file must not outlive
 * the process that made it. A signal that kills the process without an `exit` event (SIGKILL, or SIGINT
 * when nobody handles it) skips this; `sweepStale` (`sweep.ts`) then removes such leftovers on the next
 * run, because every private name carries the pid of its owner (`owner-stamp.ts`).
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { rmSync } from 'node:fs';

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
