/**
 * What the `encrypt` and `decrypt` commands share: option parsing with usage errors, and stdin/stdout
 * plumbing with backpressure. Their keys come from `key-source.ts`, as for every command.
 *
 * @module
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { mediaBlobContext, unboundBlobContext } from '../blob.js';
import { LimitError } from '../errors.js';
import { PARALLEL_FILE_THRESHOLD } from '../node/index.js';
import { diskError } from './file-errors.js';
import { parseIntegerFlag } from './integer-flag.js';
import { KEY_ENV_VARIABLE } from './key-source.js';
import { UsageError } from './usage-error.js';

/** Parses `--context-hex` (may be empty: the empty context). @throws {UsageError} for bad hex. */
export function parseContextHex(text: string | undefined): Uint8Array | undefined {
  if (text === undefined) return undefined;
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) {
    throw new UsageError('expected an even-length hex string for --context-hex');
  }
  return new Uint8Array(Buffer.from(text, 'hex'));
}

/** Blob formats the commands speak. */
export type CliBlobFormat = 'v2' | 'v1';

/** Parses `--format`. @throws {UsageError} for anything but v2 or v1. */
export function parseFormat(text: string | undefined): CliBlobFormat {
  if (text === undefined || text === 'v2' || text === 'v1') return text ?? 'v2';
  throw new UsageError(`expected v2 or v1 for --format but received ${JSON.stringify(text)}`);
}

/** The flags `encrypt` and `decrypt` both take. */
export interface BlobCommandFlags {
  key?: string;
  keyFile?: string;
  contextHex?: string;
  ref?: string;
  format?: string;
  threads?: string;
}

/** Adds the options `encrypt` and `decrypt` both take: the key, `--ref`, `--context-hex` and `--format`. */
export function addBlobOptions(command: Command): Command {
  return command
    .option(
      '--key <b64>',
      `32-byte blob key, base64 (prefer --key-file or $${KEY_ENV_VARIABLE}: argv is visible to other users)`,
    )
    .option('--key-file <path>', 'file holding the key (base64 text or 32 raw bytes)')
    .option(
      '--ref <media/id>',
      'bind the blob to the ref it is stored under (v2 only): a blob for a store, as send makes them and play reads them',
    )
    .option(
      '--context-hex <hex>',
      'context string in hex, for other uses of the format (v2 only; default without --ref: bound to no ref, "happy-media blob v2")',
    )
    .option('--format <v2|v1>', 'blob format', 'v2')
    .option(
      '--threads <n>',
      'worker threads for v2 file to file (default: all cores for files of 64 MiB or more, else 1)',
    );
}

/**
 * How many threads a v2 file → file job gets: `--threads` when given, else every core for a regular file
 * of at least {@link PARALLEL_FILE_THRESHOLD} bytes (starting workers costs tens of milliseconds, which
 * only large files repay), else 1 (the single-thread engine). stdin, or output streamed to stdout, always
 * uses one (`outIsFile` false); `decrypt ... -` verifies into a temp file first, so its output is a file.
 *
 * @throws {UsageError} for a `--threads` that is not an integer from 1 to 64.
 */
export async function chooseThreads(
  flags: BlobCommandFlags,
  inPath: string,
  outIsFile: boolean,
): Promise<number> {
  if (flags.threads !== undefined) {
    const threads = parseIntegerFlag(flags.threads, '--threads', { min: 1, max: 64 });
    return inPath === '-' || !outIsFile ? 1 : threads;
  }
  if (inPath === '-' || !outIsFile) return 1;
  const info = await stat(inPath).catch(() => undefined);
  return info?.isFile() && info.size >= PARALLEL_FILE_THRESHOLD ? Math.min(8, availableParallelism()) : 1;
}

/**
 * Parses `--format`, `--ref` and `--context-hex` together into the blob's context: `--ref REF` binds a
 * v2 blob to the ref it is stored under (`mediaBlobContext`), `--context-hex` names other bytes, and
 * without either the blob is bound to no ref (`unboundBlobContext()`: a standalone file; a blob made
 * so plays from no store). v1 blobs (Happy's fixed format) have no context.
 *
 * @throws {UsageError} for a bad value, `--ref` and `--context-hex` together, or either with `--format v1`.
 */
export function parseBlobFormatFlags(
  flags: BlobCommandFlags,
): { format: 'v1' } | { format: 'v2'; context: Uint8Array } {
  const format = parseFormat(flags.format);
  const hex = parseContextHex(flags.contextHex);
  if (flags.ref !== undefined && hex !== undefined) {
    throw new UsageError('expected one of --ref and --context-hex but received both');
  }
  if (format === 'v1') {
    if (hex !== undefined) throw new UsageError('--context-hex applies to --format v2 only');
    if (flags.ref !== undefined) {
      throw new UsageError(
        "--ref applies to --format v2 only: a v1 blob (Happy's fixed format) cannot be bound to a ref",
      );
    }
    return { format };
  }
  if (flags.ref !== undefined) {
    try {
      return { format, context: mediaBlobContext(flags.ref) };
    } catch (cause) {
      throw new UsageError(
        `expected a media/<id> ref for --ref but received ${JSON.stringify(flags.ref.slice(0, 80))}`,
        { cause },
      );
    }
  }
  return { format, context: hex ?? unboundBlobContext() };
}

/** Bytes per piece read from an input file (as `encryptFile` reads one). */
const READ_PIECE_BYTES = 1024 * 1024;

/**
 * The input as an async iterable of bytes: stdin for `-`, else the file in 1 MiB pieces, each its own
 * buffer (a stream may queue it).
 *
 * @throws {DiskError} `ERR_DISK` when the file cannot be read.
 */
export async function* inputPieces(path: string): AsyncIterable<Uint8Array> {
  if (path === '-') {
    yield* process.stdin;
    return;
  }
  try {
    yield* createReadStream(path, { highWaterMark: READ_PIECE_BYTES });
  } catch (cause) {
    throw diskError('read', cause, path);
  }
}

/**
 * Streams `input` through `transform` (a blob stream of the Node entry) into `write`, piece by piece,
 * waiting for each write (bounded memory); the first error of any of them ends all three.
 *
 * @throws what `input`, `transform` or `write` throws, as it threw it.
 */
export async function streamThrough(
  input: AsyncIterable<Uint8Array>,
  transform: Transform,
  write: (bytes: Uint8Array) => Promise<void>,
): Promise<void> {
  await pipeline(input, transform, async (output: AsyncIterable<Uint8Array>) => {
    for await (const piece of output) await write(piece);
  });
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
  return Buffer.concat(parts, total);
}

/**
 * Writes to stdout and waits for it to drain when its buffer is full (bounded memory).
 *
 * @throws {DiskError} `ERR_DISK` when stdout cannot take the bytes (`ENOSPC` from `> /dev/full`, `EIO`).
 *   A reader that went away (`EPIPE`) ends the CLI quietly instead (`bin.ts`).
 */
export async function writeStdout(bytes: Uint8Array): Promise<void> {
  if (!process.stdout.write(bytes)) {
    try {
      // events.once rejects if stdout errors (e.g. ENOSPC) while we wait.
      await once(process.stdout, 'drain');
    } catch (cause) {
      throw diskError('write to stdout', cause);
    }
  }
}
