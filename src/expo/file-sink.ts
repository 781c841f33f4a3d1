/**
 * A {@link MediaSink} over expo-file-system: verified plaintext goes to a temp file in the app's cache,
 * written through one `FileHandle` in pieces of up to 256 KiB (one native call each); `commit` closes it
 * and moves it to its name, `abort` closes and deletes it, so a failure leaves nothing behind.
 *
 * This module owns the temp files (`.<24 hex>.partial`) of every sink and of `openExpoMedia`'s cache:
 * each is listed in one registry from its creation until it is moved or deleted, and the sweep of a
 * killed run's leftovers ({@link sweepExpoTempFiles}) spares every listed one, so a sweep never deletes
 * a download in flight, whichever of the two started it.
 *
 * @module
 */
import { randomBytes, toHex } from '../core/bytes.js';
import { DiskError, InvalidArgumentError } from '../core/errors.js';
import { IMAGE_TYPE_HEAD_BYTES, imageMimeType } from '../core/media/image-type.js';
import { mediaFileName } from '../core/playback/media-names.js';
import type { MediaSink, MediaSinkCommitInfo } from '../core/playback/media-sink.js';
import type { ExpoDirectory, ExpoFile, ExpoFileHandle, ExpoFileSystem } from './file-system.js';

/** Bytes gathered before one `writeBytes` call: few native calls, bounded memory. */
export const EXPO_WRITE_BYTES = 256 * 1024;

/** Name of the folder under `Paths.cache` the sink and the cache use by default. */
export const EXPO_CACHE_FOLDER = 'happy-media';

/** A temp file's name, `.<24 hex>.partial`, as {@link ExpoTempFile} makes it (what a sweep deletes). */
export const EXPO_TEMP_NAME = /^\.[0-9a-f]{24}\.partial$/;

/** Options of {@link expoFileSink}. */
export interface ExpoFileSinkOptions<D extends ExpoDirectory = ExpoDirectory> {
  /** Where the file goes (and its temp file, beside it). Default `Paths.cache/happy-media`, created if missing. */
  directory?: D;
  /**
   * The committed file's name in `directory`, or a function of what the sink learnt at commit; an
   * existing file of that name is replaced. Default: the message's display name made safe, with the
   * extension of its MIME type (photos, which have no display name: `media` and the verified bytes'
   * type), in a folder of its own made for this download (`<directory>/<24 hex>/<name>`), so no two
   * downloads share a path and a file handed out earlier never gets another download's bytes.
   */
  name?: string | ((info: MediaSinkCommitInfo & { mimeType?: string }) => string);
}

/** Checks that `fileSystem` has what the sink needs, before any download starts. */
export function assertExpoFileSystem<F extends ExpoFile, D extends ExpoDirectory>(
  fileSystem: ExpoFileSystem<F, D>,
): ExpoFileSystem {
  if (
    typeof fileSystem !== 'object' ||
    fileSystem === null ||
    typeof fileSystem.File !== 'function' ||
    typeof fileSystem.Directory !== 'function' ||
    typeof fileSystem.Paths?.cache?.uri !== 'string'
  ) {
    throw new InvalidArgumentError(
      "expected expo-file-system's module (`import * as FileSystem from 'expo-file-system'`: File, Directory, Paths) for `fileSystem`",
    );
  }
  // Its classes are the module's own (F, D); inside, only what ExpoFile and ExpoDirectory promise is used.
  return fileSystem as unknown as ExpoFileSystem;
}

/** A native error as the disk leg's typed error (the message names the step, never the bytes). */
export function expoDiskError(step: string, cause: unknown): DiskError {
  const detail = cause instanceof Error ? `: ${cause.message.split('\n')[0]?.slice(0, 200)}` : '';
  return new DiskError(`${step} failed${detail}`, { cause });
}

/** The sink's default directory, `Paths.cache/happy-media`, created when missing. */
export function defaultExpoDirectory(fileSystem: ExpoFileSystem): ExpoDirectory {
  const directory = new fileSystem.Directory(fileSystem.Paths.cache, EXPO_CACHE_FOLDER);
  try {
    if (!directory.exists) directory.create({ intermediates: true, idempotent: true });
  } catch (cause) {
    throw expoDiskError(`creating ${directory.uri}`, cause);
  }
  return directory;
}

/** Temp files this JS runtime is writing, by URI: a `.partial` file not in here is a dead run's leftover. */
const tempFilesInFlight = new Set<string>();
/** Folders already swept in this JS runtime. */
const sweptFolders = new Set<string>();

function entryName(entry: { uri: string }): string {
  return decodeURIComponent(entry.uri.replace(/\/+$/, '').split('/').pop() ?? '');
}

/**
 * Deletes the temp files a killed run left in `folder` (once per folder and JS runtime), sparing every
 * temp file a sink or the cache of this runtime is writing.
 */
export function sweepExpoTempFiles(folder: ExpoDirectory): void {
  if (sweptFolders.has(folder.uri)) return;
  sweptFolders.add(folder.uri);
  try {
    for (const entry of folder.list()) {
      if (EXPO_TEMP_NAME.test(entryName(entry)) && !tempFilesInFlight.has(entry.uri)) deleteQuietly(entry);
    }
  } catch {
    // A folder that cannot be listed has nothing to sweep that we could delete either.
  }
}

/** Deletes `file` if it exists; a failure here must not hide the failure being reported. */
export function deleteQuietly(file: ExpoFile | ExpoDirectory | undefined): void {
  try {
    if (file?.exists) file.delete();
  } catch {
    // Nothing more can be done; the cache folder is the system's to purge.
  }
}

/**
 * Writes verified bytes to one temp file through one handle, in 256 KiB pieces. The
 * building block of {@link expoFileSink} and the app's media cache. The temp file is listed as in flight
 * from its creation until it is moved or deleted (see {@link sweepExpoTempFiles}).
 */
export class ExpoTempFile {
  readonly #fileSystem: ExpoFileSystem;
  readonly #directory: ExpoDirectory;
  #file: ExpoFile | undefined;
  #handle: ExpoFileHandle | undefined;
  readonly #pending = new Uint8Array(EXPO_WRITE_BYTES);
  #pendingLength = 0;
  #head: Uint8Array | undefined;

  constructor(fileSystem: ExpoFileSystem, directory: ExpoDirectory) {
    this.#fileSystem = fileSystem;
    this.#directory = directory;
  }

  /** The first bytes written (for naming a photo by its type). */
  get head(): Uint8Array | undefined {
    return this.#head;
  }

  /** Appends verified bytes (copied: the caller may reuse its array). */
  write(bytes: Uint8Array): void {
    this.#head ??= bytes.slice(0, IMAGE_TYPE_HEAD_BYTES);
    if (this.#pendingLength + bytes.length <= EXPO_WRITE_BYTES) {
      this.#pending.set(bytes, this.#pendingLength);
      this.#pendingLength += bytes.length;
      if (this.#pendingLength === EXPO_WRITE_BYTES) this.#flush();
      return;
    }
    this.#flush();
    if (bytes.length >= EXPO_WRITE_BYTES) this.#writeNow(bytes);
    else {
      this.#pending.set(bytes, 0);
      this.#pendingLength = bytes.length;
    }
  }

  /** Writes what is pending, closes the file and moves it to `destination` (replacing a file there). */
  commit(destination: ExpoFile): ExpoFile {
    this.#flush();
    const file = this.#open();
    const tempUri = file.uri;
    this.#close();
    try {
      if (destination.exists) destination.delete();
      file.move(destination);
    } catch (cause) {
      this.abort();
      throw expoDiskError(`moving the verified file to ${destination.uri}`, cause);
    }
    tempFilesInFlight.delete(tempUri);
    this.#file = undefined;
    return destination;
  }

  /** Closes and deletes the temp file (if any); wipes what was pending. */
  abort(): void {
    this.#pending.fill(0, 0, this.#pendingLength);
    this.#pendingLength = 0;
    try {
      this.#handle?.close();
    } catch {
      // Closing a handle that failed is best effort; deleting is what matters.
    }
    this.#handle = undefined;
    deleteQuietly(this.#file);
    if (this.#file) tempFilesInFlight.delete(this.#file.uri);
    this.#file = undefined;
  }

  #open(): ExpoFile {
    if (this.#file === undefined) {
      const file = new this.#fileSystem.File(this.#directory, `.${toHex(randomBytes(12))}.partial`);
      tempFilesInFlight.add(file.uri);
      try {
        file.create();
        this.#file = file;
        this.#handle = file.open();
      } catch (cause) {
        this.abort();
        tempFilesInFlight.delete(file.uri);
        throw expoDiskError(`creating the temp file ${file.uri}`, cause);
      }
    }
    return this.#file;
  }

  #writeNow(bytes: Uint8Array): void {
    this.#open();
    try {
      (this.#handle as ExpoFileHandle).writeBytes(bytes);
    } catch (cause) {
      throw expoDiskError(`writing ${this.#file?.uri}`, cause);
    }
  }

  #flush(): void {
    if (this.#pendingLength === 0) return;
    // writeBytes copies into native memory before it returns, so the staging array is reused.
    this.#writeNow(this.#pending.subarray(0, this.#pendingLength));
    this.#pendingLength = 0;
  }

  #close(): void {
    try {
      this.#handle?.close();
    } catch (cause) {
      throw expoDiskError(`closing ${this.#file?.uri}`, cause);
    } finally {
      this.#handle = undefined;
    }
  }
}

/**
 * Commits `temp` as `name` in `folder`, which is made afresh (a folder already there is deleted first):
 * the file is the folder's only entry. On failure the temp file and the folder are gone.
 *
 * @throws {DiskError} `ERR_DISK` when the folder cannot be made or the file moved into it.
 */
export function commitIntoFolder(
  fileSystem: ExpoFileSystem,
  temp: ExpoTempFile,
  folder: ExpoDirectory,
  name: string,
): ExpoFile {
  try {
    if (folder.exists) folder.delete();
    folder.create({ intermediates: true });
  } catch (cause) {
    temp.abort();
    throw expoDiskError(`creating ${folder.uri}`, cause);
  }
  try {
    return temp.commit(new fileSystem.File(folder, name));
  } catch (error) {
    deleteQuietly(folder);
    throw error;
  }
}

/** A caller's file name must stay inside the directory: one path segment, not `.` or `..`. */
function checkedName(name: unknown): string {
  if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
    throw new InvalidArgumentError(
      `expected a file name without a path (no /, \\, or NUL; not . or ..) for \`name\` but received ${JSON.stringify(String(name).slice(0, 80))}`,
    );
  }
  return name;
}

/** The committed file's name: the caller's, else the message's display name and type. */
export function committedName(
  info: MediaSinkCommitInfo,
  head: Uint8Array | undefined,
  name: ExpoFileSinkOptions['name'],
): string {
  const mimeType = info.mimeType ?? (head ? imageMimeType(head) : undefined);
  if (typeof name === 'function') {
    return checkedName(name({ ...info, ...(mimeType === undefined ? {} : { mimeType }) }));
  }
  return name === undefined ? mediaFileName(info.name, mimeType).name : checkedName(name);
}

/**
 * A sink for `downloadMedia` that writes to a file through expo-file-system and resolves to that file
 * (its `uri` is what expo-video and expo-image take). Only verified bytes are written, to a temp file
 * beside the destination; the file appears under its name only after the last chunk verified, and any
 * failure deletes the temp file.
 *
 * @param fileSystem - the app's `expo-file-system` module (`import * as FileSystem from 'expo-file-system'`).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` at once when `fileSystem` is not that module or
 *   `options.name` is neither a string nor a function.
 * @throws {DiskError} `ERR_DISK` (from `write`/`commit`, so `downloadMedia` rejects with it) when the
 *   file cannot be created, written, closed or moved; the temp file is deleted.
 * @example
 * ```ts
 * import * as FileSystem from 'expo-file-system';
 * import { fetch } from 'expo/fetch';
 * const file = await downloadMedia(message, {
 *   source: (ref) => api.downloadUrl(ref), fetch, blobKey, sink: expoFileSink(FileSystem),
 * });
 * player.replace(file.uri);
 * ```
 */
export function expoFileSink<F extends ExpoFile, D extends ExpoDirectory>(
  fileSystem: ExpoFileSystem<F, D>,
  options: ExpoFileSinkOptions<D> = {},
): MediaSink<F> {
  const fs = assertExpoFileSystem(fileSystem);
  if (typeof options.name === 'string') checkedName(options.name);
  else if (options.name !== undefined && typeof options.name !== 'function') {
    throw new InvalidArgumentError('expected a file name or a function for `name`');
  }
  let temp: ExpoTempFile | undefined;
  let directory: ExpoDirectory | undefined;
  const open = () => {
    directory ??= options.directory ?? defaultExpoDirectory(fs);
    temp ??= new ExpoTempFile(fs, directory);
    return temp;
  };
  return {
    write(verifiedBytes) {
      open().write(verifiedBytes);
    },
    commit(info) {
      const file = open();
      const name = committedName(info, file.head, options.name);
      const folder = directory as ExpoDirectory;
      if (options.name !== undefined) return file.commit(new fs.File(folder, name)) as F;
      // Default names repeat (every photo is media.<ext>, a message sent twice has one name): each
      // download gets a folder of its own, never reused, whatever the app still holds.
      return commitIntoFolder(fs, file, new fs.Directory(folder, toHex(randomBytes(12))), name) as F;
    },
    abort() {
      temp?.abort();
    },
  };
}
