/**
 * The media hand-off of the mappers: what a provider's image (or document) becomes before it is a
 * message. A mapper gives the writer the bytes (or their base64) and what the provider said about them;
 * the writer decodes and bounds them, hands them to the caller's {@link MediaHandler} (in Node: probe →
 * encrypt → upload), and only once that resolved emits the `photo`/`video`/`file` message describing
 * the upload. The handler is the only thing that touches storage, so this module stays universal.
 *
 * @module
 */
import { fromBase64 } from '../bytes.js';
import type { MediaMessage } from '../protocol/index.js';

/** Largest media the writer hands to the handler by default: 32 MiB of decoded bytes. */
export const DEFAULT_MAX_MEDIA_BYTES = 32 * 1024 * 1024;

/** One piece of media to upload, as the writer hands it to the {@link MediaHandler}. */
export interface MediaUpload {
  /** The decoded bytes. */
  bytes: Uint8Array;
  /** MIME type: sniffed from the bytes when recognisable, else what the provider declared, if anything. */
  mimeType?: string;
  /** A display file name (`image-1.png`), safe as one path segment. */
  name: string;
  /** Who produced it: `user` (a prompt's image) or `agent` (a tool's or the model's output). */
  role: 'user' | 'agent';
}

/** What a `photo` message needs from an upload. */
export interface PhotoDescription {
  type: 'photo';
  ref: string;
  thumbhash: string;
  width: number;
  height: number;
}

/** What a `video` message needs from an upload. */
export interface VideoDescription {
  type: 'video';
  ref: string;
  thumbhash: string;
  width: number;
  height: number;
  durationMs: number;
  mimeType: string;
  size: number;
}

/** What a `file` message needs from an upload. */
export interface FileDescription {
  type: 'file';
  ref: string;
  name: string;
  size: number;
  mimeType: string;
}

/** The confirmed upload: the fields of the message that will describe it. */
export type MediaDescription = PhotoDescription | VideoDescription | FileDescription;

/**
 * Uploads one piece of media and resolves only once the store confirmed it, with what the message
 * needs (its `ref`, and `thumbhash`/`width`/`height` for a photo). Rejecting (or resolving with fields
 * that do not validate) makes the writer emit a `service` message saying the upload failed instead.
 *
 * @example
 * ```ts
 * const media: MediaHandler = async ({ bytes, name }) => {
 *   const { message } = await sendMedia({ bytes, name, size: bytes.length }, { store, blobKey });
 *   return describeMediaMessage(message);
 * };
 * ```
 */
export type MediaHandler = (
  upload: MediaUpload,
  options: { signal?: AbortSignal },
) => Promise<MediaDescription>;

/** Media as a provider gives it: bytes, or base64 text (a `data:` URI is accepted). */
export type MediaData = Uint8Array | string;

/** The result of {@link decodeMediaData}. */
export type DecodedMedia =
  | { ok: true; bytes: Uint8Array; declaredMimeType?: string }
  | { ok: false; reason: 'invalid-media' | 'media-too-large'; size?: number };

const DATA_URI = /^data:([^;,]*)(;[^,]*)?,/;

/**
 * Decodes media data: bytes as they are, base64 leniently (whitespace dropped, base64url letters and
 * missing padding accepted, a `data:` URI prefix read), and refuses anything over `maxBytes` before
 * decoding it.
 *
 * @example
 * ```ts
 * const decoded = decodeMediaData(block.source.data, DEFAULT_MAX_MEDIA_BYTES);
 * if (decoded.ok) upload(decoded.bytes);
 * ```
 */
export function decodeMediaData(data: MediaData, maxBytes: number): DecodedMedia {
  if (data instanceof Uint8Array) {
    return data.length > maxBytes
      ? { ok: false, reason: 'media-too-large', size: data.length }
      : { ok: true, bytes: data };
  }
  if (typeof data !== 'string') return { ok: false, reason: 'invalid-media' };
  let text = data;
  let declaredMimeType: string | undefined;
  const uri = DATA_URI.exec(text.slice(0, 256));
  if (uri) {
    if (uri[2] === undefined || !/;base64$/i.test(uri[2])) return { ok: false, reason: 'invalid-media' };
    declaredMimeType = uri[1] || undefined;
    text = text.slice(uri[0].length);
  }
  // Bound the work before touching the text: 4 characters carry 3 bytes.
  const estimated = Math.floor((text.length * 3) / 4);
  if (estimated > maxBytes + 3) return { ok: false, reason: 'media-too-large', size: estimated };
  if (/[\s]/.test(text)) text = text.replace(/\s+/g, '');
  if (/[-_]/.test(text)) text = text.replace(/-/g, '+').replace(/_/g, '/');
  const remainder = text.length % 4;
  if (remainder === 1) return { ok: false, reason: 'invalid-media' };
  if (remainder > 0) text += '='.repeat(4 - remainder);
  if (text.length === 0) return { ok: false, reason: 'invalid-media' };
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(text, 'media data');
  } catch {
    return { ok: false, reason: 'invalid-media' };
  }
  if (bytes.length > maxBytes) return { ok: false, reason: 'media-too-large', size: bytes.length };
  return declaredMimeType === undefined ? { ok: true, bytes } : { ok: true, bytes, declaredMimeType };
}

const SIGNATURES: readonly { mimeType: string; at: number; bytes: readonly number[] }[] = [
  { mimeType: 'image/png', at: 0, bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mimeType: 'image/jpeg', at: 0, bytes: [0xff, 0xd8, 0xff] },
  { mimeType: 'image/gif', at: 0, bytes: [0x47, 0x49, 0x46, 0x38] },
  { mimeType: 'image/webp', at: 8, bytes: [0x57, 0x45, 0x42, 0x50] },
  { mimeType: 'application/pdf', at: 0, bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
];

/**
 * The MIME type the first bytes show, for the formats agents send inline (PNG, JPEG, GIF, WebP, PDF),
 * or `undefined`. Providers may omit `media_type` or state it wrongly; the bytes decide.
 *
 * @example
 * ```ts
 * sniffInlineMimeType(bytes); // 'image/png'
 * ```
 */
export function sniffInlineMimeType(bytes: Uint8Array): string | undefined {
  for (const signature of SIGNATURES) {
    if (bytes.length < signature.at + signature.bytes.length) continue;
    if (signature.bytes.every((byte, i) => bytes[signature.at + i] === byte)) {
      // RIFF....WEBP: the container is checked too, so a text file with "WEBP" at 8 is not an image.
      if (
        signature.mimeType === 'image/webp' &&
        !(bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[2] === 0x46 && bytes[3] === 0x46)
      ) {
        continue;
      }
      return signature.mimeType;
    }
  }
  return undefined;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
};

/**
 * A display name for the `index`-th piece of media of a stream: `image-3.png`, `document-1.pdf`,
 * `attachment-2` when the type is unknown.
 *
 * @example
 * ```ts
 * mediaFileName('image/png', 3); // 'image-3.png'
 * ```
 */
export function mediaFileName(mimeType: string | undefined, index: number): string {
  const extension = mimeType === undefined ? undefined : EXTENSIONS[mimeType.toLowerCase()];
  if (extension === undefined) return `attachment-${index}`;
  return `${mimeType!.startsWith('image/') ? 'image' : 'document'}-${index}.${extension}`;
}

/**
 * The upload description inside a media message (its `type` and media fields, without id, time, role,
 * turn or placement): what a {@link MediaHandler} built on a pipeline that returns whole messages
 * (Node's `sendMedia`) resolves with.
 *
 * @example
 * ```ts
 * const { message } = await sendMedia(input, { store, blobKey });
 * return describeMediaMessage(message);
 * ```
 */
export function describeMediaMessage(message: MediaMessage): MediaDescription {
  const {
    id: _id,
    time: _time,
    role: _role,
    turn: _turn,
    parentId: _parentId,
    agentId: _agentId,
    ...description
  } = message;
  return description as MediaDescription;
}
