/**
 * The options of every command that talks to a Happy account (`send --happy`, `sessions`,
 * `transcript`, `play --happy`): the server (`--happy URL`, else `HAPPY_MEDIA_HAPPY_SERVER_URL`) and the
 * account secret, read from a file only (`--secret-file PATH`, else the path in
 * `HAPPY_MEDIA_SECRET_FILE`): never from argv or an environment variable's value, where other users
 * (`ps`) and child processes would see it. The file holds the secret in any form Happy's app shows or
 * takes, or is Happy CLI's `~/.happy/access.key`.
 *
 * @module
 */
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import {
  HappyClient,
  type HappySession,
  InvalidArgumentError,
  readHappyCredentialsFile,
  UsageError,
} from '../index.js';

/** Environment variable naming the file that holds the account secret. */
export const SECRET_FILE_ENV_VARIABLE = 'HAPPY_MEDIA_SECRET_FILE';
/** Environment variable naming Happy's server when `--happy` is not given. */
export const HAPPY_URL_ENV_VARIABLE = 'HAPPY_MEDIA_HAPPY_SERVER_URL';
/** Environment variable naming the session when `--session` is not given. */
export const SESSION_ENV_VARIABLE = 'HAPPY_MEDIA_SESSION';

/** The flags {@link addHappyOptions} adds. */
export interface HappyFlags {
  happy?: string;
  secretFile?: string;
}

/** Adds `--happy URL` and `--secret-file PATH` to a command. */
export function addHappyOptions(command: Command): Command {
  return command
    .option(
      '--happy <url>',
      `Happy's server, e.g. https://api.cluster-fluster.com (Happy's own; default: $${HAPPY_URL_ENV_VARIABLE})`,
    )
    .option(
      '--secret-file <path>',
      `file holding the account secret (the key Happy's app shows under Settings → Account, or Happy CLI's ~/.happy/access.key; default: $${SECRET_FILE_ENV_VARIABLE})`,
    );
}

/** A warning when the secret file can be read by other users (the file itself is still used). */
async function warnIfShared(path: string): Promise<void> {
  if (process.platform === 'win32') return;
  const info = await stat(path).catch(() => undefined);
  if (info && (info.mode & 0o077) !== 0) {
    process.stderr.write(
      `happy-media: warning: ${path} can be read by other users (mode 0${(info.mode & 0o777).toString(8)}); it holds your account secret: chmod 600 it\n`,
    );
  }
}

/**
 * Signs in with the flags' server and secret file.
 *
 * @throws {UsageError} `ERR_USAGE` (exit 2) without a server or a secret file, for an unusable URL, and
 *   for a secret file that is missing, unreadable or malformed.
 * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` when the server refuses the credentials.
 */
export async function connectHappy(flags: HappyFlags): Promise<HappyClient> {
  const url = flags.happy ?? (process.env[HAPPY_URL_ENV_VARIABLE] || undefined);
  if (!url) {
    throw new UsageError(
      `expected Happy's server: pass --happy URL (Happy's own is https://api.cluster-fluster.com) or set ${HAPPY_URL_ENV_VARIABLE}`,
    );
  }
  const fromFlag = flags.secretFile !== undefined;
  const path = flags.secretFile ?? (process.env[SECRET_FILE_ENV_VARIABLE] || undefined);
  if (!path) {
    throw new UsageError(
      `expected the account secret in a file: pass --secret-file PATH or set ${SECRET_FILE_ENV_VARIABLE} to its path (the secret key Happy's app shows under Settings → Account, saved to a file, or Happy CLI's ~/.happy/access.key); it is never taken from the command line`,
    );
  }
  const credentials = await readHappyCredentialsFile(
    path,
    fromFlag ? '--secret-file' : SECRET_FILE_ENV_VARIABLE,
  );
  await warnIfShared(path);
  try {
    return await HappyClient.connect({ url, credentials });
  } catch (error) {
    if (error instanceof InvalidArgumentError) {
      throw new UsageError(`expected an http(s) URL of Happy's server for --happy: ${error.message}`, {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * The session named by `--session` (else `HAPPY_MEDIA_SESSION`), opened with the account's keys.
 *
 * @throws {UsageError} `ERR_USAGE` without a session id, or when the credentials cannot open sessions.
 * @throws {StorageError} `ERR_NOT_FOUND` when the account has no such session.
 */
export async function openHappySession(
  client: HappyClient,
  session: string | undefined,
): Promise<HappySession> {
  const id = session ?? (process.env[SESSION_ENV_VARIABLE] || undefined);
  if (!id) {
    throw new UsageError(
      `expected the session: pass --session ID or set ${SESSION_ENV_VARIABLE} (list them with: happy-media sessions)`,
    );
  }
  try {
    return await client.openSession(id);
  } catch (error) {
    if (error instanceof InvalidArgumentError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}
