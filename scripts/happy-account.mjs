#!/usr/bin/env node
// A throwaway account and session on a Happy server, for tests and the demo, made as Happy's app and CLI
// make theirs (a fresh account secret signs in; the session has a data-key bundle and sealed metadata,
// so Happy's app signed in with the secret opens it). createHappyAccount in src/node/demo/happy-account.ts,
// from the build: run `npm run build` first.
//
//   node scripts/happy-account.mjs URL [--tag TAG] [--env] [--out FILE] [--secret-out FILE]
//
// Prints {"url","sessionId","token","secret"} as JSON (secret in the backup form Happy's app shows and
// takes), or with --env shell exports: HAPPY_MEDIA_HAPPY_SERVER_URL, HAPPY_MEDIA_SESSION, HAPPY_MEDIA_TOKEN
// and, with --secret-out, HAPPY_MEDIA_SECRET_FILE (the CLI reads the secret from a file only, so --env
// carries no secret without it).
// --out FILE writes that output to FILE instead of stdout, --secret-out FILE writes the secret alone (what
// `happy-media send --secret-file` reads); both are written 0600, all or nothing.
// Secrets never go to a file other users can read: when stdout is redirected to a regular file whose mode
// lets others read it (`--env > file` with the usual umask), nothing is made and the exit status is 2.
import { fstatSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatAccountSecret } from '../dist/src/index.js';
import { createHappyAccount } from '../dist/src/node/demo/happy-account.js';
import { writeFileAllOrNothing } from '../dist/src/node/fs/output-file.js';

const USAGE =
  'usage: node scripts/happy-account.mjs URL [--tag TAG] [--env] [--out FILE] [--secret-out FILE]';

function fail(message, status) {
  process.stderr.write(`happy-account: ${message}\n`);
  process.exit(status);
}

const args = process.argv.slice(2);
const options = { env: false };
const positional = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--env') options.env = true;
  else if (arg === '--tag' || arg === '--out' || arg === '--secret-out') {
    const value = args[++i];
    if (value === undefined || value.startsWith('--')) fail(`${arg} needs a value\n${USAGE}`, 2);
    options[arg.slice(2)] = value;
  } else if (arg.startsWith('--')) fail(`unknown option ${arg}\n${USAGE}`, 2);
  else positional.push(arg);
}
if (positional.length !== 1) fail(USAGE, 2);
const url = positional[0];

// Decided before anything is made: a redirection has already created the file, empty; it stays so.
if (!options.out) {
  const out = fstatSync(1);
  if (out.isFile() && (out.mode & 0o077) !== 0) {
    fail(
      `stdout is a file other users can read (mode 0${(out.mode & 0o777).toString(8)}) and the output holds secrets: ` +
        'pass --out FILE (written 0600) instead of redirecting, or make the file private first (umask 077); nothing was made',
      2,
    );
  }
}

const write = (path, text) =>
  writeFileAllOrNothing(path, async (writer) => {
    await writer.write(new TextEncoder().encode(text));
  });

try {
  const account = await createHappyAccount(url, options.tag === undefined ? {} : { tag: options.tag });
  const secret = formatAccountSecret(account.secret);
  const secretPath = options['secret-out'] ? resolve(options['secret-out']) : undefined;
  if (secretPath) await write(secretPath, `${secret}\n`);
  const quote = (value) => `'${String(value).replaceAll("'", "'\\''")}'`;
  const text = options.env
    ? [
        `export HAPPY_MEDIA_HAPPY_SERVER_URL=${quote(account.url)}`,
        `export HAPPY_MEDIA_SESSION=${quote(account.sessionId)}`,
        `export HAPPY_MEDIA_TOKEN=${quote(account.token)}`,
        ...(secretPath ? [`export HAPPY_MEDIA_SECRET_FILE=${quote(secretPath)}`] : []),
        '',
      ].join('\n')
    : `${JSON.stringify({ url: account.url, sessionId: account.sessionId, token: account.token, secret })}\n`;
  if (options.out) await write(resolve(options.out), text);
  else process.stdout.write(text);
} catch (error) {
  fail(error instanceof Error ? `${error.code ? `${error.code}: ` : ''}${error.message}` : String(error), 1);
}
