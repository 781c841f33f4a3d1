/**
 * What an app knows about a file it is about to send (from its image or document picker, and the small
 * picture it saved for the placeholder), checked and turned into a {@link MediaDetails}; and its bytes
 * as one stream of exactly the size it gave.
 *
 * @module
 */
import { bufferRangeSource, type RangeSource } from '../blob/random-access.js';
import { bytesStream, describeValue } from '../bytes.js';
import { InvalidArgumentError } from '../errors.js';
import { sanitizeFileName } from '../media/file-name.js';
import { thumbhashFromImage } from '../media/thumbhash-image.js';
import { ThumbhashSchema } from '../protocol/fields.js';
import type { MediaDetails, MediaKind } from './media-message.js';

/**
 * The bytes of a picked file: the bytes themselves, a stream with its size (what `expoFileSource(file)`
 * of `happy-media/expo` returns, with `ranges`: random access to the same file, which lets a video's
 * metadata be found wherever its index sits), or a stream alone (then {@link PickedMedia.size} is
 * required).
 */
export type PickedMediaSource =
  | Uint8Array
  | { stream: ReadableStream<Uint8Array>; size: number; ranges?: RangeSource }
  | ReadableStream<Uint8Array>;

/** A file to send, described by what the app's picker knows. */
export interface PickedMedia {
  /**
   * The plaintext bytes. A stream is read once, and cancelled when the send fails or is refused (an
   * expo-file-system handle is closed).
   */
  source: PickedMediaSource;
  /** The file's name (any path is dropped; control and bidi characters removed). */
  name: string;
  /** MIME type, `type/subtype` without parameters, e.g. `image/jpeg` (`application/octet-stream` if unknown). */
  mimeType: string;
  /**
   * Size in bytes; the source must give exactly this many, or nothing is stored. Optional when `source`
   * states its size (bytes, or `{ stream, size }`); when both are given they must agree.
   */
  size?: number;
  /** Displayed width in pixels (photos and videos: after EXIF orientation or the video's rotation). */
  width?: number;
  /** Displayed height in pixels (photos and videos). */
  height?: number;
  /** Duration in whole milliseconds (videos). */
  durationMs?: number;
  /**
   * The picture (a video's poster frame) shrunk to at most 100 px and saved as JPEG or PNG (e.g. by
   * expo-image-manipulator): its ThumbHash is computed with `thumbhashFromImage`. Give this or
   * `thumbhash`, not both.
   */
  thumbnail?: Uint8Array;
  /** A ThumbHash already computed, standard padded base64 (what `thumbhashFromImage` returns). */
  thumbhash?: string;
  /**
   * The message to send it as. Default: `file` when none of width, height, duration, thumbnail or
   * thumbhash is given or the type is neither an image (SVG is a document) nor a video, else `photo` or
   * `video` by the MIME type, whose fields must then all be there (`ERR_INVALID_ARGUMENT` naming what is
   * missing). `file` sends a picture as a plain file.
   */
  kind?: MediaKind;
}

/** The largest width or height accepted, in pixels (far beyond any camera; a guard against nonsense). */
export const MAX_PICKED_DIMENSION = 1_000_000;

const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

function invalid(message: string): InvalidArgumentError {
  return new InvalidArgumentError(message);
}

function positiveDimension(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PICKED_DIMENSION) {
    throw invalid(
      `expected a whole number of pixels from 1 to ${MAX_PICKED_DIMENSION} for \`${name}\` but received ${describeValue(value)} (leave it out when the picker does not know it)`,
    );
  }
  return value;
}

/**
 * The source as one stream and the size it states (bytes, or `{ stream, size }`), or the error that
 * refuses it. A stream comes back beside its error (a bad `size`), so that the refused send cancels it.
 *
 * @throws nothing: a refused source is returned as `error` (`ERR_INVALID_ARGUMENT`), for the caller to
 *   throw once it let the stream go.
 * @example
 * ```ts
 * const { stream, size, ranges, error } = pickedSourceStream(expoFileSource(file));
 * ```
 */
export function pickedSourceStream(source: unknown): {
  stream?: ReadableStream<Uint8Array>;
  size?: number;
  ranges?: RangeSource;
  error?: InvalidArgumentError;
} {
  if (source instanceof Uint8Array) {
    return { stream: bytesStream(source), size: source.length, ranges: bufferRangeSource(source) };
  }
  if (source instanceof ReadableStream) return { stream: source };
  const given = source as { stream?: unknown; size?: unknown; ranges?: unknown } | null;
  if (typeof given === 'object' && given !== null && given.stream instanceof ReadableStream) {
    const stream = given.stream as ReadableStream<Uint8Array>;
    const { size, ranges } = given;
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
      return {
        stream,
        error: invalid(`expected a byte count for \`source.size\` but received ${describeValue(size)}`),
      };
    }
    const candidate = ranges as Partial<RangeSource> | null | undefined;
    if (
      ranges !== undefined &&
      (typeof candidate !== 'object' ||
        candidate === null ||
        typeof candidate.size !== 'function' ||
        typeof candidate.read !== 'function')
    ) {
      return {
        stream,
        error: invalid(
          `expected a RangeSource ({ size(), read(offset, length) }) for \`source.ranges\` but received ${describeValue(ranges)}`,
        ),
      };
    }
    return { stream, size, ...(ranges === undefined ? {} : { ranges: ranges as RangeSource }) };
  }
  return {
    error: invalid(
      `expected a Uint8Array, { stream, size } (expoFileSource) or a ReadableStream for \`source\` but received ${describeValue(source)}`,
    ),
  };
}

/** Whether an image of this type is shown as a photo (SVG is a document that can carry script: a file). */
function isPhotoType(mimeType: string): boolean {
  return mimeType.startsWith('image/') && mimeType !== 'image/svg+xml';
}

/**
 * Checks what the picker gave and describes the file: its kind (chosen, or checked when given), its name
 * made safe, its size settled against the source's, and for a photo or video the ThumbHash (of
 * `thumbnail`, or the one given). Reads nothing of the source.
 *
 * @param sourceSize - the size the source states, if any.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` naming the first field that is wrong: a name
 *   that is not a string, a MIME type that is not `type/subtype`, a size that is not a byte count or
 *   differs from the source's, a dimension that is not a positive whole number, a duration that is not
 *   whole milliseconds, a thumbnail that is not bytes, a thumbhash that is not standard base64 of a
 *   ThumbHash, both of them, a photo or video whose fields are missing, a `kind` the type does not fit.
 * @throws {ProbeError} `ERR_PROBE_FAILED` for a thumbnail that is neither JPEG nor PNG or does not decode.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a thumbnail over `thumbhashFromImage`'s pixel limit.
 * @example
 * ```ts
 * const details = await pickedMediaDetails({ source: bytes, name: 'a.png', mimeType: 'image/png', width: 64, height: 48, thumbnail }, bytes.length);
 * details.kind; // 'photo'
 * ```
 */
export async function pickedMediaDetails(
  picked: PickedMedia,
  sourceSize: number | undefined,
): Promise<MediaDetails> {
  if (typeof picked.name !== 'string' || picked.name.trim() === '') {
    throw invalid(
      `expected the file's name for \`name\` (e.g. the picker's fileName, or 'photo.jpg') but received ${describeValue(picked.name)}`,
    );
  }
  const name = sanitizeFileName(picked.name);
  if (typeof picked.mimeType !== 'string' || !MIME_TYPE.test(picked.mimeType.toLowerCase())) {
    throw invalid(
      `expected a MIME type like image/jpeg (type/subtype, no parameters; application/octet-stream when unknown) for \`mimeType\` but received ${describeValue(picked.mimeType)}`,
    );
  }
  const mimeType = picked.mimeType.toLowerCase();
  let size = sourceSize;
  if (picked.size !== undefined) {
    if (typeof picked.size !== 'number' || !Number.isSafeInteger(picked.size) || picked.size < 0) {
      throw invalid(`expected a byte count for \`size\` but received ${describeValue(picked.size)}`);
    }
    if (sourceSize !== undefined && sourceSize !== picked.size) {
      throw invalid(
        `expected \`size\` (${picked.size} bytes) to be the size of \`source\` (${sourceSize} bytes): leave \`size\` out, or give the file's own size`,
      );
    }
    size = picked.size;
  }
  if (size === undefined) {
    throw invalid(
      'expected `size` for a ReadableStream `source`: the upload announces its exact length (or give { stream, size })',
    );
  }
  const width = positiveDimension(picked.width, 'width');
  const height = positiveDimension(picked.height, 'height');
  const { durationMs, thumbnail, thumbhash: givenThumbhash } = picked;
  if (
    durationMs !== undefined &&
    (typeof durationMs !== 'number' || !Number.isSafeInteger(durationMs) || durationMs < 0)
  ) {
    throw invalid(
      `expected whole milliseconds for \`durationMs\` (e.g. Math.round of the picker's duration) but received ${describeValue(durationMs)}`,
    );
  }
  if (thumbnail !== undefined && !(thumbnail instanceof Uint8Array)) {
    throw invalid(
      `expected the bytes of a ≤ 100 px JPEG or PNG for \`thumbnail\` but received ${describeValue(thumbnail)}`,
    );
  }
  if (givenThumbhash !== undefined && !ThumbhashSchema.safeParse(givenThumbhash).success) {
    throw invalid(
      `expected a ThumbHash in standard padded base64 for \`thumbhash\` (what thumbhashFromImage returns) but received ${describeValue(givenThumbhash)}`,
    );
  }
  if (thumbnail !== undefined && givenThumbhash !== undefined) {
    throw invalid('expected `thumbnail` or `thumbhash` but received both: give one');
  }
  const isVideo = mimeType.startsWith('video/');
  const pictureGiven = [width, height, durationMs, thumbnail, givenThumbhash].some((v) => v !== undefined);
  const kind: MediaKind =
    picked.kind ??
    (pictureGiven && isPhotoType(mimeType) ? 'photo' : pictureGiven && isVideo ? 'video' : 'file');
  if (kind !== 'photo' && kind !== 'video' && kind !== 'file') {
    throw invalid(`expected "photo", "video" or "file" for \`kind\` but received ${describeValue(kind)}`);
  }
  if (kind === 'file') return { kind, mimeType, size, name };
  if (kind === 'photo' ? !isPhotoType(mimeType) : !isVideo) {
    throw invalid(
      `expected ${kind === 'photo' ? 'an image type (not SVG)' : 'a video type'} for \`mimeType\` of a ${kind} but received ${mimeType}: send it with kind: 'file'`,
    );
  }
  const missing = [
    width === undefined ? 'width' : '',
    height === undefined ? 'height' : '',
    thumbnail === undefined && givenThumbhash === undefined ? 'thumbnail (or thumbhash)' : '',
    kind === 'video' && durationMs === undefined ? 'durationMs' : '',
  ].filter(Boolean);
  if (missing.length > 0) {
    throw invalid(
      `expected ${missing.join(', ')} for a ${kind} (${mimeType}) but received none: give them, or send it with kind: 'file'`,
    );
  }
  // The picture is decoded only for a message that carries its ThumbHash.
  const thumbhash = givenThumbhash ?? (await thumbhashFromImage(thumbnail as Uint8Array));
  return {
    kind,
    mimeType,
    size,
    name,
    width,
    height,
    thumbhash,
    ...(kind === 'video' ? { durationMs } : {}),
  };
}

/**
 * `stream` passed on unchanged, failing with `ERR_INVALID_ARGUMENT` at the first byte past `size` or at
 * an end before it: the bytes a sender announced are the bytes it sends. Aborting `signal` cancels
 * `stream` (however far it was read).
 *
 * @throws (through the stream) {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a chunk that is not a
 *   `Uint8Array`, more bytes than `size`, or an end before `size`.
 * @example
 * ```ts
 * const body = exactlySized(source, details.size, release.signal).pipeThrough(createEncryptStream(blobKey));
 * ```
 */
export function exactlySized(
  stream: ReadableStream<Uint8Array>,
  size: number,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  let seen = 0;
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (!(chunk instanceof Uint8Array)) {
          throw invalid(`expected Uint8Array chunks from \`source\` but received ${describeValue(chunk)}`);
        }
        seen += chunk.length;
        if (seen > size) {
          throw invalid(
            `expected ${size} bytes from \`source\` (its \`size\`) but it gave more; nothing was stored`,
          );
        }
        controller.enqueue(chunk);
      },
      flush() {
        if (seen !== size) {
          throw invalid(
            `expected ${size} bytes from \`source\` (its \`size\`) but it ended after ${seen}; nothing was stored`,
          );
        }
      },
    }),
    { signal },
  );
}
