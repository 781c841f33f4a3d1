/**
 * Node side of the envelope layer. Importing it installs the node:crypto AES-256-GCM for the dataKey
 * variant (same bytes as the universal @noble/ciphers one, faster). Also the CLI's key sources
 * (`--key`, `--key-file`, `HAPPY_MEDIA_KEY`), which other Node tools can reuse.
 *
 * @module
 */
import { setEnvelopeAesGcm } from '../../core/envelope/index.js';
import { nodeEnvelopeAesGcm } from './node-aes-gcm.js';

setEnvelopeAesGcm(nodeEnvelopeAesGcm);

export { decodeKey, KEY_ENV_VARIABLE, type KeyOptions, resolveKey } from './key-source.js';
export { nodeEnvelopeAesGcm } from './node-aes-gcm.js';
