/**
 * Public surface of the Node send layer: `sendMedia`, the upload-first pipeline (probe → encrypt while
 * uploading → v2 message → optional envelope), and `readSentFile`, the bytes it sends for a file.
 *
 * @module
 */
export { isMetadataStripRefusal } from '../../core/media/strip/strip-refusal.js';
export { type ReadSentFileOptions, readSentFile } from './file-plaintext.js';
export { type SendMediaHandlerOptions, sendMediaHandler } from './media-handler.js';
export {
  type SendBytesInput,
  type SendOptions,
  type SendProgress,
  type SendResult,
  type SendStreamInput,
  type SendV1Result,
  sendMedia,
} from './send-media.js';
