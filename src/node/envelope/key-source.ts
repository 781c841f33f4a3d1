/**
 * Where a command-line key comes from: `--key B64`, `--key-file PATH` or the environment variable
 * `HAPPY_MEDIA_KEY`, in that order. `--key` puts the key in the process's argv (visible to other users
 * through `ps` on shared machines), so the other two exist to keep it out.
 *
 * Every problem with the key is bad usage (`ERR_USAGE`, exit status 2), and no message ever contains
 * the key or the file's contents.
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { fromBase64 } from '../../core/bytes.js';
import { KEY_BYTES } from '../../core/envelope/index.js';
import { UsageError } from '../../core/errors.js';

/** Name of the environment variable that may hold the base64 key. */
export const KEY_ENV_VARIABLE = 'HAPPY_MEDIA_KEY';

/** A key file is a line of base64; anything much bigger is not one (and is not read whole). */
const MAX_KEY_FILE_BYTES = 4096;

/** The key options a command accepts. */
export interface KeyOptions {
  /** `--key`: standard base64 of 32 bytes. */
  key?: string;
  /** `--key-file`: path of a file holding that base64 (surrounding whitespace ignored). */
  keyFile?: string;
}

/**
 * Decodes a base64 key and checks that it is 32 bytes.
 *
 * @throws {UsageError} `ERR_USAGE` naming `source`, never the key.
 */
export function decodeKey(text: string, source: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(text.trim(), source);
  } catch (cause) {
    throw new UsageError(
      `expected standard padded base64 of a ${KEY_BYTES}-byte key in ${source} but it could not be decoded (make one with: happy-media keygen)`,
      { cause },
    );
  }
  if (bytes.length !== KEY_BYTES) {
    throw new UsageError(
      `expected a ${KEY_BYTES}-byte key in ${source} but received ${bytes.length} bytes (make one with: happy-media keygen)`,
    );
  }
  return bytes;
}

/**
 * Returns the 32-byte key from `--key`, `--key-file` or `HAPPY_MEDIA_KEY`.
 *
 * @throws {UsageError} `ERR_USAGE` when none or both options are given, the file cannot be read, or the
 * key is not base64 of 32 bytes.
 * @example
 * ```ts
 * const key = await resolveKey({ keyFile: 'session.key' });
 * ```
 */
export async function resolveKey(
  options: KeyOptions,
  env: Record<string, string | undefined> = process.env,
): Promise<Uint8Array> {
  if (options.key !== undefined && options.keyFile !== undefined) {
    throw new UsageError('expected one of --key and --key-file but received both');
  }
  if (options.key !== undefined) return decodeKey(options.key, '--key');
  if (options.keyFile !== undefined) return decodeKey(await readKeyFile(options.keyFile), '--key-file');
  const fromEnv = env[KEY_ENV_VARIABLE];
  if (fromEnv !== undefined && fromEnv !== '') return decodeKey(fromEnv, KEY_ENV_VARIABLE);
  throw new UsageError(
    `expected a key: pass --key-file PATH, set ${KEY_ENV_VARIABLE}, or pass --key B64 (visible in the process list)`,
  );
}

async function readKeyFile(path: string): Promise<string> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new UsageError(`cannot read --key-file "${path}": not a regular file`);
    if (info.size > MAX_KEY_FILE_BYTES) {
      throw new UsageError(
        `expected a key file of at most ${MAX_KEY_FILE_BYTES} bytes for --key-file "${path}" but it has ${info.size} bytes`,
      );
    }
    return await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
    throw new UsageError(`cannot read --key-file "${path}": ${reason}`, { cause: error });
  }
}
