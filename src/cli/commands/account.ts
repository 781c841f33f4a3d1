/**
 * `happy-media account`: the account secret's file, so a Happy user needs no script of this repository.
 *
 * - `account create`: a fresh account secret, written to the secret file (mode 0600, never over an
 *   existing file); with a server named, signed in once, which makes the account there.
 * - `account import [FILE|-]`: the secret as Happy's app shows it (Settings → Account, `XXXXX-XXXXX-…`)
 *   or Happy CLI's `~/.happy/access.key`, read from FILE or stdin and written to the secret file (0600).
 * - `account secret`: prints the secret in the backup form Happy's app's restore screen takes, so the app
 *   opens the sessions made here. Refused into a file other users can read.
 * - `account status` (the default): which secret file is used, its kind, and, with a server, whether it
 *   signs in.
 *
 * The secret file is the one every command reads (happy-options.ts): `--secret-file`, else
 * `HAPPY_MEDIA_SECRET_FILE`, else `~/.config/happy-media/secret`.
 *
 * @module
 */
import { fstatSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { toBase64 } from '../../envelope.js';
import { DiskError } from '../../errors.js';
import { createAccountSecret, formatAccountSecret } from '../../happy.js';
import {
  credentialsFromText,
  type HappyCredentials,
  MAX_CREDENTIALS_TEXT_LENGTH,
  readHappyCredentialsFile,
} from '../../node/index.js';
import {
  addHappyOptions,
  connectWith,
  credentialsOrUsage,
  defaultSecretFile,
  type HappyFlags,
  happyServerSetting,
  happySetting,
  readHappySecret,
  SECRET_FILE_ENV_VARIABLE,
  warnInsecureHttp,
} from '../happy-options.js';
import { runAction } from '../run-action.js';
import { shellQuote } from '../shell-quote.js';
import { UsageError } from '../usage-error.js';

interface WriteFlags extends HappyFlags {
  env?: boolean;
}

/** The file `create` and `import` write: the one every command would read. */
function targetFile(flags: HappyFlags): string {
  return (
    happySetting(flags.secretFile, '--secret-file', SECRET_FILE_ENV_VARIABLE, 'the secret file')?.value ??
    defaultSecretFile()
  );
}

/** The text a secret file holds for `credentials`: the backup form, or Happy CLI's linked JSON. */
function fileText(credentials: HappyCredentials): string {
  if (credentials.kind === 'secret') return `${formatAccountSecret(credentials.secret)}\n`;
  return `${JSON.stringify({ encryption: { publicKey: toBase64(credentials.contentPublicKey) }, token: credentials.token })}\n`;
}

/**
 * Writes `text` to a new file at `path`, mode 0600 from its creation, never over an existing file; a
 * missing parent directory is made 0700.
 *
 * @throws {UsageError} `ERR_USAGE` when the file exists.
 * @throws {DiskError} `ERR_DISK` when it cannot be written.
 */
async function writeSecretFile(path: string, text: string): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, text, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      throw new UsageError(
        `"${path}" exists: an account secret is never overwritten (losing it loses the account); name another file with --secret-file, or remove that one if you are sure`,
      );
    }
    throw new DiskError(`cannot write the account secret to "${path}": ${code ?? 'write failed'}`, {
      cause: error,
    });
  }
}

/** Signs in once when a server is named (the server makes the account at its first sign-in). */
async function signInIfServer(flags: HappyFlags, credentials: HappyCredentials): Promise<string | undefined> {
  const server = happyServerSetting(flags);
  if (!server) return undefined;
  warnInsecureHttp(server.value, flags.insecureHttp);
  await connectWith(server.value, credentials, flags.insecureHttp);
  return server.value;
}

/** What `create` and `import` print: JSON, or with `--env` the exports that name the file (and server). */
function report(
  flags: WriteFlags,
  path: string,
  credentials: HappyCredentials,
  server: string | undefined,
): void {
  if (flags.env) {
    process.stdout.write(
      `export ${SECRET_FILE_ENV_VARIABLE}=${shellQuote(path)}\n${server ? `export HAPPY_MEDIA_HAPPY_SERVER_URL=${shellQuote(server)}\n` : ''}`,
    );
  } else {
    process.stdout.write(
      `${JSON.stringify({ secretFile: path, kind: credentials.kind, server: server ?? null })}\n`,
    );
  }
}

/** The credentials text piped in on stdin, bounded as a secret file is. */
async function readStdinText(): Promise<string> {
  if (process.stdin.isTTY) {
    process.stderr.write(
      "Paste the secret key Happy's app shows under Settings → Account (or Happy CLI's access.key), then press Ctrl-D:\n",
    );
  }
  const parts: Buffer[] = [];
  let total = 0;
  for await (const part of process.stdin as AsyncIterable<Buffer>) {
    total += part.length;
    if (total > MAX_CREDENTIALS_TEXT_LENGTH) {
      throw new UsageError(`expected at most ${MAX_CREDENTIALS_TEXT_LENGTH} bytes of credentials on stdin`);
    }
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Refuses to print a secret into a regular file other users can read (`account secret > file` under the
 * usual umask 022); a terminal, a pipe or a private file is fine.
 *
 * @throws {UsageError} `ERR_USAGE` for such a file; nothing is printed.
 */
function refuseSharedStdout(): void {
  const out = fstatSync(1);
  if (out.isFile() && (out.mode & 0o077) !== 0) {
    throw new UsageError(
      `stdout is a file other users can read (mode 0${(out.mode & 0o777).toString(8)}) and the output is the account secret: make the file private first (umask 077), or print it on a terminal`,
    );
  }
}

/** Registers `account` (status, create, import, secret) on the program. */
export function registerAccount(program: Command): void {
  const account = program
    .command('account')
    .description("your Happy account's secret file: status (the default), create, import, secret");

  addHappyOptions(
    account
      .command('status', { isDefault: true })
      .description('which secret file is used and what it holds; with a server, whether it signs in'),
  ).action(
    runAction(async (flags: HappyFlags) => {
      const { credentials, path } = await readHappySecret(flags);
      const server = await signInIfServer(flags, credentials);
      process.stdout.write(
        `${JSON.stringify({ secretFile: path, kind: credentials.kind, server: server ?? null, signedIn: server !== undefined })}\n`,
      );
    }),
  );

  addHappyOptions(
    account
      .command('create')
      .description('make a new account: a fresh secret written to the secret file (0600)')
      .option('--env', `print export ${SECRET_FILE_ENV_VARIABLE}=… (and the server) instead of JSON`),
  )
    .addHelpText(
      'after',
      '\nExamples:\n  $ happy-media account create --happy https://api.cluster-fluster.com\n' +
        '  {"secretFile":"/home/me/.config/happy-media/secret","kind":"secret","server":"https://api.cluster-fluster.com"}\n' +
        "  $ happy-media account secret      # the key to type into Happy's app (restore) to see the sessions",
    )
    .action(
      runAction(async (flags: WriteFlags) => {
        const path = targetFile(flags);
        const credentials: HappyCredentials = { kind: 'secret', secret: createAccountSecret() };
        // Signed in first: a server that refuses leaves no file behind.
        const server = await signInIfServer(flags, credentials);
        await writeSecretFile(path, fileText(credentials));
        report(flags, path, credentials, server);
        process.stderr.write(
          `happy-media account: a new account secret is in ${path} (0600). Keep a copy: it is the account. To see its sessions in Happy's app, restore the app with the key \`happy-media account secret\` prints.\n`,
        );
      }),
    );

  addHappyOptions(
    account
      .command('import')
      .description(
        "store an existing secret (Happy's app's secret key, or Happy CLI's access.key) in the secret file (0600)",
      )
      .argument('[file]', 'where the secret is: a file, or - for stdin (the default)', '-')
      .option('--env', `print export ${SECRET_FILE_ENV_VARIABLE}=… (and the server) instead of JSON`),
  )
    .addHelpText(
      'after',
      "\nExamples:\n  $ happy-media account import ~/.happy/access.key\n  $ happy-media account import -      # then paste the key Happy's app shows under Settings → Account, and Ctrl-D",
    )
    .action(
      runAction(async (file: string, flags: WriteFlags) => {
        const path = targetFile(flags);
        let credentials: HappyCredentials;
        if (file === '-') {
          const text = await readStdinText();
          credentials = await credentialsOrUsage(() => credentialsFromText(text, 'stdin'));
        } else {
          // The reader of every secret file, so the same refusals.
          credentials = await credentialsOrUsage(() => readHappyCredentialsFile(file, 'the file to import'));
        }
        const server = await signInIfServer(flags, credentials);
        await writeSecretFile(path, fileText(credentials));
        report(flags, path, credentials, server);
      }),
    );

  addHappyOptions(
    account
      .command('secret')
      .description(
        "print the account secret in the form Happy's app takes (XXXXX-XXXXX-…), to restore the app with it",
      ),
  ).action(
    runAction(async (flags: HappyFlags) => {
      const { credentials, path } = await readHappySecret(flags);
      if (credentials.kind !== 'secret') {
        throw new UsageError(
          `${path} holds Happy CLI's linked credentials (a content public key and a token), not the account secret: Happy's app that linked it already holds the secret`,
        );
      }
      refuseSharedStdout();
      process.stdout.write(`${formatAccountSecret(credentials.secret)}\n`);
    }),
  );
}
