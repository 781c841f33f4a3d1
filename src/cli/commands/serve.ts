/**
 * `happy-media serve [--dir DIR | --store SPEC] [--port N] [--host H] [--token-file PATH] [--max-upload-bytes N]`:
 * runs the media server (routes in docs/storage.md), prints its URL on stdout when it is ready, and
 * serves until SIGINT or SIGTERM, then shuts down cleanly. The token comes from `--token-file`,
 * `HAPPY_MEDIA_TOKEN` or `--token` (the last is visible in the process list).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { InvalidArgumentError } from '../../errors.js';
import {
  checkListenHost,
  defaultBlobDir,
  LocalBlobStore,
  openStore,
  S3BlobStore,
  startMediaServer,
} from '../../node/index.js';
import { checkBearerToken } from '../../storage.js';
import { parseIntegerFlag } from '../integer-flag.js';
import { runAction } from '../run-action.js';
import { UsageError } from '../usage-error.js';

interface ServeOptions {
  dir?: string;
  store?: string;
  port: string;
  host: string;
  token?: string;
  tokenFile?: string;
  maxUploadBytes?: string;
  allowHost?: string;
}

/** Checks a host flag without resolving it. @throws {UsageError} for an invalid IP address or name. */
function parseHostFlag(text: string, flag: string): string {
  try {
    return checkListenHost(text);
  } catch {
    throw new UsageError(
      `expected an IP address or host name for ${flag} but received ${JSON.stringify(text)}`,
    );
  }
}

/**
 * The store a flag names, with the library's refusal of it as bad usage (`ERR_USAGE`, exit 2) naming
 * the flag.
 *
 * @throws {UsageError} for an `InvalidArgumentError` of `open` (`s3://` without a bucket, a directory
 *   that is a file, an unknown scheme).
 */
export function storeOf<T>(open: () => T, flag: string): T {
  try {
    return open();
  } catch (error) {
    if (error instanceof InvalidArgumentError)
      throw new UsageError(`${flag}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** Default port of `happy-media serve`. */
export const DEFAULT_SERVE_PORT = 8787;

/** The upload limit `--max-upload-bytes` names in its help: 4 GiB, `startMediaServer`'s own default. */
export const DEFAULT_MAX_UPLOAD_BYTES = 4 * 1024 ** 3;

/**
 * Reads a token from `--token-file`, `--token` or `HAPPY_MEDIA_TOKEN` (undefined when none is set).
 *
 * @throws {UsageError} `ERR_USAGE` (exit 2) for both flags, an unreadable file, an empty token or one
 *   that cannot be sent in a header (a CR/LF, a space, a control character): checked here, before any
 *   request, so it is never mistaken for a network failure.
 */
export async function resolveToken(options: {
  token?: string;
  tokenFile?: string;
}): Promise<string | undefined> {
  if (options.token !== undefined && options.tokenFile !== undefined) {
    throw new UsageError('expected one of --token and --token-file but received both');
  }
  let token = options.token;
  if (options.tokenFile !== undefined) {
    try {
      token = (await readFile(options.tokenFile, 'utf8')).trim();
    } catch (cause) {
      throw new UsageError(`cannot read --token-file "${options.tokenFile}"`, { cause });
    }
  }
  const source =
    options.tokenFile !== undefined
      ? '--token-file'
      : options.token !== undefined
        ? '--token'
        : 'HAPPY_MEDIA_TOKEN';
  token ??= process.env.HAPPY_MEDIA_TOKEN || undefined;
  if (token !== undefined && token.length === 0) throw new UsageError('expected a non-empty token');
  if (token !== undefined) {
    try {
      checkBearerToken(token, source);
    } catch (cause) {
      throw new UsageError((cause as Error).message, { cause });
    }
  }
  return token;
}

/** Registers `serve` on the program. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve encrypted blobs over HTTP (PUT/GET with Range/HEAD/DELETE /v1/blobs/media/<id>)')
    .option('--dir <dir>', `blob directory (default: ${defaultBlobDir()})`)
    .option('--store <spec>', 'serve another store instead: s3://bucket/prefix')
    .option('--port <n>', 'TCP port (0 picks a free one)', String(DEFAULT_SERVE_PORT))
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--token <token>', 'require this bearer token (visible in the process list: prefer --token-file)')
    .option('--token-file <path>', 'file holding the bearer token (or set HAPPY_MEDIA_TOKEN)')
    .option('--max-upload-bytes <n>', `largest accepted upload (default ${DEFAULT_MAX_UPLOAD_BYTES})`)
    .option(
      '--allow-host <names>',
      'comma-separated host names clients may use besides loopback and --host (DNS-rebinding guard)',
    )
    .addHelpText(
      'after',
      '\nExample:\n  HAPPY_MEDIA_TOKEN=s3cret happy-media serve --dir ./blobs --port 8787\n  # prints http://127.0.0.1:8787, serves until Ctrl-C',
    )
    .action(
      runAction(async (options: ServeOptions) => {
        if (options.dir !== undefined && options.store !== undefined) {
          throw new UsageError('expected one of --dir and --store but received both');
        }
        const port = parseIntegerFlag(options.port, '--port', { max: 65535 });
        const maxUploadBytes =
          options.maxUploadBytes === undefined
            ? undefined
            : parseIntegerFlag(options.maxUploadBytes, '--max-upload-bytes');
        const host = parseHostFlag(options.host, '--host');
        const allowedHosts = (options.allowHost ?? '')
          .split(',')
          .filter((name) => name.length > 0)
          .map((name) => parseHostFlag(name.trim(), '--allow-host'));
        const token = await resolveToken(options);
        // A bad --store or --dir (s3:// without a bucket, a --dir that is a file) is usage: exit 2.
        const store = storeOf(
          () =>
            options.store !== undefined
              ? openStore(options.store)
              : new LocalBlobStore(options.dir ?? defaultBlobDir()),
          options.store !== undefined ? '--store' : '--dir',
        );
        // An S3 store without credentials would fail at its first request: say so before serving.
        if (store instanceof S3BlobStore) {
          await store.assertConfigured().catch((error: unknown) => {
            if (error instanceof InvalidArgumentError)
              throw new UsageError(`--store: ${error.message}`, { cause: error });
            throw error;
          });
        }
        const server = await startMediaServer({
          store,
          port,
          host,
          token,
          maxUploadBytes,
          allowedHosts,
        }).catch((error: unknown) => {
          // Every option comes from a flag: a bad one (e.g. a --host that is not this machine's) is usage.
          if (error instanceof InvalidArgumentError)
            throw new UsageError(`--host: ${error.message}`, { cause: error });
          throw error;
        });
        process.stdout.write(`${server.url}\n`);
        process.stderr.write(
          `happy-media serve: serving ${options.store ?? options.dir ?? defaultBlobDir()} at ${server.url} (${token ? 'bearer token required' : 'no token: anyone who can reach it can read and write'})\n`,
        );
        await new Promise<void>((resolve) => {
          const stop = () => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            resolve();
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
        await server.close();
      }),
    );
}
