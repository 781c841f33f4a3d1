/**
 * What writing to a user-named output path means, decided once for every command and API that writes
 * one (`decrypt`, `encrypt`, `decryptFile`, `encryptFile` and their parallel forms, through
 * {@link writeFileAllOrNothing}): an existing path that is not a regular file is never replaced.
 *
 * | OUT is | what happens |
 * |---|---|
 * | absent, or a regular file | a private temp file beside it is renamed onto it when complete (all or nothing) |
 * | a symbolic link | its target is judged by these rules (a regular target is replaced, the link stays); a dangling link is refused |
 * | a character device (`/dev/null`, a terminal) or a FIFO, e.g. `/dev/stdout` | written through, like `-`: the output is completed and verified in a private temp file first, then copied in |
 * | a directory, a block device, a socket | refused (`ERR_DISK`), nothing written |
 *
 * Why: renaming a temp file over OUT replaces whatever OUT is. Run as root, `decrypt blob /dev/null`
 * replaced the device node with a plaintext file; `/dev/stdout` failed with `EACCES` as anyone else; a
 * FIFO lost its reader. Writing into a device or FIFO is what the user asked for; writing onto a block
 * device (a disk) is refused because the mistake would be unrecoverable, and `-` plus a redirection says
 * it explicitly when it is meant.
 *
 * {@link writeFileAllOrNothing} and {@link writeAfterCompletion} are exported from `happy-media/node`, so
 * an application's own outputs follow the same rules.
 *
 * @module
 */
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { lstat, open, realpath, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { DiskError, HappyMediaError } from '../../core/errors.js';
import { AtomicFileWriter } from './atomic-file.js';
import { diskError } from './disk-error.js';
import { createPrivateDirectory } from './private-dir.js';
import { PARTIAL_FILE_NAMES, sweepStaleOnce } from './sweep.js';

/** How an output path is written (see the module notes). */
export type OutputTarget =
  /** Atomic replacement of `path` (OUT itself, or the regular file a symbolic link points to). */
  | { kind: 'replace'; path: string }
  /** A character device or FIFO: written into after the output verified, never replaced. */
  | { kind: 'write-through'; path: string };

/** Prefix of the private directory that holds output before it is written through (an owner stamp follows). */
export const WRITE_THROUGH_DIR_PREFIX = 'happy-media-output-';

/** Bytes per read when copying verified output into its destination. */
const COPY_PIECE_BYTES = 1024 * 1024;

function refused(outPath: string, what: string, advice: string): DiskError {
  return new DiskError(`will not write to ${JSON.stringify(outPath)}: it is ${what}; ${advice}`);
}

/** The target for what `stat` (following links) says the path is, or the refusal. */
function targetFor(outPath: string, info: Stats, regularPath: () => Promise<string>): Promise<OutputTarget> {
  if (info.isFile()) return regularPath().then((path) => ({ kind: 'replace', path }));
  if (info.isCharacterDevice() || info.isFIFO())
    return Promise.resolve({ kind: 'write-through', path: outPath });
  if (info.isDirectory()) {
    return Promise.reject(refused(outPath, 'a directory', 'name a file inside it'));
  }
  if (info.isBlockDevice()) {
    return Promise.reject(
      refused(outPath, 'a block device (a disk)', 'write to - and redirect it there if you really mean to'),
    );
  }
  return Promise.reject(refused(outPath, 'a socket or other special file', 'name a regular file'));
}

/**
 * Decides how `outPath` is written: replaced atomically, written through, or refused.
 *
 * @throws {DiskError} `ERR_DISK` for a directory, block device, socket or dangling symbolic link, or
 *   when the path cannot be examined.
 * @example
 * ```ts
 * await resolveOutputTarget('/dev/null'); // { kind: 'write-through', path: '/dev/null' }
 * await resolveOutputTarget('clip.mp4');  // { kind: 'replace', path: 'clip.mp4' }
 * ```
 */
export async function resolveOutputTarget(outPath: string): Promise<OutputTarget> {
  let own: Stats;
  try {
    own = await lstat(outPath);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'replace', path: outPath };
    throw diskError('examine', cause, outPath);
  }
  if (!own.isSymbolicLink()) return targetFor(outPath, own, async () => outPath);
  let target: Stats;
  try {
    target = await stat(outPath);
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') {
      throw refused(outPath, 'a symbolic link to nothing', 'remove the link or name the file itself');
    }
    throw diskError('examine', cause, outPath);
  }
  // A link to a regular file: that file is replaced (the temp file goes beside it, on its file system).
  return targetFor(outPath, target, async () => {
    try {
      return await realpath(outPath);
    } catch (cause) {
      throw diskError('resolve the symbolic link', cause, outPath);
    }
  });
}

/**
 * Runs `fill(path)`, which must create the file `path` inside a fresh private directory (0700 under the
 * OS temp dir), then hands that file to `write` piece by piece and removes the directory. Nothing reaches
 * `write` unless `fill` resolved: a failed or unverified output is never written anywhere. This is how
 * output that cannot be taken back (stdout, a device, a FIFO) is written.
 *
 * @throws whatever `fill` or `write` throws; {@link DiskError} for file-system failures.
 * @example
 * ```ts
 * await writeAfterCompletion((temp) => decryptFile(blob, temp, key, { context }), writeStdout);
 * ```
 */
export async function writeAfterCompletion(
  fill: (path: string) => Promise<void>,
  write: (piece: Uint8Array) => Promise<void>,
): Promise<void> {
  const dir = await createPrivateDirectory(tmpdir(), WRITE_THROUGH_DIR_PREFIX);
  try {
    const path = join(dir.path, 'output');
    await fill(path);
    await copyPieces(path, write);
  } finally {
    await dir.remove();
  }
}

/** `fill` run against a private temp file in `path`'s (private) directory, renamed to `path` when it resolves. */
async function fillPrivateFile(
  path: string,
  fill: (writer: AtomicFileWriter) => Promise<void>,
): Promise<void> {
  const writer = await AtomicFileWriter.create(dirname(path), { sync: false });
  try {
    await fill(writer);
  } catch (error) {
    await writer.abort();
    throw error;
  }
  await writer.commit(path);
}

async function copyPieces(path: string, write: (piece: Uint8Array) => Promise<void>): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (cause) {
    throw diskError('read', cause, path);
  }
  try {
    for (;;) {
      // A fresh buffer per piece: `write` may keep it (a stream queues what it was given).
      const buffer = new Uint8Array(COPY_PIECE_BYTES);
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.read(buffer, 0, buffer.length, null));
      } catch (cause) {
        throw diskError('read', cause, path);
      }
      if (bytesRead === 0) return;
      await write(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
}

/**
 * Completes the output in a private temp file, then writes it into the device or FIFO `path` (opened
 * for writing only, never created, truncated or replaced).
 *
 * @throws {DiskError} `ERR_DISK` when `path` cannot be opened or written (e.g. `ENOSPC` from `/dev/full`).
 */
export async function writeThrough(
  path: string,
  fill: (writer: AtomicFileWriter) => Promise<void>,
): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    await writeAfterCompletion(
      (temp) => fillPrivateFile(temp, fill),
      async (piece) => {
        try {
          // Opened only once there is verified output: a FIFO's reader sees nothing of a failed run.
          handle ??= await open(path, constants.O_WRONLY | constants.O_NOCTTY);
          let at = 0;
          while (at < piece.length) {
            const { bytesWritten } = await handle.write(piece, at, piece.length - at);
            at += bytesWritten;
          }
        } catch (cause) {
          throw cause instanceof HappyMediaError ? cause : diskError('write to', cause, path);
        }
      },
    );
    if (handle === undefined) {
      // An empty output still opens (and so "touches") the destination, as a redirection would.
      try {
        handle = await open(path, constants.O_WRONLY | constants.O_NOCTTY);
      } catch (cause) {
        throw diskError('write to', cause, path);
      }
    }
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Writes a user-named output path: runs `fill(writer)` against a private temp file and publishes the
 * result only if `fill` resolves. Every command and API that writes a path the user named goes through
 * here, so each follows the rules of {@link resolveOutputTarget}:
 * - absent or a regular file (also through a symbolic link): the temp file (0600) is created beside it
 *   and renamed onto it; after a failure OUT is untouched (absent, or its earlier content);
 * - a character device or FIFO (`/dev/null`, `/dev/stdout`, a named pipe): the output is completed in a
 *   private temp file first and then written into it, never replacing it;
 * - a directory, block device, socket or dangling link: refused before `fill` runs.
 * The first write into a directory in this process also sweeps that directory of `.partial` leftovers
 * of dead processes.
 *
 * @throws whatever `fill` throws (the temp file is removed first); {@link DiskError} `ERR_DISK` for a
 *   refused OUT and file-system failures.
 * @example
 * ```ts
 * await writeFileAllOrNothing('clip.mp4', async (out) => { for await (const b of plain) await out.write(b); });
 * ```
 */
export async function writeFileAllOrNothing(
  outPath: string,
  fill: (writer: AtomicFileWriter) => Promise<void>,
): Promise<void> {
  const target = await resolveOutputTarget(outPath);
  if (target.kind === 'write-through') {
    await writeThrough(target.path, wrapped(fill, outPath));
    return;
  }
  const dir = dirname(target.path);
  sweepStaleOnce(dir, PARTIAL_FILE_NAMES);
  const writer = await AtomicFileWriter.create(dir, { label: basename(target.path), record: true });
  try {
    await wrapped(fill, outPath)(writer);
  } catch (error) {
    await writer.abort();
    throw error;
  }
  await writer.commit(target.path);
}

/** `fill` with any failure that is not a library error reported as a disk error on `outPath`. */
function wrapped(
  fill: (writer: AtomicFileWriter) => Promise<void>,
  outPath: string,
): (writer: AtomicFileWriter) => Promise<void> {
  return async (writer) => {
    try {
      await fill(writer);
    } catch (error) {
      throw error instanceof HappyMediaError ? error : diskError('write', error, outPath);
    }
  };
}
