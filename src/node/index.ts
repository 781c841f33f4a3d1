/**
 * happy-media, Node entry: media probing (sharp, ffmpeg), storage, the send pipeline, playback and the
 * Node fast paths. Re-exports the universal entry too, so Node callers need one import.
 *
 * Every Node export is listed by name; the universal entry comes in whole through its own by-name list
 * (one `export *`, so the list is written once). test/node/public-exports.test.ts pins both.
 *
 * @packageDocumentation
 */

// Node's runtime (node:crypto AES-256-GCM, native base64, Buffer-pool arrays), installed before anything
// else of this entry is evaluated.
import './runtime/index.js';

// The universal entry, whole: its surface is listed name by name once, in src/index.ts, and this is the
// one wildcard re-export (test/node/public-exports.test.ts allows exactly it and pins the Node names).
export * from '../index.js';
// Node blob layer: files, Node streams, file-to-file encryption on worker threads (from which size on
// they pay), a plaintext range of a blob opened at random written to a file.
export {
  createNodeDecryptStream,
  createNodeEncryptStream,
  type DecryptFileOptions,
  decryptFile,
  decryptFileParallel,
  encryptFile,
  encryptFileParallel,
  type FileRangeSource,
  type FileRangeSourceOptions,
  fileRangeSource,
  PARALLEL_FILE_THRESHOLD,
  type ParallelFileOptions,
  type PlaintextRange,
  writePlaintextRange,
} from './blob/index.js';
// Output files as the library writes them: all or nothing, and output that cannot be taken back (stdout,
// a device) written only once complete.
export { writeAfterCompletion, writeFileAllOrNothing } from './fs/output-file.js';
// Happy's server from Node: credentials files, sending a file into a session.
export {
  credentialsFromText,
  HAPPY_MAX_PLAINTEXT_BYTES,
  MAX_CREDENTIALS_TEXT_LENGTH,
  readHappyCredentialsFile,
  type SendToSessionOptions,
  type SendToSessionResult,
  sendToSession,
} from './happy/index.js';
// Media probing (sharp, libheif, ffmpeg).
export {
  type BinarySource,
  ffmpegAvailability,
  type ImageLimits,
  type MediaProbe,
  type PictureProbe,
  type ProbeOptions,
  type ProbeStreamInput,
  probeMedia,
  type ToolName,
  type ToolStatus,
  // Same name and result as the universal entry's, for every format sharp reads (and file paths): in
  // Node it takes the universal one's place.
  thumbhashFromImage,
} from './media/index.js';
// Playback: download, decrypt, verify, cache, serve to a player.
export {
  type CacheLease,
  defaultCacheDir,
  MediaCache,
  type MediaCacheOptions,
  type MediaEndpoint,
  type OpenedMedia,
  type OpenMediaOptions,
  openMedia,
  type PrivateFileSinkOptions,
  type ProducedFile,
  type Producer,
  privateFileSink,
  type ServeMediaOptions,
  type SweepLeftoversOptions,
  serveMedia,
  sweepLeftovers,
  type UnhashedFile,
} from './playback/index.js';
// Helper processes (ffprobe, ffmpeg): the environment they get (this process's minus its secrets), and
// signals forwarded to them, for a command-line program.
export { childEnvironment } from './process/child-environment.js';
export { forwardSignalsToChildren } from './process/child-processes.js';
// Node's runtime and its AES-GCM, to reinstall or force (tests, benchmarks).
export { nodeAesGcm, nodeRuntime } from './runtime/index.js';
// The send pipeline: probe, encrypt, upload, build the message; the metadata strip's refusals; the bytes
// a send reads from a file (what playback gives back).
export {
  isMetadataStripRefusal,
  type ReadSentFileOptions,
  readSentFile,
  type SendBytesInput,
  type SendMediaHandlerOptions,
  type SendOptions,
  type SendProgress,
  type SendResult,
  type SendStreamInput,
  type SendV1Result,
  sendMedia,
  sendMediaHandler,
} from './send/index.js';
// Blob stores (local, HTTP, S3) and the media server (and its check of a host to listen on).
export {
  checkListenHost,
  defaultBlobDir,
  HttpBlobStore,
  type HttpBlobStoreOptions,
  LocalBlobStore,
  type LocalBlobStoreOptions,
  type MediaServer,
  type MediaServerOptions,
  type OpenStoreOptions,
  openStore,
  S3BlobStore,
  type S3BlobStoreOptions,
  startMediaServer,
} from './storage/index.js';
