/**
 * The Cobblestone-256 format (C2SP chunked encryption with HKDF-SHA-512 and AES-256-GCM) as data: its
 * numbers, the context strings happy-media binds blobs with, the key schedule (HKDF-Expand into the AEAD
 * key, base nonce and key commitment), the header and the per-chunk nonce, and the options every blob
 * operation takes. Every path that encrypts or decrypts (the sequential engine, random access, the worker
 * threads) derives its keys, writes or opens its header and numbers its chunks here, so no two can
 * disagree. Layout, bytes and reasoning: docs/blob-format.md.
 *
 * @module
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { type AesGcm, assertAesGcm } from '../aes-gcm/aes-gcm.js';
import { assertBytes, assertNonNegativeInteger, concatBytes, equalBytes, utf8 } from '../bytes.js';
import { DecryptionError, InternalError, InvalidArgumentError, LimitError, StorageError } from '../errors.js';
import { parseRef } from '../protocol/refs.js';
import { getRuntime } from '../runtime/runtime.js';

// ---------------------------------------------------------------------------------------------------------
// The numbers. Every offset in the blob layer is computed from these; no other file repeats a literal.

/** Plaintext bytes per chunk. Every chunk but the last is exactly this long; the last is shorter (maybe empty). */
export const BLOB_CHUNK_SIZE = 16384;

/** Bytes of the AES-GCM authentication tag appended to every chunk. */
export const BLOB_TAG_SIZE = 16;

/** Bytes of the random salt at the start of every blob. */
export const BLOB_SALT_SIZE = 24;

/** Bytes of the key commitment that follows the salt. */
export const BLOB_COMMITMENT_SIZE = 32;

/** Bytes before the first chunk: salt (24) then commitment (32). */
export const BLOB_HEADER_SIZE = BLOB_SALT_SIZE + BLOB_COMMITMENT_SIZE;

/** Ciphertext bytes of one full chunk (plaintext plus tag). */
export const BLOB_SEALED_CHUNK_SIZE = BLOB_CHUNK_SIZE + BLOB_TAG_SIZE;

/** Bytes of the input key and of the derived AES-256 key. */
export const BLOB_KEY_SIZE = 32;

/** Bytes of the AES-GCM nonce (the base nonce and every per-chunk nonce). */
export const BLOB_NONCE_SIZE = 12;

/**
 * Chunk indexes must stay below 2^38 (C2SP's limit for 96-bit AES-GCM nonces with a 32-byte commitment
 * design). That is 4 PiB of plaintext: reaching it is a {@link LimitError}, not a wrap-around.
 */
export const BLOB_MAX_CHUNKS = 2 ** 38;

/** Bytes derived per message: AEAD key (32), base nonce (12), commitment (32). */
const BLOB_DERIVED_SIZE = BLOB_KEY_SIZE + BLOB_NONCE_SIZE + BLOB_COMMITMENT_SIZE;

/**
 * How many chunks one chunk-cipher call handles at most (1 MiB of plaintext). Bounds the memory of a batch and
 * the size of each piece the streams emit, whatever size the caller's pieces have.
 */
export const BLOB_BATCH_CHUNKS = 64;

// ---------------------------------------------------------------------------------------------------------
// The context strings. Cobblestone mixes the context into the key derivation, so a blob decrypts only
// under the context it was made with; anything else fails the commitment check before any chunk is opened.
// A v2 media blob is bound to its ref, so a store that serves another blob of the same key in place of the
// one a message names fails instead of playing the wrong content; nothing falls back to the unbound
// context: a caller names the context it means.

/** UTF-8 `happy-media blob v2`: the domain of every happy-media blob context (19 bytes). */
const CONTEXT_DOMAIN = utf8('happy-media blob v2');
/** Separates the domain from the ref: neither contains a NUL byte, so the encoding is unambiguous. */
const CONTEXT_SEPARATOR = new Uint8Array([0x00]);

/**
 * The context of the v2 media blob stored under `ref`: UTF-8 `happy-media blob v2`, a 0x00 byte, then
 * UTF-8 of the ref exactly as the message carries it (`media/<id>`). Encryption (the ref `create`
 * issued) and every decryption (the ref the message names) use it, so a blob served under another ref
 * does not decrypt. A fresh array each call.
 *
 * @throws {StorageError} `ERR_INVALID_REF` for anything but a `media/<id>` ref (a `machine-file://` ref
 *   names no stored blob).
 * @example
 * ```ts
 * const { ref } = await store.create(ciphertextSize(n), (ref) =>
 *   file.stream().pipeThrough(createEncryptStream(blobKey, { context: mediaBlobContext(ref) })));
 * const reader = await openBlobRandomAccess(storeRangeSource(store, ref), blobKey, { context: mediaBlobContext(ref) });
 * ```
 */
export function mediaBlobContext(ref: string): Uint8Array {
  return concatBytes(CONTEXT_DOMAIN, CONTEXT_SEPARATOR, boundRef(ref, 'blob'));
}

/** UTF-8 `happy-media manifest v2`: the domain of the manifest of media stored in parts (23 bytes). */
const MANIFEST_DOMAIN = utf8('happy-media manifest v2');
/** UTF-8 `happy-media parts v2`: the domain of the one blob whose bytes are spread across parts (20 bytes). */
const PARTS_DOMAIN = utf8('happy-media parts v2');

/** Bytes of the random binding id that ties the parts of one blob to its manifest. */
export const PARTS_BINDING_SIZE = 16;

/** The `media/<id>` ref checked, as {@link mediaBlobContext} checks it. */
function boundRef(ref: string, what: string): Uint8Array {
  const parsed = parseRef(ref);
  if (parsed.scheme !== 'media') {
    throw new StorageError(`invalid ref: only a "media/<id>" ref names a stored ${what} to bind to`, {
      code: 'ERR_INVALID_REF',
    });
  }
  return utf8(ref);
}

/**
 * The context of the manifest of media stored in parts, stored under `ref` (the message's ref): UTF-8
 * `happy-media manifest v2`, a 0x00 byte, then UTF-8 of the ref. The attachment under a message's ref is
 * either the media blob ({@link mediaBlobContext}) or this manifest; its key commitment says which
 * (docs/blob-format.md, "Media in parts"). A fresh array each call.
 *
 * @throws {StorageError} `ERR_INVALID_REF` for anything but a `media/<id>` ref.
 */
export function mediaManifestContext(ref: string): Uint8Array {
  return concatBytes(MANIFEST_DOMAIN, CONTEXT_SEPARATOR, boundRef(ref, 'manifest'));
}

/**
 * The context of the one blob whose bytes are spread across the parts a manifest names: UTF-8
 * `happy-media parts v2`, a 0x00 byte, then the manifest's 16-byte random binding id. Parts of any other
 * blob (another message, another session, another send of the same file) were made under another
 * binding id, so they fail at the header or at their first chunk. A fresh array each call.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `binding` is not 16 bytes.
 */
export function partsBlobContext(binding: Uint8Array): Uint8Array {
  assertBytes(binding, 'binding', PARTS_BINDING_SIZE);
  return concatBytes(PARTS_DOMAIN, CONTEXT_SEPARATOR, binding);
}

/**
 * The context of blobs bound to no ref: UTF-8 `happy-media blob v2` (19 bytes, hex
 * `68617070792d6d6564696120626c6f62207632`), the context of every v2 blob made before blobs were bound
 * to their refs and of the frozen vectors; `happy-media encrypt`/`decrypt` use it for a file without
 * `--ref`. Such a blob can be served in place of another by any store that holds both, so media in a
 * store use {@link mediaBlobContext}. A fresh array each call.
 *
 * @example
 * ```ts
 * const old = await decryptBlob(ciphertext, blobKey, { context: unboundBlobContext() });
 * ```
 */
export function unboundBlobContext(): Uint8Array {
  return CONTEXT_DOMAIN.slice();
}

// ---------------------------------------------------------------------------------------------------------
// The key schedule, the header and the chunk nonces. It runs once per blob, so the pure-JS HKDF costs
// nothing measurable, and every AES-GCM implementation shares it.

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

/** `c2sp.org/chunked-encryption@v1+` (C2SP's prefix), the IANA name of the AEAD, then a 0x00 byte. */
const INFO_HEAD = concatBytes(
  utf8('c2sp.org/chunked-encryption@v1+'),
  utf8('AEAD_AES_256_GCM'),
  new Uint8Array([0]),
);

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
    commitment: okm.slice(BLOB_KEY_SIZE + BLOB_NONCE_SIZE, BLOB_DERIVED_SIZE),
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

// ---------------------------------------------------------------------------------------------------------
// The options of every blob operation, validated in one place.

/** Options of every blob operation. */
export interface BlobOptions {
  /**
   * Context string bound into the key derivation; decrypting under another context fails. Required,
   * with no default, so no caller binds or reads a blob without saying to what: `mediaBlobContext(ref)`
   * for the media blob stored under `ref`, `unboundBlobContext()` for a blob bound to no ref (standalone
   * files, the frozen vectors, blobs made before binding), other bytes for other uses of the format.
   */
  context: Uint8Array;
  /**
   * The AES-256-GCM to seal and open chunks with, e.g. `nobleAesGcm` for a cross-check or a benchmark.
   * Default: the runtime's (`getRuntime().aesGcm`: node:crypto once `happy-media/node` is imported,
   * WebCrypto in a browser). Every implementation gives the same bytes.
   */
  aesGcm?: AesGcm;
  /**
   * Refuse plaintexts longer than this many bytes (`LimitError`, `ERR_LIMIT_EXCEEDED`). Checked while
   * streaming, so a hostile blob cannot make a decryptor produce more than this. Default: no limit
   * beyond the format's 2^38 chunks.
   */
  maxPlaintextBytes?: number;
}

/** Options after validation. */
export interface ResolvedBlobOptions {
  /** The context bytes (a private copy). */
  context: Uint8Array;
  /** The AES-256-GCM to use. */
  aesGcm: AesGcm;
  /** Plaintext limit in bytes (`Number.MAX_SAFE_INTEGER` when unset). */
  maxPlaintextBytes: number;
}

/**
 * Validates `options` and fills in the defaults.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a missing context or one that is not bytes,
 * an `aesGcm` that is not an AesGcm, or a limit that is not a non-negative integer.
 */
export function resolveBlobOptions(options: BlobOptions): ResolvedBlobOptions {
  if (options?.context === undefined) {
    throw new InvalidArgumentError(
      `expected the blob's context for \`options.context\` (mediaBlobContext(ref) for the media blob stored under ref, unboundBlobContext() for a blob bound to no ref) but received ${options === undefined ? 'no options' : 'none'}`,
    );
  }
  const context = assertBytes(options.context, 'context');
  const maxPlaintextBytes =
    options.maxPlaintextBytes === undefined
      ? Number.MAX_SAFE_INTEGER
      : assertNonNegativeInteger(options.maxPlaintextBytes, 'maxPlaintextBytes');
  const aesGcm = options.aesGcm === undefined ? getRuntime().aesGcm : assertAesGcm(options.aesGcm, 'aesGcm');
  // Copy the context: the caller may reuse its buffer while a stream is still running.
  return { context: context.slice(), aesGcm, maxPlaintextBytes };
}

/** Throws the limit error when `total` plaintext bytes exceed the configured maximum. */
export function checkPlaintextLimit(total: number, options: ResolvedBlobOptions): void {
  if (total > options.maxPlaintextBytes) {
    throw new LimitError(
      `the plaintext is longer than maxPlaintextBytes (${options.maxPlaintextBytes} bytes); raise the limit or refuse the blob`,
    );
  }
}
