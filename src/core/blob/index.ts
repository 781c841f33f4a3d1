/**
 * Public surface of the blob layer: Cobblestone-256 (C2SP chunked encryption, SHA-512, AES-256-GCM).
 * See docs/blob-format.md for the format, the context string, offsets and error behaviour.
 *
 * @module
 */
export {
  BLOB_CHUNK_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_TAG_SIZE,
  type BlobOptions,
  mediaBlobContext,
  unboundBlobContext,
} from './format.js';
export {
  type BlobReader,
  bufferRangeSource,
  openBlobRandomAccess,
  type RangeSource,
} from './random-access.js';
export { ciphertextSize, plaintextSize } from './sizes.js';
export { createDecryptStream, createEncryptStream } from './stream.js';
export { decryptBlob, encryptBlob } from './whole.js';
