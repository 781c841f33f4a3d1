/**
 * JSON Lines reading over a Web `ReadableStream<Uint8Array>`, with a hard limit on line length so a
 * hostile file cannot make us buffer without bound. Blank lines are skipped; each other line yields its
 * parsed value or the reason it could not be read.
 *
 * @module
 */
import { joinBytes } from '../bytes.js';

/** Default longest line: 8 MiB (a message is small; its media live elsewhere, by ref). */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

/** One non-blank line of a JSONL stream. */
export type JsonLine =
  | { line: number; ok: true; value: unknown }
  | { line: number; ok: false; code: 'INVALID_JSON' | 'LINE_TOO_LONG'; message: string };

/** Options of {@link readJsonLines}. */
export interface ReadJsonLinesOptions {
  /** Longest accepted line in bytes (without its line break); default 8 MiB. */
  maxLineBytes?: number;
}

const NEWLINE = 0x0a;
const decoder = new TextDecoder('utf-8', { fatal: true });

function parseLine(bytes: Uint8Array, line: number): JsonLine | undefined {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { line, ok: false, code: 'INVALID_JSON', message: `line ${line} is not valid UTF-8` };
  }
  if (text.trim() === '') return undefined;
  try {
    return { line, ok: true, value: JSON.parse(text) };
  } catch {
    // JSON.parse's message quotes the input; a line may hold private text, so it is not repeated.
    return { line, ok: false, code: 'INVALID_JSON', message: `line ${line} is not valid JSON` };
  }
}

/**
 * Reads a JSONL byte stream line by line (`\n` or `\r\n`), yielding each non-blank line's value or its
 * error. Lines longer than `maxLineBytes` are skipped (never buffered whole) and reported.
 *
 * @example
 * ```ts
 * for await (const entry of readJsonLines(response.body!)) {
 *   if (entry.ok) validator.push(entry.value);
 *   else validator.pushUnreadable(entry.code, entry.message);
 * }
 * ```
 */
export async function* readJsonLines(
  stream: ReadableStream<Uint8Array>,
  options: ReadJsonLinesOptions = {},
): AsyncGenerator<JsonLine> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const reader = stream.getReader();
  let parts: Uint8Array[] = [];
  let size = 0;
  let tooLong = false;
  let line = 1;

  const finish = (): JsonLine | undefined => {
    let result: JsonLine | undefined;
    if (tooLong) {
      result = {
        line,
        ok: false,
        code: 'LINE_TOO_LONG',
        message: `line ${line} is longer than ${maxLineBytes} bytes; it was skipped`,
      };
    } else {
      // One part needs no copy.
      let bytes = parts.length === 1 ? parts[0]! : joinBytes(parts);
      if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
      result =
        bytes.length > maxLineBytes
          ? {
              line,
              ok: false,
              code: 'LINE_TOO_LONG',
              message: `line ${line} is longer than ${maxLineBytes} bytes; it was skipped`,
            }
          : parseLine(bytes, line);
    }
    parts = [];
    size = 0;
    tooLong = false;
    line += 1;
    return result;
  };

  const append = (bytes: Uint8Array) => {
    if (tooLong || bytes.length === 0) return;
    // +1 allows the '\r' of a CRLF line ending.
    if (size + bytes.length > maxLineBytes + 1) {
      tooLong = true;
      parts = [];
      size = 0;
      return;
    }
    parts.push(bytes);
    size += bytes.length;
  };

  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let from = 0;
      for (;;) {
        const at = value.indexOf(NEWLINE, from);
        if (at === -1) break;
        append(value.subarray(from, at));
        const entry = finish();
        if (entry !== undefined) yield entry;
        from = at + 1;
      }
      // Copy the tail: the reader may reuse its buffer.
      append(value.slice(from));
    }
    if (size > 0 || tooLong) {
      const entry = finish();
      if (entry !== undefined) yield entry;
    }
  } finally {
    reader.releaseLock();
  }
}
