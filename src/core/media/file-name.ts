/**
 * File names from users and from the wire are hostile: they can carry a path, control characters that
 * rewrite a terminal, or bidi overrides that disguise an extension (`photo\u202Egpj.exe`). We keep only
 * the last path component, in Unicode NFC, without those characters, and within 255 UTF-8 bytes.
 *
 * @module
 */
import { InvalidArgumentError } from '../errors.js';

/** Name used when nothing usable is left. */
export const FALLBACK_FILE_NAME = 'file';
/** Longest name kept, in UTF-8 bytes (the usual file-system limit). */
export const MAX_FILE_NAME_BYTES = 255;

// C0 controls, DEL, C1 controls; bidi embeddings/overrides/isolates; zero-width and BOM characters.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

const encoder = new TextEncoder();

function truncateUtf8(text: string, maxBytes: number): string {
  if (encoder.encode(text).length <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const n = encoder.encode(ch).length;
    if (bytes + n > maxBytes) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/**
 * Returns a safe display/storage name for `name`: the last component of any `/` or `\` path, NFC,
 * without control, bidi or zero-width characters, trimmed of surrounding spaces and trailing dots, at
 * most 255 UTF-8 bytes (the extension is kept when shortening), never `.`/`..`/empty (then `file`).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `name` is not a string.
 * @example
 * ```ts
 * sanitizeFileName('../../etc/passwd'); // 'passwd'
 * sanitizeFileName('C:\\Users\\me\\photo.jpg'); // 'photo.jpg'
 * sanitizeFileName('invoice\u202Efdp.exe'); // 'invoicefdp.exe'
 * ```
 */
export function sanitizeFileName(name: string): string {
  if (typeof name !== 'string') {
    throw new InvalidArgumentError(`expected a string for \`name\` but received ${typeof name}`);
  }
  const last = name.split(/[/\\]/).pop() ?? '';
  let clean = last
    .normalize('NFC')
    .replace(UNSAFE, '')
    .trim()
    .replace(/[.\s]+$/, '');
  if (clean === '' || clean === '.' || clean === '..') return FALLBACK_FILE_NAME;
  if (encoder.encode(clean).length > MAX_FILE_NAME_BYTES) {
    const dot = clean.lastIndexOf('.');
    const ext = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : '';
    clean =
      truncateUtf8(
        clean.slice(0, clean.length - ext.length),
        MAX_FILE_NAME_BYTES - encoder.encode(ext).length,
      ) + ext;
  }
  return clean;
}
