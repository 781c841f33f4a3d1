/**
 * File names for decrypted media: the extension players expect for a MIME type, a safe stem from a name
 * that came over the wire, and MIME sniffing for photos (whose messages carry no `mimeType`).
 *
 * @module
 */

/**
 * How much plaintext the streaming endpoint sniffs when the message names no MIME type: files up to
 * {@link SNIFF_WHOLE_BYTES} whole (file-type may need a TIFF's trailing IFD or a zip's entries), else the
 * first {@link SNIFF_HEAD_BYTES}.
 */
export const SNIFF_WHOLE_BYTES = 4 * 1024 * 1024;
/** See {@link SNIFF_WHOLE_BYTES}. */
export const SNIFF_HEAD_BYTES = 64 * 1024;

// Players (mpv, QuickTime, browsers opening file://) pick a demuxer by extension; these are the types
// Happy sends plus the common ones a `file` message may carry.
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/avif': '.avif',
  'image/heic': '.heic',
  'image/heif': '.heif',
  'image/bmp': '.bmp',
  'image/tiff': '.tiff',
  'image/svg+xml': '.svg',
  'image/x-icon': '.ico',
  'video/mp4': '.mp4',
  'video/quicktime': '.mov',
  'video/webm': '.webm',
  'video/x-matroska': '.mkv',
  'video/x-msvideo': '.avi',
  'video/mpeg': '.mpeg',
  'video/3gpp': '.3gp',
  'video/mp2t': '.ts',
  'audio/mpeg': '.mp3',
  'audio/mp4': '.m4a',
  'audio/aac': '.aac',
  'audio/ogg': '.ogg',
  'audio/opus': '.opus',
  'audio/wav': '.wav',
  'audio/x-wav': '.wav',
  'audio/flac': '.flac',
  'audio/webm': '.weba',
  'application/pdf': '.pdf',
  'application/zip': '.zip',
  'application/gzip': '.gz',
  'application/x-tar': '.tar',
  'application/json': '.json',
  'application/xml': '.xml',
  'text/plain': '.txt',
  'text/markdown': '.md',
  'text/html': '.html',
  'text/csv': '.csv',
};

/** The extension (with its dot) for a MIME type, or undefined when we know none. Parameters are ignored. */
export function extensionForMimeType(mimeType: string | undefined): string | undefined {
  if (!mimeType) return undefined;
  const essence = mimeType.split(';')[0]!.trim().toLowerCase();
  return EXTENSIONS[essence];
}

/** The extension of a display name if it is short and plain (`.pdf`, `.tar`), else undefined. */
export function extensionOfName(name: string | undefined): string | undefined {
  const match = name ? /\.([A-Za-z0-9]{1,10})$/.exec(name) : null;
  return match ? `.${match[1]!.toLowerCase()}` : undefined;
}

/**
 * A file-name stem derived from an untrusted display name: no directory parts, no control or shell-special
 * characters, no leading dot, at most 80 characters; `fallback` when nothing usable remains.
 */
export function safeFileStem(name: string | undefined, fallback = 'media'): string {
  if (!name) return fallback;
  const base = name.split(/[\\/]/).pop() ?? '';
  const stem = base.replace(/\.[A-Za-z0-9]{1,10}$/, '');
  const cleaned = stem
    .normalize('NFC')
    .replace(/[^\p{L}\p{N} ._()-]/gu, '_')
    .replace(/^[.\s-]+/, '')
    .trim()
    .slice(0, 80);
  return cleaned.length > 0 ? cleaned : fallback;
}
