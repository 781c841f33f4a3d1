/**
 * Public surface of the envelope layer: Happy's encrypted records (legacy secretbox and dataKey
 * AES-256-GCM), the `{ t: "encrypted", c }` envelope, data-key bundles and the key tree. Layouts,
 * error codes and which key opens what: docs/encryption.md.
 *
 * @module
 */

export {
  boxDataKey,
  createDataKey,
  decryptDataKey,
  decryptDataKeyAsync,
  encryptDataKey,
  encryptDataKeyAsync,
  openDataKeyBundle,
} from './data-key.js';
export {
  assertSessionKey,
  dataKey,
  decryptJson,
  type EncryptedEnvelope,
  type EnvelopeVariant,
  encryptJson,
  legacyKey,
  openRaw,
  openRawAsync,
  parseEnvelope,
  type SessionKey,
  sealRaw,
  sealRawAsync,
  sessionKey,
} from './envelope.js';
export {
  type BoxKeyPair,
  boxKeyPairFromSeed,
  contentKeyPair,
  contentSeed,
  type DerivedNode,
  deriveChild,
  deriveKey,
  deriveRoot,
  masterBlobKey,
  sessionBlobKey,
} from './key-tree.js';
export {
  DATA_KEY_BUNDLE_BYTES,
  DATA_KEY_FORMAT_VERSION,
  DATA_KEY_NONCE_BYTES,
  DATA_KEY_OVERHEAD_BYTES,
  DATA_KEY_TAG_BYTES,
  dataKeyCiphertextSize,
  KEY_BYTES,
  LEGACY_OVERHEAD_BYTES,
  legacyCiphertextSize,
  PUBLIC_KEY_BOX_OVERHEAD_BYTES,
  PUBLIC_KEY_BYTES,
  SECRETBOX_NONCE_BYTES,
  SECRETBOX_TAG_BYTES,
} from './layout.js';
export {
  type OpenedMessage,
  openMessage,
  openMessageAsync,
  openMessages,
  openMessagesAsync,
  sealMessage,
  sealMessageAsync,
  sealMessages,
} from './messages.js';
export type { EncryptOptions } from './nonce.js';
export {
  boxForPublicKey,
  decryptLegacy,
  encryptLegacy,
  openBoxForPublicKey,
  type PublicKeyBoxOptions,
} from './secretbox.js';
