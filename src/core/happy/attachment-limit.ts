/**
 * Happy's cap per attachment, and the one check of it: 10 MiB (10 485 760 bytes) of **ciphertext**, what
 * its server (`size <= 10485760` at request-upload, `413` above it on upload), its app (`MAX_FILE_SIZE`)
 * and its CLI (`maxContentLength`) all apply to the encrypted blob. A v1 blob (v1-blob.ts) is such an
 * attachment whatever store holds it: Happy's app reads no bigger one.
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
 * enforce it (the caller already holds the bytes); {@link assertFitsHappyAttachment} does.
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

/** The largest file Happy's attachment carries in each format (v1: the cap minus secretbox's 40 bytes). */
export const HAPPY_MAX_PLAINTEXT_BYTES = {
  v1: V1_BLOB_MAX_PLAINTEXT_BYTES,
  v2: largestV2Plaintext(HAPPY_MAX_ATTACHMENT_BYTES),
} as const;

/**
 * Refuses a file that no Happy attachment can carry in `format`, saying what would fit in each format
 * and that Happy's app has no other path to an attachment.
 *
 * @param size - the file's plaintext size in bytes.
 * @param name - how the message names the file.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when `size` is over the format's limit.
 * @example
 * ```ts
 * assertFitsHappyAttachment(file.size, 'v1', file.name); // before anything is read or uploaded
 * ```
 */
export function assertFitsHappyAttachment(size: number, format: 'v2' | 'v1', name: string): void {
  const limit = HAPPY_MAX_PLAINTEXT_BYTES[format];
  if (size <= limit) return;
  throw new LimitError(
    `${name} is ${size} bytes; a Happy attachment is at most ${HAPPY_MAX_ATTACHMENT_BYTES} bytes encrypted, ` +
      `which holds at most ${limit} bytes of plaintext as ${format} (${HAPPY_MAX_PLAINTEXT_BYTES.v1} as v1, ` +
      `${HAPPY_MAX_PLAINTEXT_BYTES.v2} as v2). Happy's app fetches attachments only from Happy's server: ` +
      'it has no S3 or media-server path, so a larger file cannot reach the app as an attachment. ' +
      'Send a smaller version (re-encode the video, scale the photo, compress the file), or send it as v2 ' +
      'to an S3 store or a media server, which have no such cap; nothing was uploaded',
  );
}
