/**
 * A record of the temp files written outside private directories (beside an output, e.g. the
 * `.clip.mp4.<stamp>.partial` of `decrypt IN clip.mp4`), so that the next run of any command can find
 * them if the writer is killed: no sweep of a known directory would, since the output can be anywhere.
 *
 * Each record is a file named by the temp file's owner stamp in `$XDG_STATE_HOME/happy-media/pending/`
 * (default `~/.local/state/...`; 0700, records 0600) holding the temp file's absolute path. It is made
 * before the first byte is written and removed when the temp file is renamed or deleted. A sweep removes
 * the temp files of records whose owner process is gone, then the records; it removes a path only when
 * its name carries the record's own stamp and it is a regular file of the current user, so an edited
 * record cannot make it delete anything else. Recording is best effort: a read-only home only means a
 * crash leftover waits for the next write into its directory (`atomic-file.ts`).
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { lstatSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, unlink, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parseOwnerStamp } from './owner-stamp.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-dir.js';
import { stateDir } from './state-dir.js';
import { isOwnEntry, isProcessAlive, namesIn, PARTIAL_FILE_NAMES } from './sweep.js';

/** Largest record read back (a path). */
const MAX_RECORD_BYTES = 8192;

/** The directory of records: `$XDG_STATE_HOME/happy-media/pending`, else `~/.local/state/happy-media/pending`. */
export function pendingRecordDir(env: NodeJS.ProcessEnv = process.env): string {
  return stateDir('pending', env);
}

/**
 * Records `partialPath` (whose name carries `stamp`) and returns the function that removes the record.
 * Never throws: without a record the file is still swept when its directory is next written to.
 */
export async function recordPending(partialPath: string, stamp: string): Promise<() => Promise<void>> {
  const dir = pendingRecordDir();
  const record = join(dir, stamp);
  try {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    await writeFile(record, resolve(partialPath), { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  } catch {
    return async () => undefined;
  }
  return () => unlink(record).catch(() => undefined);
}

/**
 * Removes the temp files of records whose owner is gone, and those records; keeps live owners' records.
 * Returns how many temp files were removed. Never throws.
 */
export function sweepPendingRecords(dir: string = pendingRecordDir()): number {
  let removed = 0;
  for (const stamp of namesIn(dir)) {
    const owner = parseOwnerStamp(stamp);
    if (!owner || isProcessAlive(owner.pid)) continue;
    const record = join(dir, stamp);
    try {
      const path = readFileSync(record, 'utf8').slice(0, MAX_RECORD_BYTES);
      const match = PARTIAL_FILE_NAMES.stamped.exec(basename(path));
      const info = match?.[1] === stamp ? lstatSync(path, { throwIfNoEntry: false }) : undefined;
      if (info?.isFile() && isOwnEntry(info)) {
        rmSync(path, { force: true });
        removed++;
      }
    } catch {
      // Unreadable record or file: drop the record below, nothing else.
    }
    rmSync(record, { force: true });
  }
  return removed;
}
