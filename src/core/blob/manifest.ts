/**
 * The manifest of media stored in parts: a small Cobblestone-256 blob stored under the message's ref
 * (`media/<id>`), encrypted under the blob key and bound to that ref (`mediaManifestContext(ref)`), that
 * names the parts of the one media blob in order and carries the random binding id every part was made
 * under (`partsBlobContext(binding)`). The attachment under a message's ref is either the media blob
 * itself or this manifest; its key commitment tells which ({@link storedMediaForm}), before anything is
 * decrypted. Layout and reasoning: docs/blob-format.md, "Media in parts".
 *
 * @module
 */
import * as z from 'zod';
import { equalBytes, fromBase64, fromUtf8, toBase64, utf8 } from '../bytes.js';
import { DecryptionError, FormatError, InvalidArgumentError } from '../errors.js';
import { parseRef } from '../protocol/refs.js';
import {
  BLOB_HEADER_SIZE,
  BLOB_SALT_SIZE,
  type BlobOptions,
  deriveBlobKeys,
  mediaBlobContext,
  mediaManifestContext,
  PARTS_BINDING_SIZE,
} from './format.js';
import { MAX_CHUNKS_PER_PART, partLayout } from './parts.js';
import { decryptBlob, encryptBlob } from './whole.js';

/**
 * Largest manifest plaintext a reader accepts (4 MiB): about 90 000 parts, 900 GiB in Happy's 10 MiB
 * attachments. The manifest is authenticated, so only a holder of the key can make a larger one; the
 * bound keeps a reader's memory bounded all the same.
 */
export const MAX_MANIFEST_PLAINTEXT_BYTES = 4 * 1024 * 1024;

/** What a manifest says: the one blob's binding id, its plaintext size, how it is cut, and the parts' refs. */
export interface PartsManifest {
  /** The 16-byte random id the parts were made under (`partsBlobContext(binding)`). */
  binding: Uint8Array;
  /** Plaintext bytes of the media. */
  plaintextSize: number;
  /** Chunks per part (every part but the last): see `partLayout`. */
  chunksPerPart: number;
  /** The parts' refs (`media/<id>`), in order: part 0 (with the blob's header) first. */
  parts: readonly string[];
}

/** The manifest as JSON: a fixed `manifest` name and version, so nothing else parses as one. */
const ManifestJson = z.strictObject({
  manifest: z.literal('happy-media parts'),
  version: z.literal(1),
  binding: z.string().max(64),
  size: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  chunksPerPart: z.number().int().min(1).max(MAX_CHUNKS_PER_PART),
  parts: z.array(z.string().max(256)).min(1),
});

/** Checks what a manifest names, whichever side made it. */
function checkManifest(manifest: PartsManifest, ref: string | undefined, fail: (why: string) => Error): void {
  if (!(manifest.binding instanceof Uint8Array) || manifest.binding.length !== PARTS_BINDING_SIZE) {
    throw fail(`its binding id is not ${PARTS_BINDING_SIZE} bytes`);
  }
  const layout = partLayout(manifest.plaintextSize, manifest.chunksPerPart);
  if (manifest.parts.length !== layout.count) {
    throw fail(
      `it names ${manifest.parts.length} parts where ${manifest.plaintextSize} bytes in parts of ${manifest.chunksPerPart} chunks make ${layout.count}`,
    );
  }
  const seen = new Set<string>(ref === undefined ? [] : [ref]);
  for (const part of manifest.parts) {
    let media = false;
    try {
      media = parseRef(part).scheme === 'media';
    } catch {
      // reported below
    }
    if (!media) throw fail('a part is not a media/<id> ref');
    if (seen.has(part)) throw fail('a ref appears twice (a part, or the manifest itself)');
    seen.add(part);
  }
}

/**
 * The manifest's plaintext (JSON, UTF-8), checked. It does not hold the ref it is stored under, so its
 * length, `ciphertextSize(encoded.length)` sealed, is known before the store issues that ref.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a manifest whose parts do not match its
 *   layout, or a part that is not a `media/<id>` ref or appears twice.
 */
export function encodePartsManifest(manifest: PartsManifest): Uint8Array {
  checkManifest(
    manifest,
    undefined,
    (why) => new InvalidArgumentError(`expected a consistent manifest but ${why}`),
  );
  return utf8(
    JSON.stringify({
      manifest: 'happy-media parts',
      version: 1,
      binding: toBase64(manifest.binding),
      size: manifest.plaintextSize,
      chunksPerPart: manifest.chunksPerPart,
      parts: [...manifest.parts],
    } satisfies z.infer<typeof ManifestJson>),
  );
}

/**
 * Encrypts an encoded manifest ({@link encodePartsManifest}) as the attachment stored under `ref` (the
 * message's ref), bound to it (`mediaManifestContext(ref)`).
 *
 * @throws {StorageError} `ERR_INVALID_REF` when `ref` is not `media/<id>`.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad key.
 * @example
 * ```ts
 * const encoded = encodePartsManifest(manifest);
 * const { ref } = await store.create(ciphertextSize(encoded.length), async (ref) =>
 *   bytesStream(await sealPartsManifest(encoded, blobKey, ref)));
 * ```
 */
export function sealPartsManifest(
  encoded: Uint8Array,
  key: Uint8Array,
  ref: string,
  options: Omit<BlobOptions, 'context'> = {},
): Promise<Uint8Array> {
  return encryptBlob(encoded, key, { ...options, context: mediaManifestContext(ref) });
}

/**
 * Decrypts and checks the manifest stored under `ref`: it must authenticate under the blob key and
 * `mediaManifestContext(ref)` (a manifest of another message, session or key fails), hold at most
 * {@link MAX_MANIFEST_PLAINTEXT_BYTES}, and name exactly the parts its layout needs, each a distinct
 * `media/<id>` ref.
 *
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when it does not authenticate (one error for all).
 * @throws {FormatError} `ERR_FORMAT` for an authentic manifest that is malformed (a writer's bug).
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` past {@link MAX_MANIFEST_PLAINTEXT_BYTES}.
 * @example
 * ```ts
 * const manifest = await openPartsManifest(bytes, blobKey, message.ref);
 * ```
 */
export async function openPartsManifest(
  sealed: Uint8Array,
  key: Uint8Array,
  ref: string,
  options: Omit<BlobOptions, 'context' | 'maxPlaintextBytes'> = {},
): Promise<PartsManifest> {
  const plain = await decryptBlob(sealed, key, {
    ...options,
    context: mediaManifestContext(ref),
    maxPlaintextBytes: MAX_MANIFEST_PLAINTEXT_BYTES,
  });
  const malformed = (why: string) =>
    new FormatError(
      `the manifest of ${ref} authenticated but is malformed: ${why}; its sender made it wrong`,
    );
  let parsed: z.infer<typeof ManifestJson>;
  try {
    parsed = ManifestJson.parse(JSON.parse(fromUtf8(plain, 'manifest')));
  } catch (cause) {
    throw new FormatError(`the manifest of ${ref} authenticated but is not a parts manifest`, { cause });
  }
  let binding: Uint8Array;
  try {
    binding = fromBase64(parsed.binding, 'binding');
  } catch {
    throw malformed('its binding id is not base64');
  }
  const manifest: PartsManifest = {
    binding,
    plaintextSize: parsed.size,
    chunksPerPart: parsed.chunksPerPart,
    parts: parsed.parts,
  };
  try {
    checkManifest(manifest, ref, malformed);
  } catch (error) {
    if (error instanceof FormatError) throw error;
    throw malformed(error instanceof Error ? error.message : String(error));
  }
  return manifest;
}

/**
 * Which of the two things that may be stored under a message's `ref` a 56-byte blob header belongs to:
 * the media blob itself (`mediaBlobContext(ref)`: media that fits in one attachment) or the manifest of
 * media in parts (`mediaManifestContext(ref)`). The header's key commitment commits to the key, the salt
 * and the context, so it matches at most one of them; both contexts carry the ref, so nothing made for
 * another ref, session or key matches either.
 *
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when it matches neither.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a key that is not 32 bytes.
 */
export function storedMediaForm(key: Uint8Array, header: Uint8Array, ref: string): 'blob' | 'manifest' {
  if (!(header instanceof Uint8Array) || header.length !== BLOB_HEADER_SIZE) throw new DecryptionError();
  const salt = header.subarray(0, BLOB_SALT_SIZE);
  const commitment = header.subarray(BLOB_SALT_SIZE);
  for (const [form, context] of [
    ['blob', mediaBlobContext(ref)],
    ['manifest', mediaManifestContext(ref)],
  ] as const) {
    const keys = deriveBlobKeys(key, salt, context);
    keys.aeadKey.fill(0);
    if (equalBytes(commitment, keys.commitment)) return form;
  }
  throw new DecryptionError();
}
