/** A private temporary directory per test file, removed afterwards. */
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Creates a fresh private temp dir; call the returned `cleanup` in `afterAll`/`afterEach`. */
export async function makeTempDir(
  prefix = 'happy-media-test-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A directory on another file system than the temp dir's, where a rename from the temp dir fails
 * (`EXDEV`): `/dev/shm`, a tmpfs on Linux; undefined where there is none (skip the test then).
 */
export const OTHER_FILE_SYSTEM: string | undefined =
  existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(tmpdir()).dev ? '/dev/shm' : undefined;
