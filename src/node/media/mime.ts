/**
 * MIME type by content. `file-type` reads the magic bytes of containers; formats without magic (text,
 * JSON, CSV, SVG, HTML) are recognised from a bounded look at the content (SVG markup, valid UTF-8
 * text) and then the extension; `application/octet-stream` is last. Names are normalised to what
 * players and browsers use (see {@link normalizeMimeType} and docs/media.md).
 *
 * @module
 */
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { InvalidArgumentError } from '../../core/errors.js';
import { loadFileType } from './lazy-deps.js';

/** The type of last resort. */
export const OCTET_STREAM = 'application/octet-stream';
/** Bytes looked at for text and SVG detection. */
export const TEXT_SNIFF_BYTES = 64 * 1024;

/**
 * file-type's (or a legacy) name → the name we emit. Registered names beat `x-` names, and one
 * container has one name whatever its brand (M4V is MP4). Parameters are dropped separately.
 */
export const MIME_ALIASES: Readonly<Record<string, string>> = {
  'video/x-matroska': 'video/matroska',
  'audio/x-matroska': 'audio/matroska',
  'video/x-m4v': 'video/mp4',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/x-wav': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/x-flac': 'audio/flac',
  'audio/x-aiff': 'audio/aiff',
  'audio/mp3': 'audio/mpeg',
  'audio/x-mpeg': 'audio/mpeg',
  'video/x-msvideo': 'video/vnd.avi',
  'video/avi': 'video/vnd.avi',
  'image/x-ms-bmp': 'image/bmp',
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'text/xml': 'application/xml',
};

/**
 * Types for magic-less text formats by extension (lower case, without the dot). Applied only when the
 * content is text, so a binary file named `.json` is not called JSON.
 */
export const TEXT_TYPES_BY_EXTENSION: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  text: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  json: 'application/json',
  jsonl: 'application/jsonl',
  ndjson: 'application/jsonl',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  cjs: 'text/javascript',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  ics: 'text/calendar',
  vtt: 'text/vtt',
  srt: 'application/x-subrip',
  rtf: 'application/rtf',
};

/**
 * Lower-cases a MIME type, drops its parameters and maps aliases to our names.
 *
 * @example
 * ```ts
 * normalizeMimeType('video/x-matroska'); // 'video/matroska'
 * normalizeMimeType('audio/ogg; codecs=opus'); // 'audio/ogg'
 * ```
 */
export function normalizeMimeType(mimeType: string): string {
  const essence = mimeType.split(';')[0]!.trim().toLowerCase();
  return MIME_ALIASES[essence] ?? essence;
}

// Optional BOM, XML declaration, comments and a doctype (with an internal subset), then <svg.
const SVG_START =
  /^\ufeff?\s*(?:<\?xml[^>]*>\s*)?(?:(?:<!--[\s\S]*?-->|<!DOCTYPE[^[>]*(?:\[[\s\S]*?\])?\s*>)\s*)*<svg[\s/>]/i;

const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** True when `head` looks like text: valid UTF-8 (a character cut at the end is fine), no NUL, few controls. */
export function looksLikeText(head: Uint8Array, truncated: boolean): boolean {
  if (head.length === 0) return false;
  let bytes = head;
  if (truncated) {
    // Drop a multi-byte sequence cut by the sniff window (at most 3 bytes).
    let cut = bytes.length;
    for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 3); i--) {
      const b = bytes[i]!;
      if ((b & 0xc0) === 0x80) continue;
      if (b >= 0xc0) cut = i;
      break;
    }
    bytes = bytes.subarray(0, cut);
  }
  let text: string;
  try {
    text = utf8Strict.decode(bytes);
  } catch {
    return false;
  }
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return false;
    if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c && c !== 0x1b) controls++;
  }
  return controls <= text.length / 100;
}

/** True when `head` starts like an SVG document. */
export function looksLikeSvg(head: Uint8Array): boolean {
  const text = new TextDecoder('utf-8').decode(head.subarray(0, 4096));
  return SVG_START.test(text);
}

async function readHead(path: string): Promise<{ head: Uint8Array; truncated: boolean }> {
  const handle = await open(path, 'r');
  try {
    const buffer = new Uint8Array(TEXT_SNIFF_BYTES + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return {
      head: buffer.subarray(0, Math.min(filled, TEXT_SNIFF_BYTES)),
      truncated: filled > TEXT_SNIFF_BYTES,
    };
  } finally {
    await handle.close();
  }
}

// file-type calls anything starting with `<?xml` XML; an SVG with an XML declaration is still SVG.
function isGenericXml(mimeType: string): boolean {
  return mimeType === 'application/xml' || mimeType === 'text/xml';
}

/** Decides a type for content that file-type did not recognise. */
export function fallbackMimeType(head: Uint8Array, truncated: boolean, name?: string): string {
  if (looksLikeSvg(head)) return 'image/svg+xml';
  if (!looksLikeText(head, truncated)) return OCTET_STREAM;
  const ext = name ? extname(name).slice(1).toLowerCase() : '';
  const byExt = TEXT_TYPES_BY_EXTENSION[ext];
  // An SVG name on text that is not SVG markup is just text.
  if (byExt && byExt !== 'image/svg+xml') return byExt;
  return 'text/plain';
}

/**
 * The container type file-type reads from a file (it seeks wherever it needs: a TIFF's trailing IFD, a
 * zip's entries) or from bytes, as file-type names it; `undefined` when it knows none. Never throws: an
 * unreadable file or a parser hiccup on hostile bytes is "unknown". Playback's policy: it takes this bare
 * answer and falls back to the message's type or its own default. {@link sniffMimeType} is the probing
 * policy over the same file-type readers: normalised names, SVG, text types, a fallback, and an
 * unreadable path is an error.
 *
 * @example
 * ```ts
 * await detectContainerType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])); // 'image/jpeg'
 * await detectContainerType(new TextEncoder().encode('hello'));       // undefined
 * ```
 */
export async function detectContainerType(input: string | Uint8Array): Promise<string | undefined> {
  try {
    const { fileTypeFromBuffer, fileTypeFromFile } = await loadFileType();
    return (typeof input === 'string' ? await fileTypeFromFile(input) : await fileTypeFromBuffer(input))
      ?.mime;
  } catch {
    return undefined;
  }
}

/**
 * The MIME type of a file (by path) or of bytes, by content; `name` (or the path) only breaks ties for
 * magic-less text formats.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for an input that is neither a path nor bytes.
 * @throws Node's file-system error when the path cannot be read ({@link probeMedia} turns it into
 *   `ERR_UNREADABLE_INPUT`).
 * @example
 * ```ts
 * await sniffMimeType('clip.mkv'); // 'video/matroska'
 * await sniffMimeType(new TextEncoder().encode('{"a":1}'), 'a.json'); // 'application/json'
 * ```
 */
export async function sniffMimeType(input: string | Uint8Array, name?: string): Promise<string> {
  const { fileTypeFromBuffer, fileTypeFromFile } = await loadFileType();
  if (typeof input === 'string') {
    const detected = await fileTypeFromFile(input);
    if (detected && !isGenericXml(detected.mime)) return normalizeMimeType(detected.mime);
    const { head, truncated } = await readHead(input);
    if (detected) return looksLikeSvg(head) ? 'image/svg+xml' : normalizeMimeType(detected.mime);
    return fallbackMimeType(head, truncated, name ?? input);
  }
  if (!(input instanceof Uint8Array)) {
    throw new InvalidArgumentError(
      `expected a path or a Uint8Array for \`input\` but received ${input === null ? 'null' : typeof input}`,
    );
  }
  const detected = await fileTypeFromBuffer(input);
  if (detected && !isGenericXml(detected.mime)) return normalizeMimeType(detected.mime);
  if (detected) return looksLikeSvg(input) ? 'image/svg+xml' : normalizeMimeType(detected.mime);
  const truncated = input.length > TEXT_SNIFF_BYTES;
  return fallbackMimeType(input.subarray(0, TEXT_SNIFF_BYTES), truncated, name);
}

/** Zero bytes after an ID3v2 tag looked through for the audio behind it (a tagger's padding). */
export const ID3_PADDING_SCAN_BYTES = 1024 * 1024;

/**
 * Where the audio starts in a file that begins with an ID3v2 tag: past the tag (its size from the
 * header, plus the footer when flagged) and past any zero bytes after it, up to
 * {@link ID3_PADDING_SCAN_BYTES}. Undefined when the file does not start with an ID3v2 header or holds
 * only zeros after it. file-type gives up on such a file when the tag is followed by padding it does not
 * count (it looks for a frame right after the tag); this says where to look instead.
 *
 * @throws Node's file-system error when the path cannot be read.
 * @example
 * ```ts
 * await id3AudioStart('padded.mp3'); // 4154: a 58-byte tag, 4096 zero bytes, then the first MPEG frame
 * ```
 */
export async function id3AudioStart(path: string): Promise<number | undefined> {
  const handle = await open(path, 'r');
  try {
    const header = new Uint8Array(10);
    const { bytesRead } = await handle.read(header, 0, 10, 0);
    // "ID3", version 2–4 (major byte < 0xff), flags, four syncsafe size bytes (high bit clear).
    if (bytesRead < 10 || header[0] !== 0x49 || header[1] !== 0x44 || header[2] !== 0x33) return undefined;
    if (header[3] === 0xff || header[4] === 0xff || header.subarray(6, 10).some((b) => b >= 0x80)) {
      return undefined;
    }
    const size = (header[6]! << 21) | (header[7]! << 14) | (header[8]! << 7) | header[9]!;
    const footer = (header[5]! & 0x10) !== 0 ? 10 : 0;
    const tagEnd = 10 + size + footer;
    const window = new Uint8Array(64 * 1024);
    for (let at = tagEnd; at < tagEnd + ID3_PADDING_SCAN_BYTES; ) {
      const { bytesRead: got } = await handle.read(window, 0, window.length, at);
      if (got === 0) return undefined;
      const nonZero = window.subarray(0, got).findIndex((b) => b !== 0);
      if (nonZero >= 0) return at + nonZero;
      at += got;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}
