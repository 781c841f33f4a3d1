/**
 * Byte helpers and the one place where inputs are checked.
 *
 * Every check phrases its failure the same way: "expected X for `name` but received Y". Callers pass the
 * parameter's name so the message points at the right argument. Views at non-zero offsets are normal
 * `Uint8Array`s here: nothing assumes `byteOffset === 0`.
 *
 * @module
 */

import { FormatError, InvalidArgumentError } from './errors.js';
import { getRuntime } from './runtime/runtime.js';

/** Describes a received value for an error message without ever printing its contents. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing (undefined)';
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Checks that `value` is a `Uint8Array` (optionally of an exact length) and returns it.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when the type or length is wrong.
 * @example
 * ```ts
 * assertBytes(key, 'key', 32); // "expected a 32-byte key for `key` but received 31 bytes"
 * ```
 */
export function assertBytes(value: unknown, name: string, length?: number): Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new InvalidArgumentError(
      `expected ${length === undefined ? 'a Uint8Array' : `a ${length}-byte Uint8Array`} for \`${name}\` but received ${describeValue(value)}`,
    );
  }
  if (length !== undefined && value.length !== length) {
    throw new InvalidArgumentError(
      `expected a ${length}-byte ${name.toLowerCase().includes('key') ? 'key' : 'value'} for \`${name}\` but received ${value.length} bytes`,
    );
  }
  return value;
}

/**
 * Checks that `value` is a safe non-negative integer (optionally at most `max`) and returns it.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` otherwise.
 */
export function assertNonNegativeInteger(
  value: unknown,
  name: string,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new InvalidArgumentError(
      `expected a non-negative integer${max < Number.MAX_SAFE_INTEGER ? ` at most ${max}` : ''} for \`${name}\` but received ${typeof value === 'number' ? String(value) : describeValue(value)}`,
    );
  }
  return value;
}

/** Concatenates byte arrays into a new one. For a list of any length, use {@link joinBytes}. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return joinBytes(parts);
}

/**
 * Concatenates a list of byte arrays into a new one. Unlike spreading a list into {@link concatBytes},
 * this works for any number of parts (a stream read byte by byte yields millions).
 *
 * @example
 * ```ts
 * const whole = joinBytes(pieces);
 * ```
 */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * `bytes` as a stream of one chunk (of none when empty), for an API that reads a stream: bytes held in
 * memory sent like a file. The array itself is enqueued, not a copy.
 *
 * @example
 * ```ts
 * const body = bytesStream(photo).pipeThrough(createEncryptStream(blobKey));
 * ```
 */
export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** Constant-time comparison of two byte arrays of equal length (false when lengths differ). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/**
 * Encodes bytes as standard base64 with `=` padding (Happy's wire encoding).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `bytes` is not a Uint8Array.
 */
export function toBase64(bytes: Uint8Array): string {
  assertBytes(bytes, 'bytes');
  return getRuntime().base64.encode(bytes);
}

/**
 * Decodes standard padded base64, strictly: any other alphabet, missing padding or stray characters is
 * rejected.
 *
 * @throws {FormatError} `ERR_FORMAT` when `text` is not valid standard base64.
 */
export function fromBase64(text: string, name = 'value'): Uint8Array {
  return decodeBase64(text, name, false);
}

/**
 * {@link fromBase64} for bytes that are read and dropped inside the calling function (never returned): the
 * result may be a view into memory shared with other short-lived bytes (see `Base64Codec.decodeShared`).
 *
 * @internal
 * @throws {FormatError} `ERR_FORMAT` when `text` is not valid standard base64.
 */
export function fromBase64Scratch(text: string, name = 'value'): Uint8Array {
  return decodeBase64(text, name, true);
}

function decodeBase64(text: string, name: string, shared: boolean): Uint8Array {
  if (typeof text !== 'string') {
    throw new InvalidArgumentError(
      `expected a base64 string for \`${name}\` but received ${describeValue(text)}`,
    );
  }
  try {
    const codec = getRuntime().base64;
    return shared && codec.decodeShared ? codec.decodeShared(text) : codec.decode(text);
  } catch {
    // The decoder's error quotes the offending character, and the text may be a key: not kept as cause.
    throw new FormatError(`expected standard padded base64 for \`${name}\` but it could not be decoded`);
  }
}

/**
 * Encodes bytes as lower-case hex.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `bytes` is not a Uint8Array.
 */
export function toHex(bytes: Uint8Array): string {
  assertBytes(bytes, 'bytes');
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/**
 * Decodes hex (either case, even length).
 *
 * @throws {FormatError} `ERR_FORMAT` on odd length or a non-hex character.
 */
export function fromHex(text: string, name = 'value'): Uint8Array {
  if (typeof text !== 'string' || text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) {
    throw new FormatError(`expected an even-length hex string for \`${name}\``);
  }
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 encodes a string. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Decodes UTF-8 strictly.
 *
 * @throws {FormatError} `ERR_FORMAT` on invalid UTF-8.
 */
export function fromUtf8(bytes: Uint8Array, name = 'value'): string {
  try {
    return strictDecoder.decode(bytes);
  } catch (cause) {
    throw new FormatError(`expected UTF-8 text for \`${name}\` but it is not valid UTF-8`, { cause });
  }
}

/** Fills a new array with cryptographically secure random bytes (WebCrypto, present in Node 20+, browsers, RN with a polyfill). */
export function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  // getRandomValues is limited to 65536 bytes per call.
  for (let at = 0; at < length; at += 65536) {
    globalThis.crypto.getRandomValues(out.subarray(at, Math.min(length, at + 65536)));
  }
  return out;
}
