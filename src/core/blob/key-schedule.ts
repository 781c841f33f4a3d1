/**
 * Per-message key schedule: HKDF-Expand-SHA-512 of the input key into the AEAD key, the base nonce and
 * the key commitment, and the per-chunk nonce. Shared by every AES-GCM implementation (it runs once per
 * blob, so the pure-JS HKDF costs nothing measurable) so the implementations cannot disagree on it.
 *
 * @module
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { assertBytes, concatBytes, equalBytes, utf8 } from '../bytes.js';
import { DecryptionError, InternalError, LimitError } from '../errors.js';
import {
  BLOB_AEAD_NAME,
  BLOB_COMMITMENT_SIZE,
  BLOB_DERIVED_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_INFO_PREFIX,
  BLOB_KEY_SIZE,
  BLOB_MAX_CHUNKS,
  BLOB_NONCE_SIZE,
  BLOB_SALT_SIZE,
} from './constants.js';

/** What one message's key schedule yields. */
export interface BlobKeys {
  /** AES-256-GCM key of every chunk. */
  aeadKey: Uint8Array;
  /** Nonce of chunk 0; chunk i uses `baseNonce XOR be96(i)`. */
  baseNonce: Uint8Array;
  /** Key commitment stored after the salt. */
  commitment: Uint8Array;
}

/**
 * HKDF-Expand (RFC 5869 §2.3) over @noble/hashes HMAC-SHA-512: `T(n) = HMAC(prk, T(n-1) || info || n)`.
 *
 * Why not noble's own `expand`: since @noble/hashes 2 it refuses a PRK shorter than HashLen (64 bytes for
 * SHA-512), following the RFC's recommendation, while C2SP feeds the 32-byte input key straight in as
 * the PRK. HMAC is defined for any key length, so the construction below (two HMAC calls for our 76
 * bytes) is exactly RFC 5869 Expand; the tests check it against noble's `expand` and Wycheproof's
 * HKDF-SHA-512 vectors for long PRKs, and against the Cobblestone vectors for 32-byte ones.
 */
export function hkdfExpandSha512(prk: Uint8Array, info: Uint8Array, length: number): Uint8Array {
  const hashLength = sha512.outputLen;
  if (!Number.isSafeInteger(length) || length < 0 || length > 255 * hashLength) {
    throw new InternalError(`HKDF-Expand-SHA-512 yields 0 to ${255 * hashLength} bytes, not ${length}`);
  }
  const okm = new Uint8Array(length);
  let previous = new Uint8Array(0);
  for (let counter = 1, at = 0; at < length; counter++) {
    previous = hmac(sha512, prk, concatBytes(previous, info, new Uint8Array([counter])));
    okm.set(previous.subarray(0, Math.min(hashLength, length - at)), at);
    at += hashLength;
  }
  previous.fill(0);
  return okm;
}

const INFO_HEAD = concatBytes(utf8(BLOB_INFO_PREFIX), utf8(BLOB_AEAD_NAME), new Uint8Array([0]));

/**
 * Derives the AEAD key, base nonce and commitment of one message.
 *
 * `HKDF-Expand-SHA-512(prk = key, info = "c2sp.org/chunked-encryption@v1+AEAD_AES_256_GCM" || 0x00 ||
 * salt || context, 76)`; there is deliberately no HKDF-Extract step (the input key is already uniform),
 * which is why neither `node:crypto.hkdf` nor WebCrypto HKDF can be used: both always extract.
 *
 * @throws {InvalidArgumentError} when `key` is not 32 bytes or `salt` not 24 bytes.
 */
export function deriveBlobKeys(key: Uint8Array, salt: Uint8Array, context: Uint8Array): BlobKeys {
  assertBytes(key, 'key', BLOB_KEY_SIZE);
  assertBytes(salt, 'salt', BLOB_SALT_SIZE);
  assertBytes(context, 'context');
  const okm = hkdfExpandSha512(key, concatBytes(INFO_HEAD, salt, context), BLOB_DERIVED_SIZE);
  return {
    aeadKey: okm.slice(0, BLOB_KEY_SIZE),
    baseNonce: okm.slice(BLOB_KEY_SIZE, BLOB_KEY_SIZE + BLOB_NONCE_SIZE),
    commitment: okm.slice(
      BLOB_KEY_SIZE + BLOB_NONCE_SIZE,
      BLOB_KEY_SIZE + BLOB_NONCE_SIZE + BLOB_COMMITMENT_SIZE,
    ),
  };
}

/**
 * The 56-byte header of a new blob: its salt, then the commitment of the keys derived from it. Every
 * encrypting path writes its header with this (the sequential engine and the worker threads).
 */
export function blobHeader(salt: Uint8Array, keys: BlobKeys): Uint8Array {
  const header = new Uint8Array(BLOB_HEADER_SIZE);
  header.set(salt, 0);
  header.set(keys.commitment, BLOB_SALT_SIZE);
  return header;
}

/**
 * The keys of a blob, from its 56-byte header: derived from the header's salt with `key` and `context`,
 * and accepted only when the header's commitment matches them (constant time), before any chunk is
 * opened. Every decrypting path opens its header with this (the sequential engine, random access, the
 * worker threads).
 *
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when the commitment differs (wrong key, wrong context,
 *   modified salt or commitment): the same error as every other authentication failure. The derived AEAD
 *   key is wiped first.
 */
export function openBlobHeader(key: Uint8Array, header: Uint8Array, context: Uint8Array): BlobKeys {
  const keys = deriveBlobKeys(key, header.subarray(0, BLOB_SALT_SIZE), context);
  if (header.length !== BLOB_HEADER_SIZE || !equalBytes(header.subarray(BLOB_SALT_SIZE), keys.commitment)) {
    keys.aeadKey.fill(0);
    throw new DecryptionError();
  }
  return keys;
}

/**
 * Writes the nonce of chunk `index` into `out` (12 bytes): the base nonce XOR the big-endian 96-bit
 * encoding of `index`. Reusing `out` avoids an allocation per chunk on the hot path.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when `index` reaches 2^38.
 */
export function chunkNonceInto(baseNonce: Uint8Array, index: number, out: Uint8Array): Uint8Array {
  if (!Number.isSafeInteger(index) || index < 0 || index >= BLOB_MAX_CHUNKS) {
    throw new LimitError(`chunk index ${index} is past the 2^38-chunk limit of a blob`);
  }
  out.set(baseNonce);
  // index < 2^38, so it spans the low 5 bytes; split it into a high and a low 32-bit word.
  const low = index >>> 0;
  const high = Math.floor(index / 0x1_0000_0000);
  out[4] = (out[4] as number) ^ (high >>> 24);
  out[5] = (out[5] as number) ^ ((high >>> 16) & 0xff);
  out[6] = (out[6] as number) ^ ((high >>> 8) & 0xff);
  out[7] = (out[7] as number) ^ (high & 0xff);
  out[8] = (out[8] as number) ^ (low >>> 24);
  out[9] = (out[9] as number) ^ ((low >>> 16) & 0xff);
  out[10] = (out[10] as number) ^ ((low >>> 8) & 0xff);
  out[11] = (out[11] as number) ^ (low & 0xff);
  return out;
}

/** The nonce of chunk `index` as a new array. @throws {LimitError} past 2^38 chunks. */
export function chunkNonce(baseNonce: Uint8Array, index: number): Uint8Array {
  return chunkNonceInto(baseNonce, index, new Uint8Array(BLOB_NONCE_SIZE));
}
