/**
 * The account's content keypair, which opens data-key bundles. Derived from the master secret exactly
 * as libsodium's `crypto_box_seed_keypair` does: secret = SHA-512(content seed)[0:32] (stored unclamped;
 * X25519 clamps when it multiplies), public = X25519(secret, base point).
 *
 * @module
 */
import { sha512 } from '@noble/hashes/sha2.js';
import { assertBytes } from '../bytes.js';
import { publicKeyOf } from './_nacl.js';
import { contentSeed } from './key-tree.js';
import { KEY_BYTES } from './layout.js';

/** An X25519 keypair. */
export interface BoxKeyPair {
  /** 32-byte public key. */
  publicKey: Uint8Array;
  /** 32-byte secret key. Never log it. */
  secretKey: Uint8Array;
}

/**
 * The X25519 keypair of a 32-byte seed, as libsodium's `crypto_box_seed_keypair`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless `seed` is 32 bytes.
 */
export function boxKeyPairFromSeed(seed: Uint8Array): BoxKeyPair {
  assertBytes(seed, 'seed', KEY_BYTES);
  const secretKey = sha512(seed).slice(0, KEY_BYTES);
  return { publicKey: publicKeyOf(secretKey), secretKey };
}

/**
 * The account's content keypair: `boxKeyPairFromSeed(contentSeed(master))`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless `master` is 32 bytes.
 * @example
 * ```ts
 * const { secretKey } = contentKeyPair(masterSecret);
 * const sessionDataKey = openDataKeyBundle(bundle, secretKey);
 * ```
 */
export function contentKeyPair(master: Uint8Array): BoxKeyPair {
  return boxKeyPairFromSeed(contentSeed(master));
}
