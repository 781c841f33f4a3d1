/**
 * Reads a command's JSON input from a file or stdin (`-`), with a size limit, since an envelope or a
 * message is small and a huge input is a mistake.
 *
 * @module
 */
import { open } from 'node:fs/promises';
import { FormatError, LimitError } from '../errors.js';
import { NOT_A_REGULAR_FILE, readFailureReason, unreadableInput } from './file-errors.js';

/** Default limit of {@link readInputText}: 64 MiB, far above any message Happy sends. */
export const DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024;

async function collect(
  chunks: AsyncIterable<Uint8Array | string>,
  maxBytes: number,
  label: string,
): Promise<string> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    const buffer =
      typeof chunk === 'string'
        ? Buffer.from(chunk)
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    total += buffer.length;
    if (total > maxBytes) {
      throw new LimitError(`expected at most ${maxBytes} bytes on ${label} but received more`);
    }
    parts.push(buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * The whole text of `file`, or of stdin when `file` is `-`.
 *
 * @throws {ProbeError} `ERR_UNREADABLE_INPUT` when the file cannot be read.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` above `maxBytes`.
 */
export async function readInputText(file: string, maxBytes = DEFAULT_MAX_INPUT_BYTES): Promise<string> {
  if (file === '-') return collect(process.stdin, maxBytes, 'stdin');
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw unreadableInput(file, readFailureReason(error), error);
  }
  try {
    if (!(await handle.stat()).isFile()) {
      throw unreadableInput(file, NOT_A_REGULAR_FILE);
    }
    return await collect(handle.createReadStream({ autoClose: false }), maxBytes, `"${file}"`);
  } finally {
    await handle.close();
  }
}

/**
 * The one JSON value in `file` (or stdin for `-`).
 *
 * @throws {FormatError} `ERR_FORMAT` when it is not JSON (the message does not quote the input, which
 * may be a secret).
 * @throws {ProbeError} `ERR_UNREADABLE_INPUT` / {@link LimitError} as {@link readInputText}.
 */
export async function readJsonInput(file: string, maxBytes = DEFAULT_MAX_INPUT_BYTES): Promise<unknown> {
  const text = await readInputText(file, maxBytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new FormatError(
      `expected one JSON value on ${file === '-' ? 'stdin' : `"${file}"`} but it is not valid JSON`,
    );
  }
}
