/**
 * File names for decrypted media, on every platform (Node's private files and streaming endpoint, an
 * app's expo-file-system sink): the extension players expect for a MIME type, and a safe stem from a name
 * that came over the wire.
 *
 * @module
 */

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
function extensionOfName(name: string | undefined): string | undefined {
  const match = name ? /\.([A-Za-z0-9]{1,10})$/.exec(name) : null;
  return match ? `.${match[1]!.toLowerCase()}` : undefined;
}

/**
 * Everything but letters and digits of any script, space and `._()-`. Built at run time: a regular
 * expression literal with Unicode property escapes is a syntax error for older Hermes versions (0.12),
 * which then refuse the whole bundle (and a formatter's fix turns `new RegExp('…')` of one string back
 * into a literal); where the engine refuses the pattern, non-ASCII letters become `_` too.
 */
const UNSAFE_CHARACTERS = compiled(['[^', '\\p{L}', '\\p{N}', ' ._()-]'], 'gu') ?? /[^A-Za-z0-9 ._()-]/g;

/** `new RegExp` from parts no tool folds back into a literal; undefined when the engine refuses it. */
function compiled(parts: readonly string[], flags: string): RegExp | undefined {
  try {
    return new RegExp(parts.join(''), flags);
  } catch {
    return undefined;
  }
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
    .replace(UNSAFE_CHARACTERS, '_')
    .replace(/^[.\s-]+/, '')
    .trim()
    .slice(0, 80);
  return cleaned.length > 0 ? cleaned : fallback;
}

/**
 * The file name for verified media: a safe stem from the display name (else `media`) and the extension
 * of the MIME type, else of the display name, else `.bin`.
 *
 * @example
 * ```ts
 * mediaFileName('../holiday clip.MOV', 'video/mp4'); // { name: 'holiday clip.mp4', extension: '.mp4' }
 * ```
 */
export function mediaFileName(
  displayName: string | undefined,
  mimeType: string | undefined,
): { name: string; extension: string } {
  const extension = extensionForMimeType(mimeType) ?? extensionOfName(displayName) ?? '.bin';
  return { name: `${safeFileStem(displayName)}${extension}`, extension };
}
