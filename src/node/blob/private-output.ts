/**
 * All-or-nothing output files: data goes to a private temp file beside the destination (mode 0600,
 * created exclusively), which is fsynced and renamed over the destination only when the whole job
 * succeeded. After a failure the temp file is removed and the destination is untouched, so a failed
 * decryption leaves no file behind.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { DiskError, HappyMediaError } from '../../core/errors.js';

/** Turns a file-system failure into a {@link DiskError} naming the path (paths are not secrets). */
export function diskError(action: string, path: string, cause: unknown): HappyMediaError {
  if (cause instanceof HappyMediaError) return cause;
  const code = (cause as { code?: string } | null)?.code;
  return new DiskError(`could not ${action} ${JSON.stringify(path)}${code ? ` (${code})` : ''}`, { cause });
}

/** Private temp path beside `outPath` (same directory, so the final rename is atomic). */
function tempPathBeside(outPath: string): string {
  return join(dirname(outPath), `.${basename(outPath)}.${randomBytes(6).toString('hex')}.partial`);
}

/**
 * Runs `write(handle)` against a private temp file and moves it to `outPath` only if it resolves.
 *
 * @throws whatever `write` throws (the temp file is removed first); {@link DiskError} for file-system
 * failures.
 */
export async function writeFileAllOrNothing(
  outPath: string,
  write: (handle: FileHandle) => Promise<void>,
): Promise<void> {
  const tempPath = tempPathBeside(outPath);
  let handle: FileHandle;
  try {
    handle = await open(tempPath, 'wx', 0o600);
  } catch (cause) {
    throw diskError('create a temporary file beside', outPath, cause);
  }
  try {
    await write(handle);
    await handle.sync();
    await handle.close();
    await rename(tempPath, outPath);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(tempPath).catch(() => undefined);
    throw error instanceof HappyMediaError ? error : diskError('write', outPath, error);
  }
}

/** Writes all of `bytes` at the handle's current position. */
export async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let at = 0;
  while (at < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, at, bytes.length - at);
    at += bytesWritten;
  }
}
