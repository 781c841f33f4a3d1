/**
 * Node's AES-256-GCM: the Cipher-API implementation ({@link cipherModuleAesGcm}) given node:crypto
 * (OpenSSL, AES-NI). Same bytes as the universal @noble/ciphers implementation, many times faster; the
 * same code runs over react-native-quick-crypto in an app. Synchronous, so the blob engine seals a batch
 * of chunks into one array with no promise per chunk, and envelopes stay synchronous.
 *
 * @module
 */
import * as nodeCrypto from 'node:crypto';
import type { SyncAesGcm } from '../../core/aes-gcm/aes-gcm.js';
import { cipherModuleAesGcm } from '../../core/aes-gcm/cipher-module.js';

/**
 * node:crypto AES-256-GCM (`name: 'node'`), part of `nodeRuntime`.
 *
 * @example
 * ```ts
 * await encryptBlob(bytes, blobKey, { aesGcm: nodeAesGcm }); // forced, e.g. in a benchmark
 * ```
 */
export const nodeAesGcm: SyncAesGcm<Uint8Array> = cipherModuleAesGcm(nodeCrypto, { name: 'node' });
