/**
 * Public surface of the Node blob layer: files and Node streams over the universal engines, and
 * file-to-file encryption on worker threads. The chunks' AES-256-GCM is the runtime's (node:crypto once
 * `happy-media/node` is imported, see `src/node/runtime/`).
 *
 * @module
 */

export { type FileRangeSource, type FileRangeSourceOptions, fileRangeSource } from './file-range-source.js';
export { type DecryptFileOptions, decryptFile, encryptFile } from './files.js';
export { createNodeDecryptStream, createNodeEncryptStream } from './node-streams.js';
export {
  decryptFileParallel,
  encryptFileParallel,
  PARALLEL_FILE_THRESHOLD,
  type ParallelFileOptions,
} from './parallel-files.js';
export { type PlaintextRange, writePlaintextRange } from './plaintext-range.js';
