/**
 * The `node` backend: the Cipher-API backend ({@link cipherModuleBlobBackend}) given node:crypto
 * (OpenSSL, AES-NI). One implementation serves node:crypto here and react-native-quick-crypto in an app.
 *
 * GCM cannot restart a cipher with a new nonce, so each chunk costs a `createCipheriv` (and `update`,
 * `final`, `getAuthTag` allocate per chunk). That per-chunk floor is 0.54–0.63 of one streaming cipher on
 * cache-resident data and above it on large data; a worker thread sharing each batch measured slower on
 * this loaded 2-core machine (docs/blob-format.md, "Streaming encrypt against one cipher").
 *
 * @module
 */
import * as nodeCrypto from 'node:crypto';
import type { BlobBackend } from '../../core/blob/backend.js';
import { cipherModuleBlobBackend } from '../../core/blob/backend-cipher-module.js';

/**
 * A plain `Uint8Array` of `size` bytes over its own `ArrayBuffer`, not zero-filled: the batch output is
 * written in full before anyone sees it, so zeroing it first is wasted work (a megabyte per batch). Its own
 * buffer (not Node's shared pool) so a consumer that keeps or transfers `.buffer` sees nothing else; a plain
 * `Uint8Array` (not a `Buffer`) so `.slice()` copies as callers expect.
 */
function uninitialisedBytes(size: number): Uint8Array {
  const buffer = Buffer.allocUnsafeSlow(size);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

/**
 * The node:crypto backend. `happy-media/node` registers it on import, which makes it the automatic
 * choice in Node.
 *
 * @example
 * ```ts
 * import { encryptBlob } from 'happy-media/node'; // node backend registered
 * await encryptBlob(bytes, key, { backend: 'node' });
 * ```
 */
export const nodeBlobBackend: BlobBackend = cipherModuleBlobBackend(nodeCrypto, {
  name: 'node',
  allocate: uninitialisedBytes,
});
