/**
 * The download → decrypt → private file pipeline, for one request into one directory.
 *
 * v2 blobs stream: frames from {@link resumableDownload} go through the blob layer's decrypt stream,
 * which releases a chunk only after its tag verified; released bytes are hashed and written to a 0600
 * `.partial` file; after the last chunk verified the file is fsynced and renamed to its final name. v1
 * blobs (whole-blob secretbox, at most {@link V1_MAX_BLOB_BYTES}) are downloaded whole, opened in memory,
 * then written the same way. Any failure removes the partial file; the error class names the leg.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import {
  BLOB_CHUNK_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_TAG_SIZE,
  createDecryptStream,
  plaintextSize,
} from '../../core/blob/index.js';
import { decryptV1Blob, LEGACY_OVERHEAD_BYTES } from '../../core/envelope/index.js';
import { AbortedError, DecryptionError, LimitError } from '../../core/errors.js';
import { AtomicFileWriter } from '../fs/atomic-file.js';
import type { ProducedFile } from './media-cache.js';
import { extensionForMimeType, extensionOfName, safeFileStem, sniffMimeTypeOfFile } from './media-names.js';
import type { MediaRequest } from './media-request.js';
import { chunkedResumePoint, type ReadableBlobStore, resumableDownload } from './resumable-download.js';
import { headWithRetries, readStoreRange } from './store-reads.js';

/**
 * Largest v1 (whole-blob secretbox) ciphertext playback accepts: it is opened in memory. Happy itself caps
 * v1 uploads at 10 MB (`V1_BLOB_MAX_PLAINTEXT_BYTES`); the margin admits old blobs from other clients.
 */
export const V1_MAX_BLOB_BYTES = 64 * 1024 * 1024;
/** Bytes a v1 blob adds to its plaintext (24-byte nonce + 16-byte tag), from the envelope layer. */
export const V1_OVERHEAD_BYTES = LEGACY_OVERHEAD_BYTES;

/** What the pipeline needs besides the request. */
export interface DownloadToFileOptions {
  store: ReadableBlobStore;
  blobKey: Uint8Array;
  /** Private directory the file is created in. */
  dir: string;
  signal?: AbortSignal;
  onProgress?: (e: { done: number; total: number }) => void;
  retries?: number;
  retryDelayMs?: number;
}

/** Checks the stored size against what the (authenticated) message announced, before downloading. */
function expectedPlaintextSize(request: MediaRequest, ciphertextBytes: number): number {
  let size: number;
  if (request.format === 'v1') {
    if (ciphertextBytes > V1_MAX_BLOB_BYTES) {
      throw new LimitError(
        `the v1 blob ${request.ref} is ${ciphertextBytes} bytes, more than the ${V1_MAX_BLOB_BYTES}-byte limit for whole-blob decryption`,
      );
    }
    // A v1 blob shorter than its overhead cannot be authentic.
    if (ciphertextBytes < V1_OVERHEAD_BYTES) throw new DecryptionError();
    size = ciphertextBytes - V1_OVERHEAD_BYTES;
  } else {
    try {
      size = plaintextSize(ciphertextBytes);
    } catch (cause) {
      // A length no ciphertext can have is a truncated or extended blob: not authentic.
      throw new DecryptionError({ cause });
    }
  }
  // The message is authenticated by its envelope; a blob of another size is not the one it describes.
  if (request.size !== undefined && request.size !== size) throw new DecryptionError();
  return size;
}

/**
 * Downloads, verifies and writes `request`'s plaintext into `options.dir`.
 *
 * @throws {StorageError} `ERR_NOT_FOUND`, `ERR_DOWNLOAD_FAILED` (download leg).
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` (decrypt leg: wrong key, tampering, wrong size).
 * @throws {DiskError} `ERR_DISK` (disk leg).
 * @throws {AbortedError} `ERR_ABORTED`.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a v1 blob over {@link V1_MAX_BLOB_BYTES}.
 */
export async function downloadToFile(
  request: MediaRequest,
  options: DownloadToFileOptions,
): Promise<ProducedFile> {
  const { store, blobKey, signal, onProgress } = options;
  const reads = { retries: options.retries, retryDelayMs: options.retryDelayMs, signal };
  const ciphertextBytes = await headWithRetries(store, request.ref, reads);
  const total = expectedPlaintextSize(request, ciphertextBytes);

  const writer = await AtomicFileWriter.create(options.dir);
  const hash = createHash('sha256');
  let done = 0;
  const accept = async (plain: Uint8Array) => {
    if (signal?.aborted) throw new AbortedError('the open was aborted', { cause: signal.reason });
    hash.update(plain);
    await writer.write(plain);
    done += plain.length;
    onProgress?.({ done, total });
  };

  try {
    if (request.format === 'v1') {
      const blob = await readStoreRange(store, request.ref, 0, ciphertextBytes, reads);
      await accept(decryptV1Blob(blob, blobKey));
    } else {
      const ciphertext = resumableDownload({
        ...reads,
        store,
        ref: request.ref,
        size: ciphertextBytes,
        resumePoint: chunkedResumePoint(BLOB_HEADER_SIZE, BLOB_CHUNK_SIZE + BLOB_TAG_SIZE),
      });
      const plaintext = ciphertext.pipeThrough(createDecryptStream(blobKey, { maxPlaintextBytes: total }));
      const reader = plaintext.getReader();
      try {
        for (;;) {
          const { done: end, value } = await reader.read();
          if (end) break;
          await accept(value);
        }
      } catch (error) {
        await reader.cancel(error).catch(() => undefined);
        throw error;
      }
    }
    // The decryptor already refuses truncation; this guards the bookkeeping, not the cryptography.
    if (done !== total) throw new DecryptionError();

    // Every byte is verified by now; the sniffer reads the partial file where it needs to.
    const sniffed = request.mimeType ? undefined : await sniffMimeTypeOfFile(writer.partialPath);
    const mimeType = request.mimeType ?? sniffed ?? 'application/octet-stream';
    const extension = extensionForMimeType(mimeType) ?? extensionOfName(request.name) ?? '.bin';
    const path = join(options.dir, `${safeFileStem(request.name)}${extension}`);
    await writer.commit(path);
    return { path, extension, size: total, mimeType, sha256: hash.digest('hex') };
  } catch (error) {
    await writer.abort();
    if (signal?.aborted && !(error instanceof AbortedError)) {
      throw new AbortedError('the open was aborted', { cause: signal.reason });
    }
    // Store failures arrive already typed (resumableDownload, headWithRetries); anything else is a bug
    // and must not masquerade as a network problem.
    throw error;
  }
}
