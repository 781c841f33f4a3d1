/**
 * The mappers' media handler over the send pipeline: each image (or document) a mapper meets is probed,
 * encrypted into the store and described, and the mapper writes its message only after this resolved.
 *
 * @module
 */
import { InvalidArgumentError } from '../../core/errors.js';
import { describeMediaMessage, type MediaHandler } from '../../core/mappers/index.js';
import { type SendOptions, sendMedia } from './send-media.js';

/** Options of {@link sendMediaHandler}: where the blobs go and how they are probed. */
export type SendMediaHandlerOptions = Pick<SendOptions, 'store' | 'blobKey' | 'probeOptions'> & {
  /** Told after each upload (ref and ciphertext size), e.g. for a progress line. */
  onUpload?: (upload: { ref: string; ciphertextSize: number; name: string }) => void;
};

/**
 * A {@link MediaHandler} that sends each piece of media through `sendMedia` (probe → encrypt while
 * uploading → confirmed ref) and resolves with what its `photo`/`video`/`file` message needs.
 * Failures reject (the mapper then writes a `service` note): `ProbeError`, `StorageError`
 * (`ERR_UPLOAD_FAILED`), `LimitError` for a store's size cap, `AbortedError`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` at once for a missing store or a malformed key.
 * @example
 * ```ts
 * const mapper = createAgentMapper('claude', { media: sendMediaHandler({ store, blobKey }) });
 * ```
 */
export function sendMediaHandler(options: SendMediaHandlerOptions): MediaHandler {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('expected `{ store, blobKey }` for `options`');
  }
  const { store, blobKey, probeOptions, onUpload } = options;
  if (!(blobKey instanceof Uint8Array) || blobKey.length !== 32) {
    throw new InvalidArgumentError('expected a 32-byte Uint8Array for `options.blobKey`');
  }
  if (store === null || typeof store !== 'object') {
    throw new InvalidArgumentError('expected a BlobStore for `options.store` (see openStore)');
  }
  return async ({ bytes, name }, { signal }) => {
    // The message is built as the user's only to be described: the mapper writes its own, with its
    // role, turn and placement.
    const result = await sendMedia(
      { bytes, name },
      {
        store,
        blobKey,
        role: 'user',
        ...(probeOptions ? { probeOptions } : {}),
        ...(signal ? { signal } : {}),
      },
    );
    onUpload?.({ ref: result.ref, ciphertextSize: result.ciphertextSize, name });
    return describeMediaMessage(result.message);
  };
}
