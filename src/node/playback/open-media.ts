/**
 * `openMedia`: a message's media as a verified plaintext file a player can open.
 *
 * @module
 */
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { describeValue } from '../../core/bytes.js';
import { AbortedError, InvalidArgumentError } from '../../core/errors.js';
import { assertProgressAndRetries, downloadMedia } from '../../core/playback/download-media.js';
import { assertStoreAndKey, type MediaInput, toMediaRequest } from '../../core/playback/media-request.js';
import type { MediaSink } from '../../core/playback/media-sink.js';
import type { ReadableBlobStore } from '../../core/playback/resumable-download.js';
import { type RetryPolicy, retryPolicy } from '../../core/transport/retry.js';
import { createPrivateDirectory } from '../fs/private-dir.js';
import { sweepTempRoot } from '../fs/sweep.js';
import { cacheEntryId, MediaCache } from './media-cache.js';
import { privateFileSink } from './private-file-sink.js';

/** Prefix of the private directories under the OS temp dir (followed by an owner stamp `<pid>-<created>-<random>`). */
export const TEMP_DIR_PREFIX = 'happy-media-play-';

/** Options of {@link openMedia}. */
export interface OpenMediaOptions extends RetryPolicy {
  /** Where the encrypted blob is (any `BlobStore`; only `head` and `get` are used). */
  store: ReadableBlobStore;
  /** The 32-byte blob key (master or session blob key). */
  blobKey: Uint8Array;
  /** Keep the verified file between opens; without it the file lives until `dispose()` or exit. */
  cache?: MediaCache;
  /** Cancels the open with `ERR_ABORTED`; nothing is left behind. */
  signal?: AbortSignal;
  /** Verified plaintext bytes written so far, of `total`. Not called for a cache hit. */
  onProgress?: (e: { done: number; total: number }) => void;
  /** No new verified chunk for this long: the connection counts as dropped (default 30 000 ms). */
  idleTimeoutMs?: number;
  /** The download must end within this many ms (default: 10 minutes plus 1 s per 64 KiB; 0: none). */
  deadlineMs?: number;
  /** Parent of the private temp directory when there is no cache (default: the OS temp dir). */
  tempRoot?: string;
}

/** A verified plaintext file. */
export interface OpenedMedia {
  /** Absolute path of the file (0600, in a 0700 directory), with the extension of its MIME type. */
  path: string;
  /** MIME type: the message's, else sniffed from the verified bytes, else `application/octet-stream`. */
  mimeType: string;
  /** Plaintext size in bytes. */
  size: number;
  /** True when the file lives in the cache and stays after `dispose()` (until evicted). */
  cached: boolean;
  /** Releases the file: deletes it when it is not cached, unpins it when it is. Idempotent. */
  dispose(): Promise<void>;
}

function checkOptions(options: OpenMediaOptions): void {
  assertStoreAndKey(options);
  if (options.cache !== undefined && !(options.cache instanceof MediaCache)) {
    throw new InvalidArgumentError(
      `expected a MediaCache for \`cache\` but received ${describeValue(options.cache)}`,
    );
  }
  assertProgressAndRetries(options);
}

/**
 * Downloads a `photo`/`video`/`file` message's blob, verifies every byte, and returns a private plaintext
 * file: {@link downloadMedia} (the universal engine) into a private-file sink. The file appears only after the last chunk authenticated (write, fsync, rename); on any failure
 * nothing is left. A dropped connection resumes from the last verified chunk boundary (bounded retries);
 * a tag failure is final.
 *
 * @param message a validated v2 media message, or `{ ref, mimeType?, name?, size?, format? }`
 *   (`format: 'v1'` for Happy's whole-blob secretbox attachments).
 * @throws {StorageError} download leg: `ERR_NOT_FOUND`, `ERR_DOWNLOAD_FAILED`, `ERR_INVALID_REF`.
 * @throws {DecryptionError} decrypt leg: `ERR_DECRYPTION_FAILED` (wrong key, tampering, wrong size).
 * @throws {DiskError} disk leg: `ERR_DISK`.
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts.
 * @throws {InvalidArgumentError} / {SchemaError} for bad arguments or a malformed message.
 * @example
 * ```ts
 * const media = await openMedia(videoMessage, { store: openStore('http://127.0.0.1:8787'), blobKey });
 * try { await play(media.path); } finally { await media.dispose(); }
 * ```
 */
export async function openMedia(message: MediaInput, options: OpenMediaOptions): Promise<OpenedMedia> {
  checkOptions(options);
  const request = toMediaRequest(message);
  const { signal, cache } = options;
  if (signal?.aborted) throw new AbortedError('the open was aborted', { cause: signal.reason });
  // A cache entry outlives the process, so it is fsynced before it is published, and hashed (the cache
  // checks entries by their SHA-256); a temp file lives in a private directory that is removed at
  // dispose, or swept as a dead process's leftover after a crash, so it never needs to survive a power
  // cut, and nobody reads its hash: skipping the fsync saves a disk flush per open (most of the fixed cost
  // of opening a small file), skipping the hash about a tenth of the CPU of a large one.
  const download = <T>(
    sink: MediaSink<T>,
    signal?: AbortSignal,
    onProgress?: OpenMediaOptions['onProgress'],
  ) =>
    downloadMedia<T>(message, {
      source: options.store,
      blobKey: options.blobKey,
      sink,
      ...retryPolicy(options),
      ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
      ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
      signal,
      onProgress,
    });

  if (cache) {
    const lease = await cache.acquire(
      cacheEntryId(request.ref, options.blobKey),
      ({ staging, signal: shared, onProgress }) =>
        download(privateFileSink(staging, { durable: true }), shared, onProgress),
      { signal, onProgress: options.onProgress },
    );
    return {
      path: lease.path,
      mimeType: lease.mimeType,
      size: lease.size,
      cached: lease.cached,
      dispose: lease.release,
    };
  }

  const root = resolve(options.tempRoot ?? tmpdir());
  // Leftovers of earlier processes that died before their exit hook ran (once per root and process).
  sweepTempRoot(root);
  // The private directory is created while the download's request goes out (the sink writes its first
  // batch only after a few hundred kilobytes verified): one file-system round trip less before the first byte.
  const dirCreation = createPrivateDirectory(root, TEMP_DIR_PREFIX);
  dirCreation.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
  try {
    const file = await download(
      privateFileSink(
        dirCreation.then((dir) => dir.path),
        { durable: false, sha256: false },
      ),
      signal,
      options.onProgress,
    );
    const dir = await dirCreation;
    return {
      path: file.path,
      mimeType: file.mimeType,
      size: file.size,
      cached: false,
      dispose: () => dir.remove(),
    };
  } catch (error) {
    await dirCreation.then(
      (dir) => dir.remove(),
      () => undefined,
    );
    throw error;
  }
}
