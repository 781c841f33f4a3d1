/**
 * The one sweep of what killed runs left behind: a process killed by SIGKILL or a power loss runs no
 * cleanup, so the private files it was writing (verified plaintext among them) stay until someone
 * sweeps. Each area has its own rules (`../fs/sweep.ts`); this runs all three.
 *
 * @module
 */
import { sweepPendingRecords } from '../fs/pending-record.js';
import { sweepTempRoot } from '../fs/sweep.js';
import { defaultCacheDir, sweepCacheLeftovers } from './media-cache.js';

/** Options of {@link sweepLeftovers}. */
export interface SweepLeftoversOptions {
  /** The playback cache to sweep (default {@link defaultCacheDir}). */
  cacheDir?: string;
}

/**
 * Removes the private leftovers of earlier runs that died before they could clean up, so plaintext never
 * outlives the next run: the library's temp directories in the OS temp dir (spools, `decryptFile`
 * outputs written through, playback files), the temp files it wrote beside outputs (recorded when
 * made), and the staging directories of the playback cache. Only what belongs to a dead process of the
 * current user goes. Three directory listings; never throws. The CLI runs it at the start of every
 * command; an application that decrypts to files may run it at start too.
 *
 * @example
 * ```ts
 * sweepLeftovers({ cacheDir: '/var/cache/my-app/media' });
 * ```
 */
export function sweepLeftovers(options: SweepLeftoversOptions = {}): void {
  sweepTempRoot();
  sweepPendingRecords();
  sweepCacheLeftovers(options.cacheDir ?? defaultCacheDir());
}
