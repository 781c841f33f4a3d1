/**
 * Node's runtime, installed on import: node:crypto AES-256-GCM, Node's native base64 and `Buffer`-pool
 * arrays (each the same bytes as the universal part it replaces). This module is the one place that
 * installs it; `happy-media/node` and the Node playback area import it first.
 *
 * @module
 */
import { installRuntime, type Runtime } from '../../core/runtime/runtime.js';
import { nodeAesGcm } from './node-aes-gcm.js';
import { nodeBase64Codec } from './node-base64.js';
import { nodeByteAllocator } from './node-byte-allocator.js';

/**
 * The runtime `happy-media/node` installs on import. Install it again after trying another one.
 *
 * @example
 * ```ts
 * installRuntime({ aesGcm: nobleAesGcm }); // pure JS for a cross-check
 * // ...
 * installRuntime(nodeRuntime);
 * ```
 */
export const nodeRuntime: Runtime = Object.freeze({
  aesGcm: nodeAesGcm,
  base64: nodeBase64Codec,
  alloc: nodeByteAllocator,
});

installRuntime(nodeRuntime);

export { nodeAesGcm } from './node-aes-gcm.js';
