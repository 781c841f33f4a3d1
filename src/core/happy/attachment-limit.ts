/**
 * Happy's cap per attachment, and the one check of it: 10 MiB (10 485 760 bytes) of **ciphertext**, what
 * its server (`size <= 10485760` at request-upload, `413` above it on upload), its app (`MAX_FILE_SIZE`)
 * and its CLI (`maxContentLength`) all apply to the encrypted blob. A v1 blob (v1-blob.ts) is such an
 * attachment whatever store holds it: Happy's app reads no bigger one. A larger v2 blob is stored in parts
 * of at most this size (core/send/media-upload.ts).
 *
 * @module
 */
import { ciphertextSize } from '../blob/sizes.js';
import { LEGACY_OVERHEAD_BYTES } from '../envelope/layout.js';
import { LimitError } from '../errors.js';

/** Happy's cap per attachment, in ciphertext bytes: the one constant every check of that cap uses. */
export const HAPPY_MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/**
 * The largest plaintext a v1 attachment blob can carry within {@link HAPPY_MAX_ATTACHMENT_BYTES}:
 * 10 485 720 bytes (the cap minus the 40-byte secretbox overhead). {@link encryptV1Blob} does not
 * enforce it (the caller already holds the bytes); {@link assertFitsV1Attachment} does.
 */
export const V1_BLOB_MAX_PLAINTEXT_BYTES = HAPPY_MAX_ATTACHMENT_BYTES - LEGACY_OVERHEAD_BYTES;

/** The largest plaintext whose v2 blob fits in `limit` bytes (ciphertextSize grows with the plaintext). */
function largestV2Plaintext(limit: number): number {
  let low = 0;
  let high = limit;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (ciphertextSize(mid) <= limit) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * The largest file ONE Happy attachment carries in each format (v1: the cap minus secretbox's 40 bytes;
 * v2: `plaintextSize` of the cap). A v2 file larger than that goes to Happy's server in parts
 * (docs/blob-format.md, "Media in parts"); a v1 blob is one attachment by design.
 */
export const HAPPY_MAX_PLAINTEXT_BYTES = {
  v1: V1_BLOB_MAX_PLAINTEXT_BYTES,
  v2: largestV2Plaintext(HAPPY_MAX_ATTACHMENT_BYTES),
} as const;

/**
 * Refuses a file that no v1 attachment can carry: a v1 blob is one secretbox over the whole file, and
 * Happy's app reads none larger than its 10 MiB cap. The message says to send it as v2, which goes to
 * Happy's server in parts, whatever its size.
 *
 * @param size - the file's plaintext size in bytes.
 * @param name - how the message names the file.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when `size` is over {@link V1_BLOB_MAX_PLAINTEXT_BYTES}.
 * @example
 * ```ts
 * assertFitsV1Attachment(file.size, file.name); // before anything is read or uploaded
 * ```
 */
export function assertFitsV1Attachment(size: number, name: string): void {
  if (size <= V1_BLOB_MAX_PLAINTEXT_BYTES) return;
  throw new LimitError(
    `${name} is ${size} bytes; a v1 attachment is one secretbox of at most ${HAPPY_MAX_ATTACHMENT_BYTES} bytes, ` +
      `which holds at most ${V1_BLOB_MAX_PLAINTEXT_BYTES} bytes of plaintext. Send it as v2 (the default): ` +
      "Happy's server takes v2 media of any size, in parts. Nothing was uploaded",
  );
}
