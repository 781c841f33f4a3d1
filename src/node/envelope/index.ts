/**
 * Node side of the envelope layer. Importing it installs the node:crypto AES-256-GCM for the dataKey
 * variant (same bytes as the universal @noble/ciphers one, faster) and Node's native base64 codec (same
 * texts as @scure/base, strict too) and pooled scratch arrays for the bytes an envelope seal or open
 * drops before returning. Also the CLI's key sources
 * (`--key`, `--key-file`, `HAPPY_MEDIA_KEY`), which other Node tools can reuse.
 *
 * @module
 */
import { setBase64Codec } from '../../core/base64-codec.js';
import { setEnvelopeAesGcm } from '../../core/envelope/index.js';
import { setScratchBytes } from '../../core/scratch-bytes.js';
import { nodeEnvelopeAesGcm } from './node-aes-gcm.js';
import { nodeBase64Codec } from './node-base64.js';
import { nodeScratchBytes } from './node-scratch-bytes.js';

setEnvelopeAesGcm(nodeEnvelopeAesGcm);
setBase64Codec(nodeBase64Codec);
setScratchBytes(nodeScratchBytes);

export { decodeKey, KEY_ENV_VARIABLE, type KeyOptions, resolveKey } from './key-source.js';
export { nodeEnvelopeAesGcm } from './node-aes-gcm.js';
export { nodeBase64Codec } from './node-base64.js';
