/**
 * Chunk-cipher backends and their registry.
 *
 * A backend turns a message's derived AEAD key and base nonce into a {@link ChunkCipher} that seals and
 * opens chunks by index. Everything else (key schedule, commitment, framing, final-chunk rules) lives in
 * the shared engine, so every backend produces byte-identical blobs. Calls take batches of consecutive
 * chunks so that an asynchronous backend (WebCrypto) can run them concurrently and a synchronous one
 * (node:crypto) pays no promise per chunk.
 *
 * @module
 */
import { BACKEND_NAME_PATTERN } from '../crypto/cipher-module.js';
import { InvalidArgumentError } from '../errors.js';
import { nobleBlobBackend } from './backend-noble.js';
import { webCryptoBlobBackend } from './backend-webcrypto.js';

/**
 * Names of the backends: `node` (node:crypto, registered by `happy-media/node`), `webcrypto`, `noble`, or
 * any name a caller registered (e.g. `quick-crypto` for react-native-quick-crypto).
 */
export type BlobBackendName = 'node' | 'webcrypto' | 'noble' | (string & {});

/**
 * Seals and opens the chunks of one message (one AEAD key, one base nonce).
 *
 * Implementations must derive chunk `i`'s nonce with {@link chunkNonceInto} (base nonce XOR big-endian
 * `i`), use an empty AAD and a 16-byte tag appended to the ciphertext.
 */
export interface ChunkCipher {
  /**
   * Seals consecutive chunks `first`, `first + 1`, ...; returns `ciphertext || tag` of each, concatenated
   * in order into one array (so the engine emits a batch without copying it again).
   * Returned arrays (here and in every method below) must not share memory with the inputs: the engines'
   * callers reuse their input buffers once a push settled.
   *
   * @throws {LimitError} when an index reaches 2^38.
   */
  seal(first: number, plaintexts: readonly Uint8Array[]): Uint8Array | Promise<Uint8Array>;
  /**
   * Optional: seals like {@link ChunkCipher.seal} but gives each chunk's `ciphertext || tag` as its own
   * array, in order (see {@link ChunkCipher.openChunks} for why).
   *
   * @throws {LimitError} when an index reaches 2^38.
   */
  sealChunks?(first: number, plaintexts: readonly Uint8Array[]): Uint8Array[] | Promise<Uint8Array[]>;
  /**
   * Opens consecutive chunks `first`, `first + 1`, ... (`ciphertext || tag` each); returns their
   * plaintexts concatenated in order, and only when every tag in the batch verified: never unverified
   * bytes.
   *
   * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when any tag fails.
   */
  open(first: number, sealed: readonly Uint8Array[]): Uint8Array | Promise<Uint8Array>;
  /**
   * Optional: opens like {@link ChunkCipher.open} but gives each chunk's plaintext as its own array, in
   * order, for a backend whose primitive already returns one fresh array per chunk (WebCrypto). The
   * streaming engine then emits (or copies into place) those arrays instead of a batch joined first:
   * joining costs a fresh allocation and a copy per batch, which in a browser was a quarter of the main
   * thread's time. Same guarantee as `open`: nothing unless every tag in the batch verified.
   *
   * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when any tag fails.
   */
  openChunks?(first: number, sealed: readonly Uint8Array[]): Uint8Array[] | Promise<Uint8Array[]>;
}

/** A way to build {@link ChunkCipher}s: node:crypto (or another module with its API), WebCrypto or pure JS. */
export interface BlobBackend {
  /** Registry name: letters, digits, `.`, `_`, `-` (1 to 64). */
  readonly name: BlobBackendName;
  /** Prepares the cipher of one message. `aeadKey` is 32 bytes, `baseNonce` 12 bytes. */
  createChunkCipher(aeadKey: Uint8Array, baseNonce: Uint8Array): ChunkCipher | Promise<ChunkCipher>;
}

const BUILT_IN = new Set<string>(['webcrypto', 'noble']);

const registry = new Map<BlobBackendName, BlobBackend>([
  [webCryptoBlobBackend.name, webCryptoBlobBackend],
  [nobleBlobBackend.name, nobleBlobBackend],
]);

/** The backend the automatic choice prefers: the last native one registered. */
let preferred: BlobBackend | undefined;

/** Options of {@link registerBlobBackend}. */
export interface RegisterBlobBackendOptions {
  /**
   * Make it the automatic choice of every blob operation (default true, except for a backend that
   * replaces `webcrypto` or `noble`, which keep their place in the automatic order).
   */
  preferred?: boolean;
}

/**
 * Registers (or replaces) a backend under its name. The last one registered becomes the automatic choice
 * (unless `preferred: false`); `happy-media/node` registers `node` (node:crypto) on import.
 *
 * @throws {InvalidArgumentError} when `backend` has no valid name or no `createChunkCipher()`.
 * @example
 * ```ts
 * // React Native: native AES-GCM through react-native-quick-crypto (JSI)
 * import QuickCrypto from 'react-native-quick-crypto';
 * registerBlobBackend(cipherModuleBlobBackend(QuickCrypto, { name: 'quick-crypto' }));
 * ```
 */
export function registerBlobBackend(backend: BlobBackend, options: RegisterBlobBackendOptions = {}): void {
  if (
    typeof backend !== 'object' ||
    backend === null ||
    typeof backend.name !== 'string' ||
    !BACKEND_NAME_PATTERN.test(backend.name) ||
    typeof backend.createChunkCipher !== 'function'
  ) {
    throw new InvalidArgumentError(
      'expected a BlobBackend with a name of 1 to 64 letters, digits, ".", "_" or "-" and createChunkCipher() for `backend`',
    );
  }
  registry.set(backend.name, backend);
  if (preferred?.name === backend.name) preferred = undefined;
  if (options.preferred ?? !BUILT_IN.has(backend.name)) preferred = backend;
}

/** True when this runtime has WebCrypto's `crypto.subtle` (browsers, Node; not bare React Native). */
function hasSubtle(): boolean {
  return typeof globalThis.crypto?.subtle?.encrypt === 'function';
}

/**
 * Returns the backend called `name`, or the best one for this runtime: the last native backend
 * registered (`node` after importing `happy-media/node`; a react-native-quick-crypto backend an app
 * registered), else `webcrypto` when `crypto.subtle` exists, else `noble` (pure JS).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `name` is unknown, not registered in this
 * runtime (`node` without `happy-media/node`), or `webcrypto` where `crypto.subtle` is missing.
 * @example
 * ```ts
 * const backend = getBlobBackend();          // automatic choice
 * const pureJs = getBlobBackend('noble');    // forced, e.g. for a cross-check
 * ```
 */
export function getBlobBackend(name?: BlobBackendName): BlobBackend {
  if (name === undefined) {
    if (preferred) return preferred;
    return (hasSubtle() ? registry.get('webcrypto') : undefined) ?? nobleBlobBackend;
  }
  const backend = registry.get(name);
  if (backend === undefined || (name === 'webcrypto' && !hasSubtle())) {
    throw new InvalidArgumentError(
      `expected an available blob backend for \`backend\` but received ${JSON.stringify(name)}` +
        (name === 'node' ? ": import 'happy-media/node' to register it" : ''),
    );
  }
  return backend;
}
