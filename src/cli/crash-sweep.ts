/**
 * What every CLI command does first: remove the private leftovers of earlier runs that were killed
 * before they could clean up (SIGKILL, power loss), so plaintext never outlives the next command.
 * Three directory listings: the OS temp dir (`decrypt -` plaintext, spools, playback files), the
 * playback cache (staging directories), and the record of temp files written beside outputs
 * (`.OUT.<stamp>.partial` of a killed `decrypt IN OUT`). A local store's `.partial/` uploads (ciphertext)
 * go when it is next written to. The library's `sweepLeftovers` knows the rules.
 *
 * @module
 */
import { sweepLeftovers } from '../node/index.js';

/** Sweeps the temp dir and the CLI's playback cache (`$HAPPY_MEDIA_CACHE_DIR`, else the default); never throws. */
export function sweepCrashLeftovers(env: NodeJS.ProcessEnv = process.env): void {
  sweepLeftovers(env.HAPPY_MEDIA_CACHE_DIR ? { cacheDir: env.HAPPY_MEDIA_CACHE_DIR } : {});
}
