/**
 * Universal playback: `downloadMedia` (download → verify → sink, one engine for every runtime), sinks, the
 * fetch source, the range source over a store, and the resumable download they are built from (the package
 * root exports all but the resumable download and its defaults, which are their plumbing).
 * See docs/playback.md.
 *
 * @module
 */

export {
  type DownloadMediaOptions,
  downloadMedia,
  type MediaDownloadSource,
} from './download-media.js';
export { type FetchBlobSourceOptions, fetchBlobSource, type MediaUrl } from './fetch-blob-source.js';
export {
  type HappyFileEventInput,
  type MediaInput,
  type MediaRefInput,
  type MediaRequest,
  toMediaRequest,
} from './media-request.js';
export {
  type MediaSink,
  type MediaSinkCommitInfo,
  type MemorySinkOptions,
  memorySink,
} from './media-sink.js';
export {
  chunkedResumePoint,
  DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS,
  defaultDownloadDeadlineMs,
  type ReadableBlobStore,
  type ResumableDownloadOptions,
  resumableDownload,
} from './resumable-download.js';
export { type StoreRangeSourceOptions, storeRangeSource } from './store-reads.js';
export {
  type OpenMediaRandomAccessOptions,
  openMediaRandomAccess,
  type StoredMediaOptions,
  storedMediaSize,
} from './stored-media.js';
