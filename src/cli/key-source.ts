/**
 * Where a command-line key comes from: `--key B64`, `--key-file PATH` or the environment variable
 * `HAPPY_MEDIA_KEY`, in that order. `--key` puts the key in the process's argv (visible to other users
 * through `ps` on shared machines), so the other two exist to keep it out.
 *
 * One rule for every way a key can be wrong: a key that is missing, doubled, not base64 or not 32 bytes,
 * and a key file that is missing, unreadable, not a regular file (a directory, a FIFO) or too big, are all
 * bad usage (`ERR_USAGE`, exit status 2): the user named the wrong thing and must name another. No
 * message ever contains the key or the file's contents.
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { fromBase64, KEY_BYTES } from '../envelope.js';
import { UsageError } from './usage-error.js';

/** Name of the environment variable that may hold the base64 key. */
export const KEY_ENV_VARIABLE = 'HAPPY_MEDIA_KEY';

/** A key file is a line of base64; anything much bigger is not one (and is not read whole). */
const MAX_KEY_FILE_BYTES = 4096;

/** The key options a command accepts. */
export interface KeyOptions {
  /** `--key`: standard base64 of 32 bytes. */
  key?: string;
  /** `--key-file`: path of a file holding that base64 (surrounding whitespace ignored) or exactly 32 raw bytes. */
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
 * @throws {UsageError} `ERR_USAGE` when none or both options are given, the key is not base64 of 32
 * bytes, or the key file is missing, unreadable, not a regular file or too big.
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
  if (options.keyFile !== undefined) {
    const bytes = await readKeyFile(options.keyFile);
    // A raw 32-byte key cannot be mistaken for base64 text, which is 44 characters.
    if (bytes.length === KEY_BYTES) return bytes;
    return decodeKey(new TextDecoder().decode(bytes), '--key-file');
  }
  const fromEnv = env[KEY_ENV_VARIABLE];
  if (fromEnv !== undefined && fromEnv !== '') return decodeKey(fromEnv, KEY_ENV_VARIABLE);
  throw new UsageError(
    `expected a key: pass --key-file PATH, set ${KEY_ENV_VARIABLE}, or pass --key B64 (visible in the process list)`,
  );
}

async function readKeyFile(path: string): Promise<Uint8Array> {
  try {
    const info = await stat(path);
    if (!info.isFile())
      throw new UsageError(`expected a key file for --key-file but "${path}" is not a regular file`);
    if (info.size > MAX_KEY_FILE_BYTES) {
      throw new UsageError(
        `expected a key file of at most ${MAX_KEY_FILE_BYTES} bytes for --key-file but "${path}" has ${info.size} bytes`,
      );
    }
    return new Uint8Array(await readFile(path));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `expected a readable key file for --key-file but "${path}" could not be read${code ? ` (${code})` : ''}`,
      { cause: error },
    );
  }
}
