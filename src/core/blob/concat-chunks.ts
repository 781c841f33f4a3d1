/**
 * Joining a batch's per-chunk arrays into one, for an asynchronous AES-GCM (one array per chunk) where the
 * engine needs one array (random access).
 *
 * @module
 */
import { joinBytes } from '../bytes.js';

/**
 * Concatenates a batch's per-chunk results. A batch of one chunk is returned as it is: the implementation's
 * array is already fresh and owned by the caller, so copying it would only cost time.
 */
export function concatChunks(parts: readonly Uint8Array[]): Uint8Array {
  return parts.length === 1 ? (parts[0] as Uint8Array) : joinBytes(parts);
}
