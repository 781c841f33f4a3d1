/**
 * A file read as `tail -F` reads it, for `happy-media map --follow`: from its start, then whatever is
 * written to it, until the signal aborts. It survives what happens to logs while they grow, saying so
 * on stderr (through `onNote`):
 *
 * - **truncated** (smaller than what was read: `> log`, logrotate's copytruncate): read again from its
 *   start;
 * - **replaced** (another file under the name: logrotate's rename and create, an editor's save): the old
 *   file is read to its end, then the new one from its start;
 * - **removed**: waited for until a file appears under the name again.
 *
 * A line cut short by a truncation or a replacement is ended there (a line break is inserted), so it is
 * counted as unreadable instead of running into the next file's first line.
 *
 * @module
 */
import type { FileHandle } from 'node:fs/promises';
import { open, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { HappyMediaError } from '../node/index.js';
import { NOT_A_REGULAR_FILE, readFailureReason, unreadableInput } from './file-errors.js';

/** How often a file at its end is looked at again (ms). */
export const FOLLOW_POLL_MS = 100;
/** Bytes read at a time. */
const READ_BYTES = 256 * 1024;
const LINE_BREAK = new Uint8Array([0x0a]);

/** Options of {@link followFile}. */
export interface FollowOptions {
  /** Ends the stream (it closes; the file is closed). */
  signal: AbortSignal;
  /** Told what happened to the file, as a sentence. */
  onNote: (note: string) => void;
  /** How often to look again at the end of the file (default {@link FOLLOW_POLL_MS}). */
  pollMs?: number;
}

interface Opened {
  handle: FileHandle;
  dev: number;
  ino: number;
}

/** Opens `path` for reading, or says why it cannot be read. */
async function openRegular(path: string): Promise<Opened> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, 'r');
    const info = await handle.stat();
    if (!info.isFile()) throw unreadableInput(path, NOT_A_REGULAR_FILE);
    return { handle, dev: info.dev, ino: info.ino };
  } catch (error) {
    await handle?.close().catch(() => {});
    if (error instanceof HappyMediaError) throw error;
    throw unreadableInput(path, readFailureReason(error), error);
  }
}

/**
 * The bytes of `path` as it grows, as a stream that ends only when `signal` aborts.
 *
 * @throws {ProbeError} `ERR_UNREADABLE_INPUT` (at once) when the file cannot be opened or is not a
 *   regular file.
 * @example
 * ```ts
 * const stream = await followFile('session.jsonl', { signal, onNote: (note) => console.error(note) });
 * ```
 */
export async function followFile(path: string, options: FollowOptions): Promise<ReadableStream<Uint8Array>> {
  const { signal, onNote } = options;
  const pollMs = options.pollMs ?? FOLLOW_POLL_MS;
  let current: Opened | undefined = await openRegular(path);
  let position = 0;
  let announcedGone = false;
  const buffer = new Uint8Array(READ_BYTES);
  const close = async () => {
    const closing = current;
    current = undefined;
    await closing?.handle.close().catch(() => {});
  };
  const wait = async () => {
    try {
      await sleep(pollMs, undefined, { signal });
    } catch {
      // Aborted: the next turn of the loop ends the stream.
    }
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (signal.aborted) {
          await close();
          controller.close();
          return;
        }
        if (!current) {
          const info = await stat(path).catch(() => undefined);
          if (info?.isFile()) {
            current = await openRegular(path).catch(() => undefined);
            position = 0;
            announcedGone = false;
          }
          if (!current) {
            await wait();
            continue;
          }
        }
        const { bytesRead } = await current.handle.read(buffer, 0, buffer.length, position);
        if (bytesRead > 0) {
          position += bytesRead;
          controller.enqueue(buffer.slice(0, bytesRead));
          return;
        }
        // At the end of what is there: has the file been truncated, replaced or removed meanwhile?
        const own = await current.handle.stat();
        if (own.size < position) {
          onNote(`${path} was truncated (${position} → ${own.size} bytes): reading it again from its start`);
          position = 0;
          controller.enqueue(LINE_BREAK);
          return;
        }
        const named = await stat(path).catch(() => undefined);
        if (named && (named.ino !== current.ino || named.dev !== current.dev)) {
          onNote(`${path} was replaced by a new file (rotated): reading the new one from its start`);
          await close();
          controller.enqueue(LINE_BREAK);
          return;
        }
        if (!named && !announcedGone) {
          announcedGone = true;
          onNote(`${path} was removed: waiting for a file under that name`);
        }
        await wait();
      }
    },
    cancel: close,
  });
}
