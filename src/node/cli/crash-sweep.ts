/**
 * What every CLI command does first: remove the private leftovers of earlier runs that were killed
 * before they could clean up (SIGKILL, power loss), so plaintext never outlives the next command.
 * Two directory listings, no reads: the OS temp dir (`decrypt -` plaintext, spools, playback files) and
 * the playback cache (staging directories). Plaintext a killed `decrypt IN OUT` left beside OUT
 * (`.OUT.<stamp>.partial`) is swept whenever a later run writes into that directory; a local store's
 * `.partial/` uploads when it is next written to. The rules themselves live in `../fs/sweep.ts`.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { defaultCacheDir, sweepCacheLeftovers, sweepTempRoot } from '../internal.js';

/** Sweeps the temp dir and the CLI's playback cache; never throws. */
export function sweepCrashLeftovers(env: NodeJS.ProcessEnv = process.env): void {
  sweepTempRoot();
  sweepCacheLeftovers(env.HAPPY_MEDIA_CACHE_DIR || defaultCacheDir());
}
