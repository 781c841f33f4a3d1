/**
 * Public surface of the Node blob layer. Importing it registers the node:crypto backend, which then
 * becomes the automatic choice of every blob operation.
 *
 * @module
 */
import { registerBlobBackend } from '../../core/blob/backend.js';
import { nodeBlobBackend } from './node-backend.js';

registerBlobBackend(nodeBlobBackend);

export { type FileRangeSource, fileRangeSource } from './file-range-source.js';
export { type DecryptFileOptions, decryptFile, encryptFile } from './files.js';
export { nodeBlobBackend } from './node-backend.js';
export { createNodeDecryptStream, createNodeEncryptStream } from './node-streams.js';
export {
  decryptFileParallel,
  encryptFileParallel,
  PARALLEL_FILE_THRESHOLD,
  type ParallelFileOptions,
} from './parallel-files.js';
