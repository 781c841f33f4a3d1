/**
 * NaCl's XSalsa20-Poly1305 formats: the legacy record (whose secretbox record Happy's v1 attachment blob
 * shares, under another key: src/core/happy/v1-blob.ts), and the box sealed for an X25519 public key.
 *
 * ```
 * legacy record      [ nonce 24 | tag 16 | ciphertext n ]                                 overhead 40
 * v1 attachment blob [ nonce 24 | tag 16 | ciphertext n ]                                 overhead 40
 * public-key box     [ ephemeral public key 32 | nonce 24 | tag 16 | ciphertext n ]       overhead 72
 * ```
 *
 * **Legacy records** are the variant of sessions that only have the account master secret: NaCl secretbox
 * under that secret, with no version byte (a legacy record is recognised by its session having no data
 * key).
 *
 * **The public-key box** seals bytes for an X25519 public key with a fresh ephemeral keypair (Happy's
 * `libsodiumEncryptForPublicKey`; crypto_box = X25519 + XSalsa20-Poly1305). Low-order public keys:
 * tweetnacl computes X25519 with any 32 bytes, and for a low-order point (or a non-canonical encoding of
 * one) the shared secret is all zero, i.e. known to everybody. We check it (RFC 7748 §6.1): sealing for
 * such a recipient key is an {@link InvalidArgumentError}, and opening a box whose ephemeral key is such a
 * point is a {@link DecryptionError} (anyone could have made that box, so it is not authentic).
 * Non-canonical ephemeral keys (bit 255 set, or a value of at least 2^255 - 19) are likewise not authentic
 * when opening: X25519 ignores bit 255, so without this check flipping that bit would leave a box that
 * still opens. Honest senders never produce them. A non-canonical *recipient* key is accepted when
 * sealing, as RFC 7748 §5 asks, since it comes from our own side.
 *
 * @module
 */
import { assertBytes, randomBytes } from '../bytes.js';
import { DecryptionError, FormatError, InvalidArgumentError } from '../errors.js';
import {
  boxOpen,
  boxSeal,
  isCanonicalPublicKey,
  publicKeyOf,
  randomKeyPair,
  secretboxOpen,
  secretboxSeal,
  sharedSecretOrUndefined,
} from './_nacl.js';
import {
  KEY_BYTES,
  LEGACY_OVERHEAD_BYTES,
  PUBLIC_KEY_BOX_OVERHEAD_BYTES,
  PUBLIC_KEY_BYTES,
  SECRETBOX_NONCE_BYTES,
} from './layout.js';
import { type EncryptOptions, randomNonce } from './nonce.js';

/**
 * The `[ nonce 24 | secretbox(plaintext) ]` record of both legacy records and Happy's v1 attachment blobs
 * (src/core/happy/v1-blob.ts): seals `plaintext` under `key` with `nonce` (random when omitted).
 */
export function sealSecretboxRecord(
  plaintext: Uint8Array,
  key: Uint8Array,
  keyName: string,
  nonce: Uint8Array | undefined,
): Uint8Array {
  assertBytes(plaintext, 'plaintext');
  assertBytes(key, keyName, KEY_BYTES);
  const usedNonce =
    nonce === undefined
      ? randomNonce(SECRETBOX_NONCE_BYTES)
      : assertBytes(nonce, 'nonce', SECRETBOX_NONCE_BYTES);
  const box = secretboxSeal(plaintext, usedNonce, key);
  const out = new Uint8Array(SECRETBOX_NONCE_BYTES + box.length);
  out.set(usedNonce, 0);
  out.set(box, SECRETBOX_NONCE_BYTES);
  return out;
}

/**
 * Opens a `[ nonce 24 | secretbox(plaintext) ]` record; nothing is returned unless it authenticates.
 *
 * @throws {FormatError} `ERR_FORMAT` when shorter than nonce + tag (40 bytes).
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when it does not authenticate under `key`.
 */
export function openSecretboxRecord(
  record: Uint8Array,
  key: Uint8Array,
  keyName: string,
  recordName: string,
  layoutName: string,
): Uint8Array {
  assertBytes(record, recordName);
  assertBytes(key, keyName, KEY_BYTES);
  if (record.length < LEGACY_OVERHEAD_BYTES) {
    throw new FormatError(
      `expected at least ${LEGACY_OVERHEAD_BYTES} bytes for \`${recordName}\` (${layoutName}: nonce 24 | tag 16 | ciphertext) but received ${record.length} bytes`,
    );
  }
  return secretboxOpen(
    record.subarray(SECRETBOX_NONCE_BYTES),
    record.subarray(0, SECRETBOX_NONCE_BYTES),
    key,
  );
}

/**
 * Encrypts raw bytes in the legacy layout.
 *
 * @param plaintext - the bytes to seal (Happy seals `UTF-8(JSON.stringify(value))`; see {@link encryptJson}).
 * @param secret - the 32-byte account master secret.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `secret` is not 32 bytes or `nonce` not 24.
 * @example
 * ```ts
 * const record = encryptLegacy(utf8('{"hello":"world"}'), masterSecret);
 * record.length; // 17 + 40
 * ```
 */
export function encryptLegacy(
  plaintext: Uint8Array,
  secret: Uint8Array,
  options: EncryptOptions = {},
): Uint8Array {
  return sealSecretboxRecord(plaintext, secret, 'secret', options.nonce);
}

/**
 * Decrypts a legacy record. Returns the plaintext only if the whole record authenticates.
 *
 * @throws {FormatError} `ERR_FORMAT` when shorter than 40 bytes.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or any modification.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `secret` is not 32 bytes.
 */
export function decryptLegacy(bytes: Uint8Array, secret: Uint8Array): Uint8Array {
  return openSecretboxRecord(bytes, secret, 'secret', 'bytes', 'legacy layout');
}

/** Options of {@link boxForPublicKey}; fixed values are for test vectors only. */
export interface PublicKeyBoxOptions {
  /** The ephemeral X25519 secret key (random when omitted). Never reuse one. */
  ephemeralSecretKey?: Uint8Array;
  /** The 24-byte nonce (random when omitted). */
  nonce?: Uint8Array;
}

/**
 * Seals `plaintext` so that only the holder of the secret key of `recipientPublicKey` can open it.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when a key or nonce has the wrong length, or
 * `recipientPublicKey` is a low-order point (the shared secret would be all zero).
 * @example
 * ```ts
 * const sealed = boxForPublicKey(bytes, contentKeyPair(master).publicKey);
 * ```
 */
export function boxForPublicKey(
  plaintext: Uint8Array,
  recipientPublicKey: Uint8Array,
  options: PublicKeyBoxOptions = {},
): Uint8Array {
  assertBytes(plaintext, 'plaintext');
  assertBytes(recipientPublicKey, 'recipientPublicKey', PUBLIC_KEY_BYTES);
  const ephemeral =
    options.ephemeralSecretKey === undefined
      ? randomKeyPair()
      : {
          secretKey: assertBytes(options.ephemeralSecretKey, 'ephemeralSecretKey', KEY_BYTES),
          publicKey: publicKeyOf(options.ephemeralSecretKey),
        };
  const nonce =
    options.nonce === undefined
      ? randomBytes(SECRETBOX_NONCE_BYTES)
      : assertBytes(options.nonce, 'nonce', SECRETBOX_NONCE_BYTES);
  if (sharedSecretOrUndefined(ephemeral.secretKey, recipientPublicKey) === undefined) {
    throw new InvalidArgumentError(
      'expected a valid X25519 public key for `recipientPublicKey` but received a low-order point (the shared secret would be all zero); check where this key came from',
    );
  }
  const box = boxSeal(plaintext, nonce, recipientPublicKey, ephemeral.secretKey);
  const out = new Uint8Array(PUBLIC_KEY_BYTES + SECRETBOX_NONCE_BYTES + box.length);
  out.set(ephemeral.publicKey, 0);
  out.set(nonce, PUBLIC_KEY_BYTES);
  out.set(box, PUBLIC_KEY_BYTES + SECRETBOX_NONCE_BYTES);
  return out;
}

/**
 * Opens a box made by {@link boxForPublicKey}. Returns the plaintext only if it authenticates.
 *
 * @throws {FormatError} `ERR_FORMAT` when shorter than 72 bytes (public key, nonce, tag).
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key, any modification, or a low-order
 * or non-canonical ephemeral public key.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `recipientSecretKey` is not 32 bytes.
 */
export function openBoxForPublicKey(sealed: Uint8Array, recipientSecretKey: Uint8Array): Uint8Array {
  assertBytes(sealed, 'sealed');
  assertBytes(recipientSecretKey, 'recipientSecretKey', KEY_BYTES);
  if (sealed.length < PUBLIC_KEY_BOX_OVERHEAD_BYTES) {
    throw new FormatError(
      `expected at least ${PUBLIC_KEY_BOX_OVERHEAD_BYTES} bytes for \`sealed\` (ephemeral public key 32 | nonce 24 | tag 16 | ciphertext) but received ${sealed.length} bytes`,
    );
  }
  const ephemeralPublicKey = sealed.subarray(0, PUBLIC_KEY_BYTES);
  if (
    !isCanonicalPublicKey(ephemeralPublicKey) ||
    sharedSecretOrUndefined(recipientSecretKey, ephemeralPublicKey) === undefined
  ) {
    throw new DecryptionError();
  }
  return boxOpen(
    sealed.subarray(PUBLIC_KEY_BYTES + SECRETBOX_NONCE_BYTES),
    sealed.subarray(PUBLIC_KEY_BYTES, PUBLIC_KEY_BYTES + SECRETBOX_NONCE_BYTES),
    ephemeralPublicKey,
    recipientSecretKey,
  );
}
