/**
 * The settings of every command that talks to a Happy account (`send`, `play`, `map`, `sessions`,
 * `transcript`, `account`), read one way:
 *
 * | setting | flag | else | else |
 * |---|---|---|---|
 * | Happy's server | `--happy URL` | `HAPPY_MEDIA_HAPPY_SERVER_URL` | none: bad usage |
 * | the account secret's file | `--secret-file PATH` | `HAPPY_MEDIA_SECRET_FILE` | `~/.config/happy-media/secret` when it exists (`happy-media account create` writes it) |
 * | the session | `--session ID` | `HAPPY_MEDIA_SESSION` | none: bad usage |
 *
 * When a flag and its variable are both set and differ, the flag is used and a note on stderr says so,
 * naming both. The secret is read from a file only: never from argv or an environment variable's value,
 * where other users (`ps`) and child processes would see it. The file holds the secret in any form
 * Happy's app shows or takes, or is Happy CLI's `~/.happy/access.key`.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from '../errors.js';
import {
  HappyClient,
  type HappyCredentials,
  HappyMediaError,
  type HappySession,
  readHappyCredentialsFile,
} from '../node/index.js';
import { withHint } from './run-action.js';
import { UsageError } from './usage-error.js';

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
  insecureHttp?: boolean;
}

/** A setting's value and where it came from (a flag, a variable, the default path), for messages. */
export interface HappySetting {
  value: string;
  source: string;
}

/**
 * The value of one setting: its flag, else its environment variable (an empty one counts as unset).
 * Both set to different values: the flag wins, and a note on stderr says which was used.
 */
export function happySetting(
  flagValue: string | undefined,
  flag: string,
  variable: string,
  what: string,
): HappySetting | undefined {
  const fromEnv = process.env[variable] || undefined;
  if (flagValue !== undefined) {
    if (fromEnv !== undefined && fromEnv !== flagValue) {
      process.stderr.write(
        `happy-media: note: using ${what} ${JSON.stringify(flagValue)} from ${flag}, not ${JSON.stringify(fromEnv)} from ${variable}\n`,
      );
    }
    return { value: flagValue, source: flag };
  }
  return fromEnv === undefined ? undefined : { value: fromEnv, source: variable };
}

/**
 * Where `happy-media account create` keeps the account secret when no other file is named, and where
 * every command looks for it last: `$XDG_CONFIG_HOME/happy-media/secret` (default `~/.config/…`).
 */
export function defaultSecretFile(): string {
  const configHome = process.env.XDG_CONFIG_HOME
    ? resolve(process.env.XDG_CONFIG_HOME)
    : join(homedir(), '.config');
  return join(configHome, 'happy-media', 'secret');
}

/** The help of `--insecure-http`, on every command that can reach Happy's server. */
export const INSECURE_HTTP_HELP =
  'allow http:// to a Happy server that is not this machine (the sign-in proof and token then cross the network readable; see docs/happy.md)';

/**
 * With `--insecure-http` and an `http:` URL, says on stderr what crosses the network readable; without
 * the flag, nothing (the library refuses `http:` to another machine).
 */
export function warnInsecureHttp(url: string, insecureHttp: boolean | undefined): void {
  if (insecureHttp !== true) return;
  let parsed: URL;
  try {
    parsed = new URL(url.replace(/^happy\+/i, ''));
  } catch {
    return;
  }
  if (parsed.protocol !== 'http:') return;
  process.stderr.write(
    `happy-media: warning: --insecure-http: ${parsed.host} is reached over plain http: unless it is this machine, the account's sign-in proof and bearer token cross the network readable, and whoever reads the proof can sign in as the account\n`,
  );
}

/** Adds `--happy URL`, `--secret-file PATH` and `--insecure-http` to a command. */
export function addHappyOptions(command: Command): Command {
  return command
    .option('--insecure-http', INSECURE_HTTP_HELP)
    .option(
      '--happy <url>',
      `Happy's server, e.g. https://api.cluster-fluster.com (Happy's own; default: $${HAPPY_URL_ENV_VARIABLE})`,
    )
    .option(
      '--secret-file <path>',
      `file holding the account secret (the key Happy's app shows under Settings → Account, or Happy CLI's ~/.happy/access.key; default: $${SECRET_FILE_ENV_VARIABLE}, else ~/.config/happy-media/secret)`,
    );
}

/** The server from `--happy` or `HAPPY_MEDIA_HAPPY_SERVER_URL`, if either names one. */
export function happyServerSetting(flags: HappyFlags): HappySetting | undefined {
  return happySetting(flags.happy, '--happy', HAPPY_URL_ENV_VARIABLE, "Happy's server");
}

/** The server, required. */
export function requireHappyServer(flags: HappyFlags): string {
  const server = happyServerSetting(flags);
  if (!server) {
    throw new UsageError(
      `expected Happy's server: pass --happy URL (Happy's own is https://api.cluster-fluster.com) or set ${HAPPY_URL_ENV_VARIABLE}`,
    );
  }
  return server.value;
}

/**
 * The secret file: `--secret-file`, else `HAPPY_MEDIA_SECRET_FILE`, else the default file when it
 * exists (`undefined` when none is named and the default file does not exist).
 */
export function secretFileSetting(flags: HappyFlags): HappySetting | undefined {
  const named = happySetting(flags.secretFile, '--secret-file', SECRET_FILE_ENV_VARIABLE, 'the secret file');
  if (named) return named;
  const fallback = defaultSecretFile();
  return existsSync(fallback) ? { value: fallback, source: 'the default secret file' } : undefined;
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
 * The credentials `read` gives (from a secret file or a pipe); every way they can be wrong (a file that
 * is missing, unreadable, too big, or not credentials) is bad usage here, with the library's message.
 *
 * @throws {UsageError} `ERR_USAGE` for any library error of `read`.
 */
export async function credentialsOrUsage(
  read: () => HappyCredentials | Promise<HappyCredentials>,
): Promise<HappyCredentials> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof HappyMediaError)) throw error;
    const hint = /`happy-media keygen` writes/.test(error.message)
      ? 'make a new account with: happy-media account create'
      : /a bearer token/.test(error.message)
        ? 'a token goes in HAPPY_MEDIA_TOKEN or --token-file'
        : undefined;
    throw withHint(new UsageError(error.message, { cause: error }), hint);
  }
}

/**
 * The account's credentials from the secret file the flags, the environment or the default name.
 *
 * @throws {UsageError} `ERR_USAGE` when no file is named (and the default does not exist), and for a
 *   file that is missing, unreadable, malformed or evidently something else (a key, a token).
 */
export async function readHappySecret(
  flags: HappyFlags,
): Promise<{ credentials: HappyCredentials; path: string }> {
  const file = secretFileSetting(flags);
  if (!file) {
    throw new UsageError(
      `expected the account secret in a file: pass --secret-file PATH or set ${SECRET_FILE_ENV_VARIABLE} to its path (the secret key Happy's app shows under Settings → Account, saved to a file, or Happy CLI's ~/.happy/access.key), or make a new account with: happy-media account create; it is never taken from the command line`,
    );
  }
  const credentials = await credentialsOrUsage(() => readHappyCredentialsFile(file.value, file.source));
  await warnIfShared(file.value);
  return { credentials, path: file.value };
}

/**
 * Signs in with the flags' server and secret file.
 *
 * @throws {UsageError} `ERR_USAGE` (exit 2) without a server or a secret file, for an unusable URL, and
 *   for a secret file that is missing, unreadable or malformed.
 * @throws {UnauthorizedError} `ERR_UNAUTHORIZED` when the server refuses the credentials.
 */
export async function connectHappy(flags: HappyFlags): Promise<HappyClient> {
  const url = requireHappyServer(flags);
  const { credentials } = await readHappySecret(flags);
  warnInsecureHttp(url, flags.insecureHttp);
  return connectWith(url, credentials, flags.insecureHttp);
}

/**
 * Signs in to `url` with `credentials` (over plain http to another machine only with `insecureHttp`; the
 * caller warns, once, where the flag is read: {@link warnInsecureHttp}).
 *
 * @throws {UsageError} `ERR_USAGE` for an unusable URL.
 */
export async function connectWith(
  url: string,
  credentials: HappyCredentials,
  insecureHttp?: boolean,
): Promise<HappyClient> {
  try {
    return await HappyClient.connect({
      url,
      credentials,
      ...(insecureHttp ? { insecureHttp: true } : {}),
    });
  } catch (error) {
    if (error instanceof InvalidArgumentError) {
      throw withHint(
        new UsageError(`expected an http(s) URL of Happy's server for --happy: ${error.message}`, {
          cause: error,
        }),
        /^http:/i.test(url) ? 'pass --insecure-http to use plain http anyway' : undefined,
      );
    }
    throw error;
  }
}

/**
 * The session id from `--session` (or the argument `from` names), else `HAPPY_MEDIA_SESSION`, required.
 */
export function requireSessionId(session: string | undefined, from = '--session'): string {
  const setting = happySetting(session, from, SESSION_ENV_VARIABLE, 'the session');
  if (!setting) {
    throw new UsageError(
      `expected the session: pass --session ID or set ${SESSION_ENV_VARIABLE} (list them with: happy-media sessions; make one with: happy-media sessions create)`,
    );
  }
  return setting.value;
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
  from = '--session',
): Promise<HappySession> {
  const id = requireSessionId(session, from);
  try {
    return await client.openSession(id);
  } catch (error) {
    if (error instanceof InvalidArgumentError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** The flags that choose between a Happy account and a store, as {@link talksToHappyAccount} reads them. */
export interface ModeFlags extends HappyFlags {
  session?: string;
  store?: string;
}

/**
 * Whether `send`, `play` and `map` go through a Happy account (the session gives the store and the
 * keys) rather than a store named by `--store` (or nothing, for `map`'s stdout):
 *
 * 1. `--happy` or `--secret-file`: the account.
 * 2. Any of `storeFlags` (`--store`, `--key-file`, …): the store.
 * 3. `--session`: the account, unless `HAPPY_MEDIA_STORE` names Happy's server as a store
 *    (`happy+https://…`, whose uploads take a session too).
 * 4. Else, for `send` and `play` (`byEnvironment`), `HAPPY_MEDIA_HAPPY_SERVER_URL` set: the account, with
 *    a note when `HAPPY_MEDIA_STORE` or `HAPPY_MEDIA_KEY` is set too (they are not used).
 * 5. Else the store.
 *
 * @param storeFlags - which of the command's flags name a store or keys: `[option key, flag]`.
 */
export function talksToHappyAccount(
  flags: ModeFlags,
  storeFlags: readonly (readonly [string, string])[],
  byEnvironment: boolean,
): boolean {
  if (flags.happy !== undefined || flags.secretFile !== undefined) return true;
  const given = flags as Record<string, unknown>;
  if (storeFlags.some(([key]) => given[key] !== undefined)) return false;
  if (flags.session !== undefined) return !/^happy\+/i.test(process.env.HAPPY_MEDIA_STORE ?? '');
  if (!byEnvironment || !process.env[HAPPY_URL_ENV_VARIABLE]) return false;
  const storeVariables = ['HAPPY_MEDIA_STORE', 'HAPPY_MEDIA_KEY'].filter((name) => process.env[name]);
  if (storeVariables.length > 0) {
    process.stderr.write(
      `happy-media: note: using Happy's server from ${HAPPY_URL_ENV_VARIABLE} (the session gives the store and keys), not ${storeVariables.join(' and ')} (pass --store to use a store)\n`,
    );
  }
  return true;
}
