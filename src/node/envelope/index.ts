/**
 * Node-side helpers of the envelope layer (used by the CLI): where a key comes from (`--key`,
 * `--key-file`, `HAPPY_MEDIA_KEY`). The envelope formats themselves are universal and live in the core.
 *
 * @module
 */
export { decodeKey, KEY_ENV_VARIABLE, type KeyOptions, resolveKey } from './key-source.js';
