/**
 * The input file of a command that reads a stream: a path, or `-` for stdin, as a Web byte stream.
 *
 * @module
 */
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { HappyMediaError } from '../index.js';
import { NOT_A_REGULAR_FILE, readFailureReason, unreadableInput } from './file-errors.js';

/**
 * Opens `file` (`-`: stdin) for reading.
 *
 * @throws {ProbeError} `ERR_UNREADABLE_INPUT` when it cannot be opened or is not a regular file.
 */
export async function openInput(
  file: string,
): Promise<{ stream: ReadableStream<Uint8Array>; close: () => Promise<void> }> {
  if (file === '-') {
    return { stream: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>, close: async () => {} };
  }
  try {
    const handle = await open(file, 'r');
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      throw unreadableInput(file, NOT_A_REGULAR_FILE);
    }
    return {
      stream: Readable.toWeb(handle.createReadStream({ autoClose: false })) as ReadableStream<Uint8Array>,
      close: () => handle.close(),
    };
  } catch (error) {
    if (error instanceof HappyMediaError) throw error;
    throw unreadableInput(file, readFailureReason(error), error);
  }
}
