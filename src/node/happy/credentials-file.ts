/**
 * Reads a Happy account's credentials from a file: the account secret in any form Happy's app shows or
 * takes, or Happy CLI's `~/.happy/access.key` (see `parseHappyCredentials`). Secrets come from files only,
 * never from argv or an environment variable's value (the CLI's `HAPPY_MEDIA_SECRET_FILE` names a file).
 *
 * As with key files (`key-source.ts`), every way the file can be wrong is bad usage (`ERR_USAGE`, exit
 * status 2): missing, unreadable, not a regular file, too big, or not credentials. No message ever
 * contains the file's contents.
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { HappyMediaError, UsageError } from '../../core/errors.js';
import { MAX_CREDENTIALS_TEXT_LENGTH } from '../../core/happy/credentials.js';
import { type HappyCredentials, parseHappyCredentials } from '../../core/happy/index.js';

/**
 * Reads and parses the credentials file at `path`.
 *
 * @param source - how the file was named, for messages (e.g. `--secret-file`).
 * @throws {UsageError} `ERR_USAGE` when the file is missing, unreadable, not a regular file, larger than
 *   64 KiB, or holds no credentials (the reason is given, never the contents).
 * @example
 * ```ts
 * const credentials = await readHappyCredentialsFile(join(homedir(), '.happy', 'access.key'));
 * const client = await HappyClient.connect({ url, credentials });
 * ```
 */
export async function readHappyCredentialsFile(
  path: string,
  source = 'the secret file',
): Promise<HappyCredentials> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile())
      throw new UsageError(
        `expected a file holding the account secret for ${source} but "${path}" is not a regular file`,
      );
    if (info.size > MAX_CREDENTIALS_TEXT_LENGTH) {
      throw new UsageError(
        `expected a file of at most ${MAX_CREDENTIALS_TEXT_LENGTH} bytes for ${source} (an account secret or Happy CLI's access.key) but "${path}" has ${info.size} bytes`,
      );
    }
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `expected a readable file for ${source} but "${path}" could not be read${code ? ` (${code})` : ''}`,
      {
        cause: error,
      },
    );
  }
  try {
    return parseHappyCredentials(text);
  } catch (error) {
    if (!(error instanceof HappyMediaError)) throw error;
    throw new UsageError(`${source} "${path}" holds no Happy credentials: ${error.message}`, {
      cause: error,
    });
  }
}
