/**
 * Public surface of the Node blob layer. Importing it registers the node:crypto backend, which then
 * becomes the automatic choice of every blob operation.
 *
 * @module
 */
import { registerBlobBackend } from '../../core/blob/backend.js';
import { nodeBlobBackend } from './node-backend.js';

registerBlobBackend(nodeBlobBackend);

export { nodeBlobBackend } from './node-backend.js';
