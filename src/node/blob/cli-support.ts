/**
 * What the `encrypt` and `decrypt` commands share: key sources that keep keys out of argv, option
 * parsing with usage errors, and stdin/stdout plumbing with backpressure.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fromBase64, fromHex } from '../../core/bytes.js';
import { LimitError, UsageError } from '../../core/errors.js';
import { diskError } from './private-output.js';

/** Key-related CLI options. */
export interface KeyOptions {
  /** `--key`: base64 key on the command line. */
  key?: string;
  /** `--key-file`: path of a file holding the key. */
  keyFile?: string;
}

/** Name of the environment variable that may hold the base64 key. */
export const KEY_ENV = 'HAPPY_MEDIA_KEY';

/** Decodes a base64 key and checks it is 32 bytes, without ever echoing it. */
function decodeKey(text: string, where: string): Uint8Array {
  let key: Uint8Array;
  try {
    key = fromBase64(text.trim(), where);
  } catch {
    throw new UsageError(`expected a standard base64 key in ${where} but it could not be decoded`);
  }
  if (key.length !== 32) {
    throw new UsageError(`expected a 32-byte key in ${where} but received ${key.length} bytes`);
  }
  return key;
}

/**
 * The key from `--key`, `--key-file` (base64 text, or exactly 32 raw bytes) or `$HAPPY_MEDIA_KEY`, in
 * that order; exactly one of the two flags may be given.
 *
 * @throws {UsageError} when no key or two keys are given, or the key is not 32 bytes of base64.
 */
export async function resolveCliKey(options: KeyOptions): Promise<Uint8Array> {
  if (options.key !== undefined && options.keyFile !== undefined) {
    throw new UsageError('give the key once: either --key or --key-file');
  }
  if (options.key !== undefined) return decodeKey(options.key, '--key');
  if (options.keyFile !== undefined) {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(options.keyFile);
    } catch (cause) {
      throw diskError('read the key file', options.keyFile, cause);
    }
    if (bytes.length === 32) return new Uint8Array(bytes);
    return decodeKey(new TextDecoder().decode(bytes), '--key-file');
  }
  const fromEnv = process.env[KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return decodeKey(fromEnv, `$${KEY_ENV}`);
  throw new UsageError(`a key is required: --key B64, --key-file PATH or $${KEY_ENV}`);
}

/** Parses `--context-hex` (may be empty: the empty context). @throws {UsageError} for bad hex. */
export function parseContextHex(text: string | undefined): Uint8Array | undefined {
  if (text === undefined) return undefined;
  try {
    return fromHex(text, '--context-hex');
  } catch {
    throw new UsageError('expected an even-length hex string for --context-hex');
  }
}

/** Blob formats the commands speak. */
export type CliBlobFormat = 'v2' | 'v1';

/** Parses `--format`. @throws {UsageError} for anything but v2 or v1. */
export function parseFormat(text: string | undefined): CliBlobFormat {
  if (text === undefined || text === 'v2' || text === 'v1') return text ?? 'v2';
  throw new UsageError(`expected v2 or v1 for --format but received ${JSON.stringify(text)}`);
}

/** Parses a non-negative integer option. @throws {UsageError} otherwise. */
export function parseByteCount(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new UsageError(`expected a non-negative integer for ${flag} but received ${JSON.stringify(text)}`);
  }
  return value;
}

/** The input as an async iterable of bytes: stdin for `-`, else the file in 1 MiB pieces. */
export function inputPieces(path: string): AsyncIterable<Uint8Array> {
  if (path === '-') return process.stdin;
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  return (async function* () {
    try {
      for await (const piece of stream) yield piece as Uint8Array;
    } catch (cause) {
      throw diskError('read', path, cause);
    }
  })();
}

/**
 * Reads a whole input, refusing more than `maxBytes` (v1 blobs are whole-buffer by design).
 *
 * @throws {LimitError} past `maxBytes`.
 */
export async function readWholeInput(path: string, maxBytes: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const piece of inputPieces(path)) {
    total += piece.length;
    if (total > maxBytes) {
      throw new LimitError(
        `the input is larger than ${maxBytes} bytes, the most a v1 blob may hold; use --format v2`,
      );
    }
    parts.push(piece);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Writes to stdout and waits for it to drain when its buffer is full (bounded memory). */
export async function writeStdout(bytes: Uint8Array): Promise<void> {
  // events.once rejects if stdout errors (e.g. EPIPE) while we wait.
  if (!process.stdout.write(bytes)) await once(process.stdout, 'drain');
}

/** Copies a file to stdout piece by piece. */
export async function copyFileToStdout(path: string): Promise<void> {
  for await (const piece of inputPieces(path)) await writeStdout(piece);
}
