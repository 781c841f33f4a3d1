/**
 * The one module that touches tweetnacl. It turns tweetnacl's `null` returns into {@link DecryptionError}
 * at once, so no caller ever sees a `null`, and it adds the all-zero shared-secret check that tweetnacl
 * leaves out (RFC 7748 §6.1).
 *
 * Internal: not exported from the package.
 *
 * @module
 */
import nacl from 'tweetnacl';
import { randomBytes } from '../bytes.js';
import { DecryptionError } from '../errors.js';

/** XSalsa20-Poly1305 seal: returns `tag 16 | ciphertext`. */
export function secretboxSeal(plaintext: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array {
  return nacl.secretbox(plaintext, nonce, key);
}

/**
 * XSalsa20-Poly1305 open.
 *
 * @throws {DecryptionError} when the tag does not verify.
 */
export function secretboxOpen(box: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array {
  const plaintext = nacl.secretbox.open(box, nonce, key);
  if (plaintext === null) throw new DecryptionError();
  return plaintext;
}

/**
 * The Ed25519 signing key pair of a 32-byte seed (libsodium's `crypto_sign_seed_keypair`, tweetnacl's
 * `sign.keyPair.fromSeed`): how Happy's app and CLI turn the account secret into the key that signs in.
 * The 64-byte secret key is `seed | public key`.
 */
export function signKeyPairFromSeed(seed: Uint8Array): { publicKey: Uint8Array; secretKey: Uint8Array } {
  return nacl.sign.keyPair.fromSeed(seed);
}

/** Ed25519 detached signature (64 bytes) of `message` by the 64-byte `secretKey`. */
export function signDetached(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  return nacl.sign.detached(message, secretKey);
}

/** X25519 public key of a (clamped or unclamped) 32-byte secret scalar. */
export function publicKeyOf(secretKey: Uint8Array): Uint8Array {
  return nacl.scalarMult.base(secretKey);
}

/**
 * A fresh random X25519 keypair. The secret comes from our `randomBytes` (WebCrypto), not from
 * tweetnacl's own PRNG lookup, which finds no source in some runtimes (React Native without `self`).
 */
export function randomKeyPair(): { publicKey: Uint8Array; secretKey: Uint8Array } {
  const secretKey = randomBytes(32);
  return { publicKey: nacl.scalarMult.base(secretKey), secretKey };
}

/**
 * X25519 shared secret, or `undefined` when it is all zero, which happens exactly when `publicKey` is a
 * low-order point (or a non-canonical encoding of one). Such a "shared" secret is known to everyone.
 */
export function sharedSecretOrUndefined(
  secretKey: Uint8Array,
  publicKey: Uint8Array,
): Uint8Array | undefined {
  const shared = nacl.scalarMult(secretKey, publicKey);
  let bits = 0;
  for (const byte of shared) bits |= byte;
  return bits === 0 ? undefined : shared;
}

/**
 * True when `publicKey` is the canonical encoding of a field element (little-endian value below
 * p = 2^255 - 19, so bit 255 clear). X25519 itself ignores bit 255 and reduces mod p, so without this
 * check 20 other encodings of some keys would work too; honest senders (scalarMult.base) never make them.
 */
export function isCanonicalPublicKey(publicKey: Uint8Array): boolean {
  const top = publicKey[31]!;
  if (top > 0x7f) return false;
  if (top < 0x7f) return true;
  for (let i = 30; i >= 1; i--) if (publicKey[i] !== 0xff) return true;
  return publicKey[0]! < 0xed;
}

/** crypto_box seal (X25519 + XSalsa20-Poly1305): returns `tag 16 | ciphertext`. */
export function boxSeal(
  plaintext: Uint8Array,
  nonce: Uint8Array,
  publicKey: Uint8Array,
  secretKey: Uint8Array,
): Uint8Array {
  return nacl.box(plaintext, nonce, publicKey, secretKey);
}

/**
 * crypto_box open.
 *
 * @throws {DecryptionError} when the tag does not verify.
 */
export function boxOpen(
  box: Uint8Array,
  nonce: Uint8Array,
  publicKey: Uint8Array,
  secretKey: Uint8Array,
): Uint8Array {
  const plaintext = nacl.box.open(box, nonce, publicKey, secretKey);
  if (plaintext === null) throw new DecryptionError();
  return plaintext;
}
