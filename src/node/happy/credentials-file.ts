/**
 * Reads a Happy account's credentials from a file: the account secret in any form Happy's app shows or
 * takes, or Happy CLI's `~/.happy/access.key` (see `parseHappyCredentials`). Secrets come from files only,
 * never from argv or an environment variable's value (the CLI's `HAPPY_MEDIA_SECRET_FILE` names a file).
 *
 * Every way the file can be wrong has its error: missing, unreadable or not a regular file
 * (`ERR_UNREADABLE_INPUT`), too big (`ERR_LIMIT_EXCEEDED`), or not credentials (`ERR_FORMAT`). A file that
 * is evidently something else is refused before anyone signs in with it, saying what it looks like: a bare
 * standard-base64 32-byte key is what `happy-media keygen` writes (a blob or session key; signing in with
 * it would make a new, empty account), and a JSON Web Token is a bearer token. No message ever contains
 * the file's contents. (The CLI reports each as bad usage, `ERR_USAGE`, exit status 2.)
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { FormatError, HappyMediaError, LimitError } from '../../core/errors.js';
import { MAX_CREDENTIALS_TEXT_LENGTH } from '../../core/happy/credentials.js';
import { type HappyCredentials, parseHappyCredentials } from '../../core/happy/index.js';
import { unreadableInput } from '../../core/unreadable-input.js';
import { NOT_A_REGULAR_FILE, readFailureReason } from '../fs/unreadable-input.js';

/** A 32-byte key as `happy-media keygen` writes it: standard base64, padded. */
const KEYGEN_KEY = /^[A-Za-z0-9+/]{43}=$/;
/** A JSON Web Token (Happy's server issues its bearer tokens as one): three base64url parts. */
const JSON_WEB_TOKEN = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** What the text evidently is instead of credentials, as the rest of a sentence; `undefined` when it may be credentials. */
function evidentlyNotASecret(text: string): string | undefined {
  if (KEYGEN_KEY.test(text)) {
    return "a bare base64 32-byte key, the form `happy-media keygen` writes for blob and session keys, not an account secret: signing in with it would make a new, empty account. The account secret is the key Happy's app shows under Settings → Account (XXXXX-XXXXX-…), or Happy CLI's ~/.happy/access.key as it is";
  }
  if (JSON_WEB_TOKEN.test(text)) {
    return "a bearer token (what HAPPY_MEDIA_TOKEN takes), not the account secret: the account secret is the key Happy's app shows under Settings → Account (XXXXX-XXXXX-…), or Happy CLI's ~/.happy/access.key";
  }
  return undefined;
}

/**
 * Reads and parses the credentials file at `path`.
 *
 * @param source - how the file was named, for messages (e.g. `the secret file`).
 * @throws {ProbeError} `ERR_UNREADABLE_INPUT` when the file is missing, unreadable or not a regular file.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when it is larger than 64 KiB.
 * @throws {FormatError} `ERR_FORMAT` when it holds no credentials, or evidently holds something else: a bare
 *   base64 key as `keygen` writes it, or a bearer token (the reason is given, never the contents).
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
      throw unreadableInput(path, `${NOT_A_REGULAR_FILE}; ${source} holds the account secret`);
    if (info.size > MAX_CREDENTIALS_TEXT_LENGTH) {
      throw new LimitError(
        `expected a file of at most ${MAX_CREDENTIALS_TEXT_LENGTH} bytes for ${source} (an account secret or Happy CLI's access.key) but "${path}" has ${info.size} bytes`,
      );
    }
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof HappyMediaError) throw error;
    throw unreadableInput(path, `${readFailureReason(error)}; ${source} holds the account secret`, error);
  }
  return credentialsFromText(text, `${source} "${path}"`);
}

/**
 * The credentials in `text` read from a file or a pipe (`where` names it in messages), refused as
 * {@link readHappyCredentialsFile} refuses them: text that is evidently something else (a private key, a
 * blob) is named as such, never quoted. Read at most {@link MAX_CREDENTIALS_TEXT_LENGTH} bytes for it.
 *
 * @throws {FormatError} `ERR_FORMAT` for text that holds no credentials or evidently something else.
 * @example
 * ```ts
 * const credentials = credentialsFromText(pastedText, 'stdin');
 * ```
 */
export function credentialsFromText(text: string, where: string): HappyCredentials {
  const other = evidentlyNotASecret(text.trim());
  if (other !== undefined) throw new FormatError(`${where} holds ${other}`);
  try {
    return parseHappyCredentials(text);
  } catch (error) {
    if (!(error instanceof HappyMediaError)) throw error;
    throw new FormatError(`${where} holds no Happy credentials: ${error.message}`, { cause: error });
  }
}
