/**
 * Sending from an app, with no `node:` anywhere: the caller gives what its picker knows about a file and
 * a source of its bytes; the bytes are encrypted as a stream bound to the ref the store issues, uploaded
 * (`HappyServerStore`, or any store), and only once the store confirmed the blob is the v2 message built
 * (`photo`, `video` or `file`, the same builder as Node's `sendMedia`) and, when asked, sealed for the
 * session with the runtime's AES-GCM (expo-crypto in Happy's app). Append it with
 * `HappyClient.appendMessages`.
 *
 * @module
 */
import type { RangeSource } from '../blob/random-access.js';
import { describeValue } from '../bytes.js';
import type { EncryptedEnvelope } from '../envelope/envelope.js';
import { sealMessageAsync } from '../envelope/messages.js';
import { AbortedError, InvalidArgumentError } from '../errors.js';
import {
  type MetadataStripPlan,
  planMetadataStrip,
  stripMetadataStream,
} from '../media/strip/strip-metadata.js';
import type { BuildOptions, MediaMessage } from '../protocol/index.js';
import { uploadFailure } from '../storage/blob-store.js';
import { type MediaDetails, mediaMessage } from './media-message.js';
import { uploadMediaBlob } from './media-upload.js';
import { exactlySized, type PickedMedia, pickedMediaDetails, pickedSourceStream } from './picked-media.js';
import { streamPlaintextSource } from './plaintext-source.js';
import { checkSendTarget, type SendTargetOptions } from './send-options.js';

/** Options of {@link sendPickedMedia}. */
export interface SendPickedMediaOptions extends SendTargetOptions {
  /** Cancels the send: nothing is stored under the ref where the store can delete. */
  signal?: AbortSignal;
  /** Ciphertext bytes stored so far, of `total`. */
  onProgress?: (event: { done: number; total: number }) => void;
  /** Pins the message's `id` and `time` (tests, replays). */
  messageOptions?: BuildOptions;
  /** Told what the user should know, e.g. a wait Happy's server imposes on a large send. */
  onNotice?: (text: string) => void;
  /**
   * Send the bytes exactly as picked. By default a JPEG, PNG, WebP, HEIC/HEIF, AVIF, MP4 or MOV loses its
   * location and identifying metadata first (GPS, camera make, model and serial, owner, lens, software,
   * original time), in place and without re-encoding: the same size, the same pixels, still upright
   * (docs/media.md, "Private photos").
   */
  keepMetadata?: boolean;
}

/** What {@link sendPickedMedia} produced. */
export interface SendPickedMediaResult {
  /** The validated v2 message (`photo`, `video` or `file`), ready for `HappyClient.appendMessages`. */
  message: MediaMessage;
  /** The sealed message, when `sealKey` was given. */
  envelope?: EncryptedEnvelope;
  /** The blob's ref (`media/<id>`), also in `message.ref`. */
  ref: string;
  /** Bytes stored (the ciphertext length; of all parts together for media in parts). */
  ciphertextSize: number;
  /** Attachments the blob is stored in: 1, or its parts (then `ref` is its manifest's). */
  parts: number;
  /** What was sent, as checked: its kind, MIME type, size, safe name and picture fields. */
  details: MediaDetails;
}

/** The metadata plan of a random-access source, which must be the file the stream gives. */
async function planWithin(ranges: RangeSource, size: number): Promise<MetadataStripPlan> {
  const rangesSize = await ranges.size();
  if (rangesSize !== size) {
    throw new InvalidArgumentError(
      `expected \`source.ranges\` to read the same file as \`source.stream\` (${size} bytes) but it has ${rangesSize}`,
    );
  }
  return planMetadataStrip(ranges);
}

/**
 * Encrypts and uploads a picked file and describes it as a v2 message. Everything the picker gave is
 * checked first (nothing read or uploaded before); then the bytes, their location and identifying
 * metadata neutralised in place unless `keepMetadata`, are encrypted as they are read, bound to the ref
 * the store issues (`mediaBlobContext(ref)`), with their length announced up front; a video
 * larger than one attachment of the store (Happy's server: 10 MiB) goes in parts and a manifest under the
 * message's ref (docs/blob-format.md, "Media in parts"), with one part in memory at a time. The
 * source must give exactly `size` bytes, or the upload fails and nothing is stored. The message exists
 * only once the store confirmed the blob; a failure after that deletes the blob where the store can
 * (Happy's server cannot: it keeps a blob until its session is deleted). The source is read once, and
 * cancelled whenever the send fails or is refused.
 *
 * @param media - the picker's facts and a source of bytes (see {@link PickedMedia}).
 * @param options - the store, the blob key, the author and, to seal the message yourself, `sealKey`
 *   (`HappyClient.appendMessages` seals it for you).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` before anything is read or uploaded for a bad
 *   field of `media` (each named; a photo or video lacking width, height or thumbnail, a video its
 *   duration), store, blob key, sealing key or role/turn; during the upload when the source gives more or
 *   fewer bytes than `size` (nothing is stored).
 * @throws {ProbeError} `ERR_PROBE_FAILED` for a `thumbnail` that is not a decodable JPEG or PNG.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a thumbnail over 1 megapixel.
 * @throws {StorageError} `ERR_UPLOAD_FAILED` and others from the store.
 * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` for a token the server refuses.
 * @throws {AbortedError} `ERR_ABORTED` when `signal` aborts; nothing is stored.
 * @throws {NotSupportedError} `ERR_NOT_SUPPORTED` when a stream without random access holds metadata one
 *   pass cannot remove (a video whose index follows its data and has a timed-metadata track); nothing is
 *   stored. Give `{ stream, size, ranges }` (expoFileSource does) or the bytes.
 * @example
 * ```ts
 * const { message } = await sendPickedMedia(
 *   { source: expoFileSource(new File(asset.uri)), name: 'IMG_1.jpg', mimeType: 'image/jpeg',
 *     width: asset.width, height: asset.height, thumbnail: await new File(small.uri).bytes() },
 *   { store: client.attachmentStore(session), blobKey: session.blobKey },
 * );
 * await client.appendMessages(session, [message]);
 * ```
 */
export async function sendPickedMedia(
  media: PickedMedia,
  options: SendPickedMediaOptions,
): Promise<SendPickedMediaResult> {
  const given = typeof media === 'object' && media !== null;
  const source = pickedSourceStream(given ? media.source : undefined);
  // From here on the send owns the source: every failure releases it (an expo file handle is closed).
  const release = new AbortController();
  let stored: string[] = [];
  try {
    if (!given) {
      throw new InvalidArgumentError(
        `expected { source, name, mimeType, size?, width?, height?, durationMs?, thumbnail?, thumbhash? } for \`media\` but received ${describeValue(media)}`,
      );
    }
    if (source.error) throw source.error;
    const author = checkSendTarget(options);
    const { store, blobKey, signal, onProgress, sealKey } = options;
    if (onProgress !== undefined && typeof onProgress !== 'function') {
      throw new InvalidArgumentError(
        `expected a function for \`options.onProgress\` but received ${describeValue(onProgress)}`,
      );
    }
    const details = await pickedMediaDetails(media, source.size);
    const stream = source.stream as ReadableStream<Uint8Array>;
    if (options.keepMetadata !== undefined && typeof options.keepMetadata !== 'boolean') {
      throw new InvalidArgumentError(
        `expected true or false for \`options.keepMetadata\` but received ${describeValue(options.keepMetadata)}`,
      );
    }
    const strip = options.keepMetadata !== true;
    // With random access the metadata is found first (a few reads of the structure); without, as the
    // bytes pass. Stripping keeps the size, so the length announced below stays exact.
    const plan = strip && source.ranges ? await planWithin(source.ranges, details.size) : undefined;
    if (signal?.aborted) {
      throw new AbortedError('the send was aborted before it started; nothing was stored', {
        cause: signal.reason,
      });
    }
    // The store issues the ref before the first byte is encrypted; the blob is bound to it. Larger than
    // one attachment of the store (Happy's server: 10 MiB): in parts, then a manifest under that ref.
    const upload = await uploadMediaBlob(
      store,
      streamPlaintextSource(() => {
        const exact = exactlySized(stream, details.size, release.signal);
        return strip ? exact.pipeThrough(stripMetadataStream(details.size, plan)) : exact;
      }, details.size),
      blobKey,
      {
        ...(signal ? { signal } : {}),
        ...(onProgress
          ? { onProgress: (done: number, all: number) => onProgress({ done, total: all }) }
          : {}),
        ...(options.onNotice ? { onNotice: options.onNotice } : {}),
        ...(options.messageOptions ? { message: options.messageOptions } : {}),
      },
    );
    stored = upload.stored;
    if (signal?.aborted) {
      throw new AbortedError('the send was aborted', { cause: signal.reason });
    }
    // Only now, with the blob stored, is it described.
    const message = mediaMessage(details, upload.ref, author, upload.message);
    const envelope = sealKey === undefined ? undefined : await sealMessageAsync(message, sealKey);
    return {
      message,
      ...(envelope ? { envelope } : {}),
      ref: upload.ref,
      ciphertextSize: upload.ciphertextSize,
      parts: upload.parts,
      details,
    };
  } catch (error) {
    release.abort(error);
    const stream = source.stream;
    if (stream && !stream.locked) await stream.cancel(error).catch(() => undefined);
    // Whatever failed after the upload, nothing stays behind where the store can delete it.
    for (const ref of stored) await options.store.delete?.(ref).catch(() => undefined);
    if (options?.signal?.aborted && !(error instanceof AbortedError)) {
      throw new AbortedError('the send was aborted; nothing was stored', { cause: error });
    }
    throw uploadFailure(error);
  }
}
