/**
 * `openExpoMedia`: `openMedia`'s promises on a phone. A media message becomes a verified file in the
 * app's cache (expo-file-system), all or nothing, and a second open of the same ref under the same key
 * is that file again, without a download.
 *
 * Layout under the cache folder (default `Paths.cache/happy-media`): `<id>/<name>.<ext>` per entry, with
 * `id` = {@link cacheEntryId} (HMAC-SHA-256 of the ref under the blob key: another key misses, names
 * reveal neither), so the file keeps a name a player and a share sheet understand; `.<random>.partial`
 * temp files beside the entries while they download. An entry's folder gets its file only by a move
 * after the last chunk verified, so a file there is a verified one. The system may purge the cache
 * folder at any time; a purged entry is downloaded again.
 *
 * @module
 */
import { describeValue } from '../core/bytes.js';
import { AbortedError, InvalidArgumentError } from '../core/errors.js';
import { cacheEntryId } from '../core/playback/cache-entry-id.js';
import {
  assertProgressAndRetries,
  type DownloadMediaOptions,
  downloadMedia,
} from '../core/playback/download-media.js';
import { type MediaInput, toMediaRequest } from '../core/playback/media-request.js';
import type { MediaSink } from '../core/playback/media-sink.js';
import { SharedWork } from '../core/shared-work.js';
import {
  assertExpoFileSystem,
  commitIntoFolder,
  committedName,
  defaultExpoDirectory,
  deleteQuietly,
  ExpoTempFile,
  sweepExpoTempFiles,
} from './file-sink.js';
import type { ExpoDirectory, ExpoFile, ExpoFileSystem } from './file-system.js';

/** Options of {@link openExpoMedia}: those of `downloadMedia` without the sink. */
export interface OpenExpoMediaOptions<F extends ExpoFile = ExpoFile, D extends ExpoDirectory = ExpoDirectory>
  extends Omit<DownloadMediaOptions<F>, 'sink'> {
  /** The app's `expo-file-system` module (`import * as FileSystem from 'expo-file-system'`). */
  fileSystem: ExpoFileSystem<F, D>;
  /** The cache folder; default `Paths.cache/happy-media` (created when missing). */
  directory?: D;
}

/** Downloads by entry, shared by every open of it; one is cancelled only when every waiter gave up. */
const downloads = new SharedWork<ExpoFile>();

/** The cached file of an entry, if its folder holds exactly one file of the expected size. */
function cachedFile(
  fileSystem: ExpoFileSystem,
  entry: ExpoDirectory,
  size: number | undefined,
): ExpoFile | undefined {
  if (!entry.exists) return undefined;
  let files: ExpoFile[];
  try {
    files = entry.list().filter((item): item is ExpoFile => item instanceof fileSystem.File);
  } catch {
    files = [];
  }
  const [file] = files;
  if (files.length === 1 && file !== undefined && (size === undefined || file.size === size)) return file;
  // Anything else (emptied by a purge, a second file, a wrong size) is not trusted: download again.
  deleteQuietly(entry);
  return undefined;
}

/** The sink of one cache entry: a temp file in the cache folder, moved into the entry's folder. */
function entrySink(
  fileSystem: ExpoFileSystem,
  root: ExpoDirectory,
  entry: ExpoDirectory,
): MediaSink<ExpoFile> {
  const temp = new ExpoTempFile(fileSystem, root);
  return {
    write: (bytes) => temp.write(bytes),
    commit: (info) => commitIntoFolder(fileSystem, temp, entry, committedName(info, temp.head, undefined)),
    abort: () => temp.abort(),
  };
}

/**
 * Downloads, verifies and caches a `photo`/`video`/`file` message (or a v1 file event, or a bare ref) as a
 * file, and resolves to it (its `uri` is what expo-video, expo-image and a share sheet take). A cached
 * entry is returned at once; concurrent opens of one entry share one download, cancelled only when every
 * caller's `signal` aborted. Nothing is left behind by a failure, and nothing unverified is ever written
 * under an entry's name.
 *
 * @throws what `downloadMedia` throws: {StorageError} (download leg), {DecryptionError} (any tampering,
 *   wrong key or size), {LimitError}, {AbortedError}, {InvalidArgumentError}/{SchemaError} before any I/O;
 *   {DiskError} `ERR_DISK` when the file cannot be written or moved.
 * @example
 * ```ts
 * import * as FileSystem from 'expo-file-system';
 * import { fetch } from 'expo/fetch';
 * import { openExpoMedia } from 'happy-media/expo';
 * const file = await openExpoMedia(message, {
 *   fileSystem: FileSystem, source: store, fetch, blobKey,
 *   onProgress: ({ done, total }) => setProgress(done / total),
 * });
 * player.replace(file.uri);
 * ```
 */
export async function openExpoMedia<F extends ExpoFile, D extends ExpoDirectory>(
  message: MediaInput,
  options: OpenExpoMediaOptions<F, D>,
): Promise<F> {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(
      `expected \`{ fileSystem, source, blobKey }\` for \`options\` but received ${describeValue(options)}`,
    );
  }
  const { fileSystem: module, directory, signal, onProgress, ...download } = options;
  const fileSystem = assertExpoFileSystem(module);
  // downloadMedia gets the shared download's progress, not this caller's: checked here, as openMedia does.
  assertProgressAndRetries(options);
  const request = toMediaRequest(message);
  const id = cacheEntryId(request.ref, download.blobKey);
  if (signal?.aborted) throw new AbortedError('the download was aborted', { cause: signal.reason });
  const root = directory ?? defaultExpoDirectory(fileSystem);
  sweepExpoTempFiles(root);
  const entry = new fileSystem.Directory(root, id);
  const key = `${root.uri}|${id}`;
  if (!downloads.has(key)) {
    const hit = cachedFile(fileSystem, entry, request.size);
    if (hit) return hit as F;
  }
  return (await downloads.join(
    key,
    (shared) =>
      downloadMedia(message, {
        ...download,
        signal: shared.signal,
        onProgress: shared.onProgress,
        sink: entrySink(fileSystem, root, entry),
      }),
    { signal, onProgress },
    'the download',
  )) as F;
}
