/**
 * AES-256-GCM in pure JavaScript over @noble/ciphers: runs everywhere (browsers, Node, Hermes without a
 * native module), synchronously; orders of magnitude slower than a native cipher, too slow for video
 * under Hermes (docs/playback.md). The universal fallback: the synchronous envelope API uses it whenever the installed cipher is
 * asynchronous.
 *
 * @module
 */
import { gcm } from '@noble/ciphers/aes.js';
import { DecryptionError } from '../errors.js';
import type { SyncAesGcm } from './aes-gcm.js';

/**
 * The pure-JS AES-256-GCM (`name: 'noble'`, synchronous). noble takes the raw key in every call, so the
 * prepared key is the key's bytes themselves.
 *
 * @example
 * ```ts
 * installRuntime({ aesGcm: nobleAesGcm }); // force pure JS, e.g. for a cross-check
 * ```
 */
export const nobleAesGcm: SyncAesGcm<Uint8Array> = Object.freeze({
  name: 'noble',
  mode: 'sync',
  importKey: (key: Uint8Array) => key,
  seal: (key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array) => gcm(key, nonce).encrypt(plaintext),
  open(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array) {
    try {
      return gcm(key, nonce).decrypt(sealed);
    } catch {
      // noble's error is dropped on purpose: every authentication failure is the same error.
      throw new DecryptionError();
    }
  },
} as const);
