/**
 * Where an interrupted send of a file is resumed from, in Node: one record per file and store location,
 * a private file `$XDG_STATE_HOME/happy-media/uploads/<sha-256>.json` (default `~/.local/state/...`;
 * directory 0700, records 0600, each save written to a temp file, fsynced and renamed), named by a hash
 * of the file's identity (its real path, device and inode) and the store's location, so neither appears
 * in a file name. The record (core/send/media-upload.ts) holds no plaintext and no key.
 *
 * One send at a time per record: a `<sha-256>.lock` file made exclusively holds the owner's stamp
 * (`owner-stamp.ts`); a second send of the same file to the same place while the first runs gets no
 * journal (it sends afresh and says so), and a lock whose owner is gone (killed) is taken over.
 * Records untouched for 7 days are swept when a journal is opened, with their locks.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileStamp, UploadJournal, UploadRecord } from '../../core/send/media-upload.js';
import { AtomicFileWriter } from '../fs/atomic-file.js';
import { removeOnExit } from '../fs/exit-cleanup.js';
import { newOwnerStamp, parseOwnerStamp } from '../fs/owner-stamp.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../fs/private-dir.js';
import { stateDir } from '../fs/state-dir.js';
import { isProcessAlive, namesIn, PARTIAL_FILE_NAMES, sweepStaleOnce } from '../fs/sweep.js';

/** Records untouched for this long are swept (a send nobody resumed in a week). */
export const STALE_RECORD_MS = 7 * 24 * 60 * 60 * 1000;
/** Largest record read back (a 1 TiB send in 10 MiB parts has ~100 000 parts of ~120 bytes each). */
const MAX_RECORD_BYTES = 32 * 1024 * 1024;

/** The directory of records: `$XDG_STATE_HOME/happy-media/uploads`, else `~/.local/state/happy-media/uploads`. */
export function uploadJournalDir(env: NodeJS.ProcessEnv = process.env): string {
  return stateDir('uploads', env);
}

/** A journal opened for one send, with the file's stamp and the release of its lock. */
export interface OpenedJournal {
  journal: UploadJournal;
  /** The file's size and modification time now (compared with the record's). */
  stamp: FileStamp;
  /** Releases the lock (the record stays unless removed). */
  close(): Promise<void>;
}

/** Removes records (and their locks) untouched for {@link STALE_RECORD_MS}, and dead writers' temp files. */
async function sweep(dir: string, now = Date.now()): Promise<void> {
  sweepStaleOnce(dir, PARTIAL_FILE_NAMES);
  for (const name of namesIn(dir)) {
    if (!name.endsWith('.json')) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info && now - info.mtimeMs > STALE_RECORD_MS) {
      await rm(path, { force: true });
      await rm(path.replace(/\.json$/, '.lock'), { force: true });
    }
  }
}

/** Takes the lock at `path` unless a live process holds it; true when taken. */
async function takeLock(path: string, stamp: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, stamp, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      const owner = parseOwnerStamp((await readFile(path, 'utf8').catch(() => '')).slice(0, 64));
      if (owner && isProcessAlive(owner.pid)) return false;
      // Its owner was killed: the lock is stale.
      await unlink(path).catch(() => undefined);
    }
  }
  return false;
}

/**
 * The journal of a send of the file at `path` to the store at `location`, locked for this process; or
 * `undefined` (with the reason) when the file cannot be examined or another send of it to the same place
 * is running. Never throws for the state directory: a send without a journal still sends.
 */
export async function openUploadJournal(
  path: string,
  location: string,
  dir: string = uploadJournalDir(),
): Promise<OpenedJournal | { why: string }> {
  let identity: string;
  let stamp: FileStamp;
  try {
    const real = await realpath(path);
    const info = await stat(real, { bigint: true });
    identity = JSON.stringify([real, String(info.dev), String(info.ino), location]);
    stamp = { size: Number(info.size), mtimeMs: Number(info.mtimeNs / 1_000_000n) };
  } catch {
    return { why: 'the file cannot be examined, so this send cannot be resumed' };
  }
  try {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    await sweep(dir);
  } catch {
    return { why: `the state directory ${dir} cannot be written, so this send cannot be resumed` };
  }
  const name = createHash('sha256').update(identity).digest('hex');
  const record = join(dir, `${name}.json`);
  const lock = join(dir, `${name}.lock`);
  if (!(await takeLock(lock, newOwnerStamp()))) {
    return { why: 'another send of this file to the same place is running; this one is not resumable' };
  }
  const forget = removeOnExit(lock);
  const journal: UploadJournal = {
    async load() {
      const info = await stat(record).catch(() => undefined);
      if (!info || info.size > MAX_RECORD_BYTES) return undefined;
      try {
        return JSON.parse(await readFile(record, 'utf8')) as unknown;
      } catch {
        return { unreadable: true };
      }
    },
    async save(next: UploadRecord) {
      const writer = await AtomicFileWriter.create(dir, { label: name });
      try {
        await writer.write(new TextEncoder().encode(JSON.stringify(next)));
      } catch (error) {
        await writer.abort();
        throw error;
      }
      await writer.commit(record);
    },
    async remove() {
      await rm(record, { force: true });
    },
  };
  return {
    journal,
    stamp,
    async close() {
      forget();
      await unlink(lock).catch(() => undefined);
    },
  };
}
