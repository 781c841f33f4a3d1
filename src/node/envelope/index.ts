/**
 * Node side of the envelope layer: the CLI's key sources (`--key`, `--key-file`, `HAPPY_MEDIA_KEY`), which
 * other Node tools can reuse. (Node's AES-GCM and base64 for envelopes are the runtime's:
 * `src/node/runtime/`.)
 *
 * @module
 */

export { decodeKey, KEY_ENV_VARIABLE, type KeyOptions, resolveKey } from './key-source.js';
