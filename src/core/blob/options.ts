/**
 * Options shared by every blob operation, and their validation in one place.
 *
 * @module
 */
import { assertBytes, assertNonNegativeInteger } from '../bytes.js';
import { LimitError } from '../errors.js';
import { type BlobBackend, type BlobBackendName, getBlobBackend } from './backend.js';
import { DEFAULT_BLOB_CONTEXT } from './constants.js';

/** Options of every blob operation. */
export interface BlobOptions {
  /**
   * Context string bound into the key derivation. Defaults to `HAPPY_MEDIA_BLOB_CONTEXT`; set it
   * only for a use other than happy-media media blobs. Decrypting with another context fails.
   */
  context?: Uint8Array;
  /** Force a backend (tests, benchmarks). Default: the best one for this runtime, see `getBlobBackend`. */
  backend?: BlobBackendName;
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
  /** The backend to use. */
  backend: BlobBackend;
  /** Plaintext limit in bytes (`Number.MAX_SAFE_INTEGER` when unset). */
  maxPlaintextBytes: number;
}

/**
 * Validates `options` and fills in the defaults.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a context that is not bytes, an unknown or
 * unavailable backend, or a limit that is not a non-negative integer.
 */
export function resolveBlobOptions(options: BlobOptions | undefined): ResolvedBlobOptions {
  const context =
    options?.context === undefined ? DEFAULT_BLOB_CONTEXT : assertBytes(options.context, 'context');
  const maxPlaintextBytes =
    options?.maxPlaintextBytes === undefined
      ? Number.MAX_SAFE_INTEGER
      : assertNonNegativeInteger(options.maxPlaintextBytes, 'maxPlaintextBytes');
  // Copy the context: the caller may reuse its buffer while a stream is still running.
  return { context: context.slice(), backend: getBlobBackend(options?.backend), maxPlaintextBytes };
}

/** Throws the limit error when `total` plaintext bytes exceed the configured maximum. */
export function checkPlaintextLimit(total: number, options: ResolvedBlobOptions): void {
  if (total > options.maxPlaintextBytes) {
    throw new LimitError(
      `the plaintext is longer than maxPlaintextBytes (${options.maxPlaintextBytes} bytes); raise the limit or refuse the blob`,
    );
  }
}
