/**
 * The runtime object (`installRuntime`, `getRuntime`) and the types of its parts.
 *
 * @module
 */
export type { Base64Codec } from './base64-codec.js';
export type { ByteAllocator } from './byte-allocator.js';
export { getRuntime, installRuntime, type Runtime } from './runtime.js';
