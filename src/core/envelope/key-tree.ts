/**
 * Happy's key tree: BIP32-like derivation with HMAC-SHA512 and string path segments, and the keys it
 * names.
 *
 * ```
 * root(seed, usage):  I = HMAC-SHA512(key = UTF-8(usage + " Master Seed"), data = seed)
 * child(chainCode, s): I = HMAC-SHA512(key = chainCode, data = 0x00 || UTF-8(s))
 * key = I[0:32], chainCode = I[32:64]
 * ```
 * The named derivations of the table in docs/encryption.md are functions here, so no caller spells a
 * usage string. One of them seeds the account's content keypair, which opens data-key bundles: derived
 * exactly as libsodium's `crypto_box_seed_keypair` does, secret = SHA-512(content seed)[0:32] (stored
 * unclamped; X25519 clamps when it multiplies), public = X25519(secret, base point).
 *
 * @module
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { assertBytes, describeValue, utf8 } from '../bytes.js';
import { InvalidArgumentError } from '../errors.js';
import { publicKeyOf } from './_nacl.js';
import { KEY_BYTES } from './layout.js';

/** One node of the key tree. */
export interface DerivedNode {
  /** The 32-byte key of this node. */
  key: Uint8Array;
  /** The 32-byte chain code that derives its children. */
  chainCode: Uint8Array;
}

function split(digest: Uint8Array): DerivedNode {
  return { key: digest.slice(0, KEY_BYTES), chainCode: digest.slice(KEY_BYTES, 2 * KEY_BYTES) };
}

function assertText(value: unknown, name: string): string {
  if (typeof value !== 'string') {
    throw new InvalidArgumentError(`expected a string for \`${name}\` but received ${describeValue(value)}`);
  }
  return value;
}

/**
 * The root node for `seed` and `usage`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `seed` is not bytes or `usage` not a string.
 * @example
 * ```ts
 * deriveRoot(utf8('test seed'), 'test usage').key; // E6E556... (Happy's test vector)
 * ```
 */
export function deriveRoot(seed: Uint8Array, usage: string): DerivedNode {
  assertBytes(seed, 'seed');
  assertText(usage, 'usage');
  return split(hmac(sha512, utf8(`${usage} Master Seed`), seed));
}

/**
 * The child of a node named by the path segment `index`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `chainCode` is not 32 bytes or `index` not a string.
 */
export function deriveChild(chainCode: Uint8Array, index: string): DerivedNode {
  assertBytes(chainCode, 'chainCode', KEY_BYTES);
  const segment = utf8(assertText(index, 'index'));
  const data = new Uint8Array(1 + segment.length);
  data[0] = 0x00;
  data.set(segment, 1);
  return split(hmac(sha512, chainCode, data));
}

/**
 * The 32-byte key at `path` below the root of (`seed`, `usage`).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `seed` is not bytes, `usage` not a string
 * or `path` not an array of strings.
 * @example
 * ```ts
 * const blobKey = deriveKey(master, 'Happy Blobs', ['master']);
 * ```
 */
export function deriveKey(seed: Uint8Array, usage: string, path: readonly string[]): Uint8Array {
  if (!Array.isArray(path)) {
    throw new InvalidArgumentError(
      `expected an array of strings for \`path\` but received ${describeValue(path)}`,
    );
  }
  let node = deriveRoot(seed, usage);
  for (const [i, segment] of path.entries()) {
    node = deriveChild(node.chainCode, assertText(segment, `path[${i}]`));
  }
  return node.key;
}

/**
 * The key of v1 attachments of legacy sessions: `deriveKey(master, "Happy Blobs", ["master"])`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless `master` is 32 bytes.
 */
export function masterBlobKey(master: Uint8Array): Uint8Array {
  return deriveKey(assertBytes(master, 'master', KEY_BYTES), 'Happy Blobs', ['master']);
}

/**
 * The key of attachments of a dataKey session: `deriveKey(dataKey, "Happy Blobs", ["session"])`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless `dataKey` is 32 bytes.
 */
export function sessionBlobKey(dataKey: Uint8Array): Uint8Array {
  return deriveKey(assertBytes(dataKey, 'dataKey', KEY_BYTES), 'Happy Blobs', ['session']);
}

/**
 * The seed of the account's content keypair: `deriveKey(master, "Happy EnCoder", ["content"])`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` unless `master` is 32 bytes.
 */
export function contentSeed(master: Uint8Array): Uint8Array {
  return deriveKey(assertBytes(master, 'master', KEY_BYTES), 'Happy EnCoder', ['content']);
}

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
