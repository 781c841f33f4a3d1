/**
 * `map`'s input: JSON Lines, or one JSON array (Happy's app traces), streamed either way. A JSON array
 * is cut into its elements as the bytes come (a scanner tracks strings and bracket depth; each element
 * is parsed on its own), so an input of any length is read in memory bounded by its longest element,
 * never whole. An element longer than the limit is skipped and reported, as a long line is.
 *
 * @module
 */
import { type JsonLine, readJsonLines } from '../index.js';

const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

const decoder = new TextDecoder('utf-8', { fatal: true });

function isBlank(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** A stream of `head` then what `reader` still holds. */
function rejoined(
  head: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of head) if (chunk.length > 0) controller.enqueue(chunk);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * The values of `stream`: the elements of one JSON array when its first non-blank byte is `[`, else
 * its JSON Lines. What follows a closed array (when the input was not one array after all) is read as
 * JSON Lines. Each entry is a value or the reason it could not be read (`line` numbers the elements of
 * an array).
 */
export async function* readJsonInput(
  stream: ReadableStream<Uint8Array>,
  options: { maxItemBytes: number },
): AsyncGenerator<JsonLine> {
  const reader = stream.getReader();
  const head: Uint8Array[] = [];
  let first: number | undefined;
  while (first === undefined) {
    const { done, value } = await reader.read();
    if (done) break;
    head.push(value);
    first = value.find((byte) => !isBlank(byte));
  }
  if (first !== OPEN_ARRAY) {
    yield* readJsonLines(rejoined(head, reader), { maxLineBytes: options.maxItemBytes });
    return;
  }
  yield* readArray(rejoined(head, reader), options.maxItemBytes);
}

/** The elements of the array `stream` begins with, then its rest as JSON Lines. */
async function* readArray(
  stream: ReadableStream<Uint8Array>,
  maxItemBytes: number,
): AsyncGenerator<JsonLine> {
  const reader = stream.getReader();
  let depth = 0;
  let inString = false;
  let escaped = false;
  let parts: Uint8Array[] = [];
  let size = 0;
  let tooLong = false;
  let started = false;
  let element = 1;

  const keep = (bytes: Uint8Array): void => {
    if (tooLong || bytes.length === 0) return;
    if (size + bytes.length > maxItemBytes) {
      tooLong = true;
      parts = [];
      return;
    }
    parts.push(bytes);
    size += bytes.length;
  };
  const finish = (): JsonLine | undefined => {
    const entry = started ? parseElement(parts, element, tooLong, maxItemBytes) : undefined;
    if (started) element += 1;
    parts = [];
    size = 0;
    tooLong = false;
    started = false;
    return entry;
  };

  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    // Where the element being read begins in this chunk (-1: not in one).
    let from = started ? 0 : -1;
    for (let i = 0; i < value.length; i++) {
      const byte = value[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
        continue;
      }
      if (depth === 1 && (byte === COMMA || byte === CLOSE_ARRAY)) {
        if (from >= 0) keep(value.subarray(from, i));
        from = -1;
        const entry = finish();
        if (entry !== undefined) yield entry;
        if (byte === CLOSE_ARRAY) {
          depth = 0;
          // Anything but blanks after the array: it was not one array, and the rest is read as lines.
          const rest = value.subarray(i + 1);
          const nonBlank = rest.findIndex((b) => !isBlank(b));
          if (nonBlank >= 0) {
            yield* readJsonLines(rejoined([rest.slice(nonBlank)], reader), { maxLineBytes: maxItemBytes });
            return;
          }
          yield* readTrailing(reader, maxItemBytes);
          return;
        }
        continue;
      }
      if (depth >= 1 && !started && !isBlank(byte)) {
        started = true;
        from = i;
      }
      if (byte === QUOTE) inString = true;
      else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) depth += 1;
      else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth -= 1;
    }
    // The element goes on in the next chunk: keep a copy of its part here (the reader may reuse its buffer).
    if (from >= 0 && !tooLong) keep(value.slice(from));
  }
  // The input ended inside the array (a trace cut before its closing bracket): its last element, if whole.
  const entry = finish();
  if (entry !== undefined) yield entry;
}

/** After a closed array, only blanks: anything else is read as JSON Lines. */
async function* readTrailing(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxItemBytes: number,
): AsyncGenerator<JsonLine> {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    const nonBlank = value.findIndex((b) => !isBlank(b));
    if (nonBlank >= 0) {
      yield* readJsonLines(rejoined([value.slice(nonBlank)], reader), { maxLineBytes: maxItemBytes });
      return;
    }
  }
}

function parseElement(
  parts: Uint8Array[],
  element: number,
  tooLong: boolean,
  maxItemBytes: number,
): JsonLine {
  if (tooLong) {
    return {
      line: element,
      ok: false,
      code: 'LINE_TOO_LONG',
      message: `element ${element} of the array is longer than ${maxItemBytes} bytes; it was skipped`,
    };
  }
  try {
    const text = decoder.decode(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    return { line: element, ok: true, value: JSON.parse(text) };
  } catch {
    // JSON.parse's message quotes the input, which may be private: it is not repeated.
    return {
      line: element,
      ok: false,
      code: 'INVALID_JSON',
      message: `element ${element} of the array is not valid JSON`,
    };
  }
}
