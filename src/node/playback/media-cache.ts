/**
 * A disk cache of verified plaintext, keyed by ref (and blob key), with LRU eviction by total bytes.
 *
 * What "re-verified cheaply" means here: every entry records, when it is written, the plaintext's size,
 * its SHA-256 (computed while the authenticated bytes stream to disk), and the file's mtime and inode after
 * the rename. A hit checks size, mtime, inode and mode with one `stat` (microseconds, no read); any
 * difference drops the entry and downloads again. {@link MediaCache.verify} re-hashes every entry against
 * its recorded SHA-256 on demand (a full read: use it after a crash or before trusting an old cache).
 *
 * Entry ids are HMAC-SHA-256(blobKey, ref): a ref opened with another key misses the cache (and then
 * fails authentication against the store) instead of being served someone's plaintext, and the names on
 * disk reveal neither the ref nor the key. Files are 0600 in a 0700 directory.
 *
 * Concurrent opens of one entry in this process share one download; it is cancelled only when every
 * waiter has aborted. Several processes may share a directory: files appear by atomic rename and the
 * index is merged on write, but each process may download an entry once itself.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { assertNonNegativeInteger } from '../../core/bytes.js';
import { AbortedError, InvalidArgumentError } from '../../core/errors.js';
import { cacheEntryId } from '../../core/playback/cache-entry-id.js';
import { SharedWork, type SharedWorkContext } from '../../core/shared-work.js';
import { AtomicFileWriter } from '../fs/atomic-file.js';
import { diskError } from '../fs/disk-error.js';
import { createPrivateDirectory, PRIVATE_DIR_MODE, type PrivateDirectory } from '../fs/private-dir.js';
import { PARTIAL_FILE_NAMES, prefixedNames, sweepStale } from '../fs/sweep.js';

/** Options of {@link MediaCache}. */
export interface MediaCacheOptions {
  /** Cache directory (created 0700). Default: {@link defaultCacheDir}. */
  dir?: string;
  /** Budget in bytes; least recently used entries are evicted beyond it. Larger files are not cached. */
  maxBytes: number;
}

/** A verified plaintext file produced for the cache, still in its staging directory. */
export interface ProducedFile {
  /** Path of the finished file inside the staging directory. */
  path: string;
  /** The file's extension, with its dot (`.mp4`). */
  extension: string;
  /** Plaintext size in bytes. */
  size: number;
  /** MIME type of the plaintext. */
  mimeType: string;
  /** SHA-256 of the plaintext, hex, computed while writing. */
  sha256: string;
}

/** Produces a verified file in `staging` (a private directory the cache owns). */
export type Producer = (context: {
  staging: string;
  signal: AbortSignal;
  onProgress: (e: { done: number; total: number }) => void;
}) => Promise<ProducedFile>;

/** A file handed out by the cache; it is not evicted until released. */
export interface CacheLease {
  /** Absolute path of the verified plaintext file. */
  path: string;
  /** Plaintext size in bytes. */
  size: number;
  /** MIME type. */
  mimeType: string;
  /** True when the file came from the cache without a download. */
  hit: boolean;
  /** True when the file is a cache entry (it stays after release); false for one too big to cache. */
  cached: boolean;
  /** Unpins the file (idempotent); an uncacheable file is deleted here. */
  release(): Promise<void>;
}

interface Entry {
  file: string;
  size: number;
  mimeType: string;
  sha256: string;
  mtimeMs: number;
  ino: number;
  lastUsed: number;
}

interface IndexFile {
  version: 1;
  entries: Record<string, Entry>;
}

/** What one download for the cache gave its callers: a cache entry, or a file too big to cache. */
interface Produced {
  entryId?: string;
  transient?: Transient;
}

interface Transient {
  dir: PrivateDirectory;
  file: ProducedFile;
  refs: number;
}

const INDEX_NAME = 'index.json';
const STAGING_PREFIX = 'staging-';
// Files the index does not know are removed only when this old, so a concurrent process's fresh entry
// (renamed in, index not yet written) is left alone.
const ORPHAN_AGE_MS = 10 * 60 * 1000;

/**
 * Removes what processes killed while filling the cache in `dir` left there: staging directories (verified
 * plaintext) and temp files of the index, by the rules of `../fs/sweep.ts`. Returns how many entries went;
 * never throws. A cache runs it when it loads; the CLI runs it at the start of every command.
 */
export function sweepCacheLeftovers(dir: string): number {
  return sweepStale(dir, prefixedNames(STAGING_PREFIX)) + sweepStale(dir, PARTIAL_FILE_NAMES);
}

/**
 * The default cache directory: `$XDG_CACHE_HOME/happy-media/media` (else `~/.cache/...`; on macOS
 * `~/Library/Caches/happy-media/media`).
 */
export function defaultCacheDir(): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'happy-media', 'media');
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'happy-media', 'media');
}

export { cacheEntryId };

/** SHA-256 of a whole file, hex (streams it; bounded memory). */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Verified plaintext kept on disk between opens.
 *
 * @example
 * ```ts
 * const cache = new MediaCache({ maxBytes: 2 * 1024 ** 3 });
 * const media = await openMedia(message, { store, blobKey, cache }); // downloads
 * await media.dispose();
 * const again = await openMedia(message, { store, blobKey, cache }); // instant, from disk
 * ```
 */
export class MediaCache {
  /** The cache directory. */
  readonly dir: string;
  /** The byte budget. */
  readonly maxBytes: number;
  #entries = new Map<string, Entry>();
  #removed = new Set<string>();
  #pins = new Map<string, number>();
  #inflight = new SharedWork<Produced>();
  #loaded: Promise<void> | undefined;
  #writing: Promise<void> = Promise.resolve();

  /** @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad `maxBytes` or `dir`. */
  constructor(options: MediaCacheOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new InvalidArgumentError('expected an options object for `options` but received none');
    }
    this.maxBytes = assertNonNegativeInteger(options.maxBytes, 'maxBytes');
    if (options.dir !== undefined && (typeof options.dir !== 'string' || options.dir.length === 0)) {
      throw new InvalidArgumentError('expected a directory path for `dir` but received an empty value');
    }
    // Absolute, so the paths handed out stay valid whatever the process's cwd does later.
    this.dir = resolve(options.dir ?? defaultCacheDir());
  }

  /** Total bytes of the cached entries. */
  get bytes(): number {
    let total = 0;
    for (const entry of this.#entries.values()) total += entry.size;
    return total;
  }

  /** Number of cached entries. */
  get count(): number {
    return this.#entries.size;
  }

  /** True when `ref` (under `blobKey`) has a cached entry that passes the cheap check. */
  async has(ref: string, blobKey: Uint8Array): Promise<boolean> {
    await this.#load();
    const id = cacheEntryId(ref, blobKey);
    const entry = this.#entries.get(id);
    return entry !== undefined && (await this.#cheapCheck(entry));
  }

  /** Removes the entry of `ref` (under `blobKey`), unless a handle still uses it. Returns true if removed. */
  async delete(ref: string, blobKey: Uint8Array): Promise<boolean> {
    await this.#load();
    const id = cacheEntryId(ref, blobKey);
    if (!this.#entries.has(id) || (this.#pins.get(id) ?? 0) > 0) return false;
    await this.#drop(id);
    await this.#persist();
    return true;
  }

  /**
   * Full re-verification: re-hashes every unpinned entry against its recorded SHA-256 and drops the ones
   * that differ or are gone.
   *
   * @returns how many entries were checked and how many were dropped.
   */
  async verify(): Promise<{ checked: number; dropped: number }> {
    await this.#load();
    let checked = 0;
    let dropped = 0;
    for (const [id, entry] of [...this.#entries]) {
      if ((this.#pins.get(id) ?? 0) > 0) continue;
      checked++;
      const ok =
        (await this.#cheapCheck(entry)) && (await sha256File(join(this.dir, entry.file))) === entry.sha256;
      if (!ok) {
        await this.#drop(id);
        dropped++;
      }
    }
    if (dropped > 0) await this.#persist();
    return { checked, dropped };
  }

  /** Removes every unpinned entry. */
  async clear(): Promise<void> {
    await this.#load();
    for (const id of [...this.#entries.keys()]) if ((this.#pins.get(id) ?? 0) === 0) await this.#drop(id);
    await this.#persist();
  }

  /**
   * Returns the cached file for `id`, or runs `produce` (once, however many concurrent callers) and caches
   * its result. Used by `openMedia`; exposed for other producers of verified files.
   *
   * @throws whatever `produce` throws; {@link AbortedError} `ERR_ABORTED` when `signal` aborts this caller.
   */
  async acquire(
    id: string,
    produce: Producer,
    options: { signal?: AbortSignal; onProgress?: (e: { done: number; total: number }) => void } = {},
  ): Promise<CacheLease> {
    await this.#load();
    const { signal, onProgress } = options;
    if (signal?.aborted) throw new AbortedError('the open was aborted', { cause: signal.reason });
    const entry = this.#entries.get(id);
    if (entry && !this.#inflight.has(id)) {
      if (await this.#cheapCheck(entry)) return this.#lease(id, entry, true);
      await this.#drop(id);
      await this.#persist();
    }
    const result = await this.#inflight.join(
      id,
      (context) => this.#produce(id, produce, context),
      { signal, onProgress },
      'the open',
    );
    if (result.transient) return this.#transientLease(result.transient);
    const cached = this.#entries.get(result.entryId!)!;
    return this.#lease(result.entryId!, cached, false);
  }

  /** Runs `produce` in a fresh staging directory and moves its file into the cache (when it fits). */
  async #produce(id: string, produce: Producer, context: SharedWorkContext): Promise<Produced> {
    const staging = await createPrivateDirectory(this.dir, STAGING_PREFIX);
    try {
      const file = await produce({ staging: staging.path, ...context });
      if (file.size > this.maxBytes) {
        // Too big to cache: the callers get it, and the last release removes it.
        return { transient: { dir: staging, file, refs: 0 } };
      }
      const name = `${id}${file.extension}`;
      const target = join(this.dir, name);
      try {
        await rename(file.path, target);
        const info = await stat(target);
        const entry: Entry = {
          file: name,
          size: file.size,
          mimeType: file.mimeType,
          sha256: file.sha256,
          // Millisecond precision: what every file system and utimes() round-trip reliably. Rounded,
          // not truncated: Node's Stats Dates round (a stat's `mtime` is 667 for 666.7 ms), so a
          // timestamp restored from one would sit a whole millisecond past a truncated record.
          mtimeMs: Math.round(info.mtimeMs),
          ino: info.ino,
          lastUsed: Date.now(),
        };
        this.#entries.set(id, entry);
        this.#removed.delete(id);
      } catch (cause) {
        throw diskError('move the verified file into the cache', cause, this.dir);
      } finally {
        await staging.remove();
      }
      return { entryId: id };
    } catch (error) {
      await staging.remove();
      throw error;
    }
  }

  async #lease(id: string, entry: Entry, hit: boolean): Promise<CacheLease> {
    this.#pins.set(id, (this.#pins.get(id) ?? 0) + 1);
    entry.lastUsed = Date.now();
    await this.#evict();
    await this.#persist();
    let released = false;
    return {
      path: join(this.dir, entry.file),
      size: entry.size,
      mimeType: entry.mimeType,
      hit,
      cached: true,
      release: async () => {
        if (released) return;
        released = true;
        const left = (this.#pins.get(id) ?? 1) - 1;
        if (left > 0) this.#pins.set(id, left);
        else this.#pins.delete(id);
        await this.#evict();
        await this.#persist();
      },
    };
  }

  #transientLease(transient: Transient): CacheLease {
    transient.refs++;
    let released = false;
    return {
      path: transient.file.path,
      size: transient.file.size,
      mimeType: transient.file.mimeType,
      hit: false,
      cached: false,
      release: async () => {
        if (released) return;
        released = true;
        if (--transient.refs === 0) await transient.dir.remove();
      },
    };
  }

  async #cheapCheck(entry: Entry): Promise<boolean> {
    try {
      const info = await stat(join(this.dir, entry.file));
      return (
        info.isFile() &&
        info.size === entry.size &&
        // Within a millisecond, not equal: restoring a timestamp through a Date (utimes, cp -p, backup
        // tools) can land a few nanoseconds below the original and change its truncated millisecond.
        Math.abs(info.mtimeMs - entry.mtimeMs) < 1 &&
        info.ino === entry.ino &&
        (info.mode & 0o077) === 0
      );
    } catch {
      return false;
    }
  }

  async #evict(): Promise<void> {
    let total = this.bytes;
    if (total <= this.maxBytes) return;
    const candidates = [...this.#entries]
      .filter(([id]) => (this.#pins.get(id) ?? 0) === 0)
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [id, entry] of candidates) {
      if (total <= this.maxBytes) break;
      await this.#drop(id);
      total -= entry.size;
    }
  }

  async #drop(id: string): Promise<void> {
    const entry = this.#entries.get(id);
    if (!entry) return;
    this.#entries.delete(id);
    this.#removed.add(id);
    await unlink(join(this.dir, entry.file)).catch(() => undefined);
  }

  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      try {
        await mkdir(this.dir, { recursive: true, mode: PRIVATE_DIR_MODE });
        await chmod(this.dir, PRIVATE_DIR_MODE);
      } catch (cause) {
        throw diskError('create the cache directory', cause, this.dir);
      }
      sweepCacheLeftovers(this.dir);
      for (const [id, entry] of Object.entries((await this.#readIndex()).entries))
        this.#entries.set(id, entry);
      await this.#removeOrphans();
    })();
    return this.#loaded;
  }

  async #readIndex(): Promise<IndexFile> {
    try {
      const parsed = JSON.parse(await readFile(join(this.dir, INDEX_NAME), 'utf8')) as unknown;
      return sanitizeIndex(parsed);
    } catch {
      // A missing or unreadable index means an empty cache; orphaned files are removed below.
      return { version: 1, entries: {} };
    }
  }

  async #removeOrphans(): Promise<void> {
    const known = new Set([...this.#entries.values()].map((e) => e.file));
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      if (name === INDEX_NAME || name.startsWith(STAGING_PREFIX) || known.has(name)) continue;
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs > ORPHAN_AGE_MS) await rm(path, { recursive: true, force: true });
    }
  }

  /** Writes the index atomically, merged with what other processes wrote meanwhile. */
  #persist(): Promise<void> {
    const run = async () => {
      const onDisk = await this.#readIndex();
      const merged: IndexFile = { version: 1, entries: {} };
      for (const [id, entry] of Object.entries(onDisk.entries)) {
        if (!this.#removed.has(id)) merged.entries[id] = entry;
      }
      for (const [id, entry] of this.#entries) merged.entries[id] = entry;
      const writer = await AtomicFileWriter.create(this.dir, { label: INDEX_NAME });
      try {
        await writer.write(new TextEncoder().encode(JSON.stringify(merged)));
      } catch (error) {
        await writer.abort();
        throw error;
      }
      await writer.commit(join(this.dir, INDEX_NAME));
    };
    this.#writing = this.#writing.then(run, run);
    return this.#writing;
  }
}

function sanitizeIndex(value: unknown): IndexFile {
  const out: IndexFile = { version: 1, entries: {} };
  if (typeof value !== 'object' || value === null) return out;
  const entries = (value as { entries?: unknown }).entries;
  if (typeof entries !== 'object' || entries === null) return out;
  for (const [id, raw] of Object.entries(entries as Record<string, unknown>)) {
    const e = raw as Partial<Entry>;
    // The index is ours, but it is read back from disk: only well-formed entries with safe names count.
    if (
      /^[0-9a-f]{32}$/.test(id) &&
      typeof e.file === 'string' &&
      /^[0-9a-f]{32}(\.[a-z0-9]{1,10})?$/.test(e.file) &&
      e.file.startsWith(id) &&
      Number.isSafeInteger(e.size) &&
      typeof e.mimeType === 'string' &&
      typeof e.sha256 === 'string' &&
      typeof e.mtimeMs === 'number' &&
      typeof e.ino === 'number' &&
      typeof e.lastUsed === 'number'
    ) {
      out.entries[id] = e as Entry;
    }
  }
  return out;
}
