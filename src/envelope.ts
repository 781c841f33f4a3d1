/**
 * happy-media/envelope: Happy's encrypted session values, for a relay or an app that seals and opens them
 * itself (`HappyClient` does it for its sessions): the session key of either variant, v2 messages in and
 * out of the `{ t: "encrypted", c }` envelope (one or many, synchronous or over an asynchronous AES-GCM),
 * the JSON and byte records underneath, data-key bundles, the key tree, and standard base64 (docs/encryption.md).
 *
 * Every export is listed by name; test/node/public-exports.test.ts pins the list.
 *
 * @packageDocumentation
 */
export { fromBase64, toBase64 } from './core/bytes.js';
export {
  type BoxKeyPair,
  boxDataKey,
  boxForPublicKey,
  contentKeyPair,
  contentSeed,
  createDataKey,
  type DerivedNode,
  dataKey,
  dataKeyCiphertextSize,
  decryptDataKey,
  decryptDataKeyAsync,
  decryptJson,
  decryptLegacy,
  deriveChild,
  deriveKey,
  deriveRoot,
  type EncryptedEnvelope,
  type EncryptOptions,
  type EnvelopeVariant,
  encryptDataKey,
  encryptDataKeyAsync,
  encryptJson,
  encryptLegacy,
  KEY_BYTES,
  legacyCiphertextSize,
  legacyKey,
  masterBlobKey,
  type OpenedMessage,
  openBoxForPublicKey,
  openDataKeyBundle,
  openMessage,
  openMessageAsync,
  openMessages,
  openMessagesAsync,
  openRaw,
  openRawAsync,
  PUBLIC_KEY_BYTES,
  type PublicKeyBoxOptions,
  parseEnvelope,
  type SessionKey,
  sealMessage,
  sealMessageAsync,
  sealMessages,
  sealRaw,
  sealRawAsync,
  sessionBlobKey,
  sessionKey,
} from './core/envelope/index.js';
