/**
 * The context strings of happy-media's blobs. Cobblestone mixes the context into the key derivation, so
 * a blob decrypts only under the context it was made with; anything else fails the commitment check
 * (`ERR_DECRYPTION_FAILED`) before any chunk is opened.
 *
 * A v2 media blob is bound to its ref: its context is {@link mediaBlobContext}`(ref)`, so a store that
 * serves another blob (encrypted under the same key) in place of the one a message names fails instead
 * of playing the wrong content. Blobs made before that binding, the frozen vectors and standalone files
 * use {@link unboundBlobContext}; nothing falls back to it: a caller names the context it means. Exact
 * bytes and the reasoning: docs/blob-format.md, "The context string".
 *
 * @module
 */
import { concatBytes, utf8 } from '../bytes.js';
import { StorageError } from '../errors.js';
import { parseRef } from '../protocol/refs.js';

/** UTF-8 `happy-media blob v2`: the domain of every happy-media blob context (19 bytes). */
const DOMAIN = utf8('happy-media blob v2');
/** Separates the domain from the ref: neither contains a NUL byte, so the encoding is unambiguous. */
const SEPARATOR = new Uint8Array([0x00]);

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
  const parsed = parseRef(ref);
  if (parsed.scheme !== 'media') {
    throw new StorageError('invalid ref: only a "media/<id>" ref names a stored blob to bind to', {
      code: 'ERR_INVALID_REF',
    });
  }
  return concatBytes(DOMAIN, SEPARATOR, utf8(ref));
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
  return DOMAIN.slice();
}
