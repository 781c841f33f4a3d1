/**
 * The crash-sweep rules, in one place. Every private temp file or directory the library makes carries an
 * owner stamp in its name (`owner-stamp.ts`); a process killed before its cleanup ran (SIGKILL, power
 * loss) leaves it behind, and a later run removes it by these rules:
 *
 * 1. A stamped entry whose owner pid no longer runs is removed at once (it may hold verified plaintext).
 * 2. A stamped entry whose owner pid still runs is kept, whatever its age: it may be in use.
 * 3. An entry named by an older release (no stamp, no owner) is removed once it is older than
 *    {@link UNSTAMPED_MAX_AGE_MS}.
 * 4. Only entries of the current user are touched, symbolic links never, and a sweep never throws.
 *
 * Where sweeps run: every CLI command sweeps the OS temp dir and the pending-file record at start
 * ({@link sweepTempRoot}, `pending-record.ts`); a write
 * beside an output file sweeps that directory first (`output-file.ts`); the local store sweeps its
 * `.partial/` on first use; the playback cache sweeps its staging directories when it loads.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { lstatSync, readdirSync, rmSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseOwnerStamp } from './owner-stamp.js';

/** Age after which an unstamped leftover of an older release is removed (1 hour). */
export const UNSTAMPED_MAX_AGE_MS = 60 * 60 * 1000;

/** What a sweep looks for in a directory. */
export interface PrivateNames {
  /** Names made by this release; capture group 1 is the owner stamp. */
  stamped: RegExp;
  /** Names made by earlier releases, without an owner stamp (removed by age). */
  unstamped?: RegExp;
}

/**
 * Names `<prefix><stamp>` (and, made by earlier releases, `<prefix><pid>-<6 characters>`), e.g. the
 * playback cache's staging directories.
 */
export function prefixedNames(prefix: string): PrivateNames {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    stamped: new RegExp(`^${escaped}(\\d+-[0-9a-z]+-[0-9a-f]{16})$`),
    unstamped: new RegExp(`^${escaped}\\d+-[A-Za-z0-9]{6}$`),
  };
}

/** Private directories under the OS temp dir: `happy-media-<purpose>-<stamp>`. */
export const TEMP_DIR_NAMES: PrivateNames = {
  stamped: /^happy-media-[a-z]+-(\d+-[0-9a-z]+-[0-9a-f]{16})$/,
  unstamped: /^happy-media-(?:decrypt|probe|send)-[A-Za-z0-9]{6}$|^happy-media-play-\d+-[A-Za-z0-9]{6}$/,
};

/** Temp files written beside their destination: `.<name>.<stamp>.partial`. */
export const PARTIAL_FILE_NAMES: PrivateNames = {
  stamped: /^\..*\.(\d+-[0-9a-z]+-[0-9a-f]{16})\.partial$/,
  unstamped: /^\..+\.[0-9a-f]{12}\.partial$|^\.[0-9a-f]{24}\.partial$/,
};

/** True while a process with this pid exists (signal 0 checks existence without signalling). */
export function isProcessAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The names in `dir`, or none when it cannot be listed (a sweep never throws). */
export function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Rule 4: an entry a sweep may remove is the current user's and not a symbolic link. */
export function isOwnEntry(info: Stats): boolean {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  return !info.isSymbolicLink() && (uid === undefined || info.uid === uid);
}

/** Whether the rules above say `name` (with its lstat info) is a leftover to remove. */
function isLeftover(name: string, names: PrivateNames, modifiedMs: number, now: number): boolean {
  const stamped = names.stamped.exec(name);
  if (stamped) {
    const owner = parseOwnerStamp(stamped[1] ?? '');
    return owner !== undefined && !isProcessAlive(owner.pid);
  }
  return names.unstamped?.test(name) === true && now - modifiedMs > UNSTAMPED_MAX_AGE_MS;
}

/**
 * Removes the leftovers in `dir` that `names` describes, by the rules in this module's header. Returns
 * how many entries were removed. Never throws (a missing directory sweeps nothing).
 */
export function sweepStale(dir: string, names: PrivateNames, now: number = Date.now()): number {
  let removed = 0;
  for (const name of namesIn(dir)) {
    if (!names.stamped.test(name) && names.unstamped?.test(name) !== true) continue;
    const path = join(dir, name);
    try {
      const info = lstatSync(path);
      if (!isOwnEntry(info) || !isLeftover(name, names, info.mtimeMs, now)) continue;
      rmSync(path, { recursive: true, force: true });
      removed++;
    } catch {
      // Raced with another sweeper, or not ours to remove.
    }
  }
  return removed;
}

const sweptDirs = new Set<string>();

/**
 * {@link sweepStale}, at most once per process for each directory and kind of name: leftovers only come
 * from processes that died earlier, so one look per run is enough and later writes stay cheap.
 */
export function sweepStaleOnce(dir: string, names: PrivateNames): number {
  const key = `${resolve(dir)}\0${names.stamped.source}`;
  if (sweptDirs.has(key)) return 0;
  sweptDirs.add(key);
  return sweepStale(dir, names);
}

/**
 * Sweeps the OS temp dir (`$TMPDIR`) of this library's private directories left by dead processes:
 * plaintext spooled for `decrypt -`, for probing and sending, and playback files. One directory listing;
 * the CLI runs it at the start of every command.
 */
export function sweepTempRoot(root: string = tmpdir()): number {
  return sweepStaleOnce(root, TEMP_DIR_NAMES);
}
