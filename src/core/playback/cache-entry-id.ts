/**
 * The name a verified media file is cached under, on every platform (Node's `MediaCache`, an app's
 * expo-file-system cache): HMAC-SHA-256 of the ref under the blob key, so a ref opened with another key
 * misses instead of being served someone else's plaintext, and names reveal neither ref nor key.
 *
 * @module
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { assertBytes, toHex, utf8 } from '../bytes.js';

/**
 * The entry id of `ref` under `blobKey`: `HMAC-SHA-256(blobKey, "happy-media cache v1\0" || ref)`, hex,
 * the first 32 characters.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a key that is not 32 bytes.
 * @example
 * ```ts
 * cacheEntryId('media/abc', blobKey); // e.g. '3f1c…' (32 hex characters)
 * ```
 */
export function cacheEntryId(ref: string, blobKey: Uint8Array): string {
  const mac = hmac(sha256, assertBytes(blobKey, 'blobKey', 32), utf8(`happy-media cache v1\0${ref}`));
  return toHex(mac).slice(0, 32);
}
