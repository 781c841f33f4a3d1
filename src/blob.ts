/**
 * happy-media/blob: the chunked media blob (Cobblestone-256) itself, for code that encrypts or decrypts
 * blobs without the send and playback pipelines (`sendPickedMedia`, `downloadMedia` use it for an app):
 * whole buffers, Web Streams, random access, its sizes and the context that binds a blob to its ref
 * (docs/blob-format.md).
 *
 * Every export is listed by name; test/node/public-exports.test.ts pins the list.
 *
 * @packageDocumentation
 */
export {
  type BlobOptions,
  type BlobReader,
  bufferRangeSource,
  ciphertextSize,
  createDecryptStream,
  createEncryptStream,
  decryptBlob,
  encryptBlob,
  mediaBlobContext,
  openBlobRandomAccess,
  plaintextSize,
  type RangeSource,
  unboundBlobContext,
} from './core/blob/index.js';
