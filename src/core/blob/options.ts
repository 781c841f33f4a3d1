/**
 * Options shared by every blob operation, and their validation in one place.
 *
 * @module
 */
import { type AesGcm, assertAesGcm } from '../aes-gcm/aes-gcm.js';
import { assertBytes, assertNonNegativeInteger } from '../bytes.js';
import { InvalidArgumentError, LimitError } from '../errors.js';
import { getRuntime } from '../runtime/runtime.js';

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
  // Copy the context: the caller may reuse its buffer while a stream is still running.
  const aesGcm = options.aesGcm === undefined ? getRuntime().aesGcm : assertAesGcm(options.aesGcm, 'aesGcm');
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
