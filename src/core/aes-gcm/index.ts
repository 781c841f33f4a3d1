/**
 * The AES-256-GCM seam (12-byte nonce, 16-byte tag appended, no AAD) that envelopes and blobs share, and
 * its universal implementations. One file per implementation:
 *
 * - `noble.ts`: pure JS, synchronous, everywhere (the universal fallback);
 * - `webcrypto.ts`: `crypto.subtle`, asynchronous;
 * - `cipher-module.ts`: node:crypto's Cipher API over a module the caller hands in (node:crypto in Node,
 *   react-native-quick-crypto in an app), synchronous;
 * - `expo-crypto.ts`: expo-crypto's AES (≥ 55: native in Happy's app, `crypto.subtle` on the web) over the
 *   module the app hands in, asynchronous (public through `happy-media/expo`).
 *
 * Which one runs is the runtime's choice (`installRuntime({ aesGcm })`, `src/core/runtime/`).
 *
 * @module
 */
export {
  AES_GCM_KEY_BYTES,
  AES_GCM_NONCE_BYTES,
  AES_GCM_TAG_BYTES,
  type AesGcm,
  type AsyncAesGcm,
  assertAesGcm,
  type SyncAesGcm,
} from './aes-gcm.js';
export {
  type CipherModule,
  type CipherModuleAesGcmOptions,
  cipherModuleAesGcm,
  type GcmCipherLike,
  type GcmDecipherLike,
} from './cipher-module.js';
export {
  type ExpoCryptoAes,
  type ExpoCryptoAesGcmOptions,
  type ExpoCryptoSealedData,
  expoCryptoAesGcm,
} from './expo-crypto.js';
export { nobleAesGcm } from './noble.js';
export { webCryptoAesGcm } from './webcrypto.js';
