/**
 * `happy-media play`: download, verify and hand over one media message's plaintext.
 *
 * Default: prints the path of the verified file (one line on stdout) and exits 0 only after every chunk
 * authenticated. The file lives in the playback cache (default `~/.cache/happy-media/media`, or
 * `--cache-dir` / `HAPPY_MEDIA_CACHE_DIR`), so it stays after the command exits; delete that directory
 * to clean up. `--serve` prints a loopback URL for streaming playback instead and serves until SIGINT or
 * SIGTERM. `--open` hands the path (or URL) to the desktop's opener when it is a photo, video, audio,
 * PDF or text file (`../desktop-opener.ts`). `--offset`/`--length` write only that plaintext range of v2
 * media (to stdout or `--output`) through random access, so media in parts has only the attachments
 * holding the range fetched.
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { DecryptionError, LimitError } from '../../errors.js';
import { parseHappyFileEvent } from '../../happy.js';
import { openMediaRandomAccess, storedMediaSize, toMediaRequest } from '../../index.js';
import {
  defaultCacheDir,
  MediaCache,
  type MediaInput,
  type MediaRefInput,
  openMedia,
  serveMedia,
  writeAfterCompletion,
  writePlaintextRange,
} from '../../node/index.js';
import type { BlobStore } from '../../storage.js';
import { writeStdout } from '../blob-command.js';
import { openOnDesktop } from '../desktop-opener.js';
import {
  addHappyOptions,
  connectHappy,
  type HappyFlags,
  openHappySession,
  talksToHappyAccount,
} from '../happy-options.js';
import { optionalIntegerFlag } from '../integer-flag.js';
import { interruptible } from '../interrupt.js';
import { resolveKey } from '../key-source.js';
import { runAction, withHint } from '../run-action.js';
import { findSessionMedia } from '../session-media.js';
import { openCliStore, storeErrorHint } from '../store-options.js';
import { UsageError } from '../usage-error.js';

/** Default cache budget of the CLI (bytes). */
const DEFAULT_CACHE_MAX_BYTES = 4 * 1024 ** 3;

/**
 * The idle timeout `--idle-timeout` names in its help: 30 s without a new chunk, the downloads' own
 * default (the flag is passed on only when given).
 */
export const DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS = 30_000;

/** The longest a timer can wait (2^31 − 1 ms, about 24.8 days): longer timeouts are clamped to it. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;
/** A message file is small JSON; anything bigger is not one. */
const MAX_MESSAGE_FILE_BYTES = 1024 * 1024;

interface PlayFlags extends HappyFlags {
  store?: string;
  token?: string;
  tokenFile?: string;
  session?: string;
  key?: string;
  keyFile?: string;
  format?: string;
  mimeType?: string;
  name?: string;
  cacheDir?: string;
  cacheMaxBytes?: string;
  retries?: string;
  timeout?: string;
  idleTimeout?: string;
  open?: boolean;
  serve?: boolean;
  port?: string;
  offset?: string;
  length?: string;
  output?: string;
}

/** A plaintext range asked for with `--offset`/`--length`. */
interface PlayRange {
  offset?: number;
  length?: number;
}

async function readStdin(): Promise<string> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const part of process.stdin as AsyncIterable<Buffer>) {
    total += part.length;
    if (total > MAX_MESSAGE_FILE_BYTES) throw new UsageError('expected a message of at most 1 MiB on stdin');
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * REF, MESSAGE.json, `-` (stdin), the `{ "message": ... }` object that `happy-media send` prints, or a
 * name the store's server gave the blob (a store with `mediaRef`: Happy's
 * `sessions/<sid>/attachments/<uuid>.enc`).
 */
async function resolveTarget(target: string, flags: PlayFlags, store: BlobStore): Promise<MediaInput> {
  let text: string | undefined;
  if (target === '-') {
    text = await readStdin();
  } else if (!target.startsWith('media/')) {
    const info = await stat(target).catch(() => undefined);
    if (info?.isFile()) {
      if (info.size > MAX_MESSAGE_FILE_BYTES)
        throw new UsageError(`expected a message file of at most 1 MiB but ${target} is bigger`);
      text = await readFile(target, 'utf8');
    } else if (typeof store.mediaRef === 'function' && !info) {
      // The server's name for the blob; a name of another session or shape is ERR_INVALID_REF.
      target = store.mediaRef(target);
    } else {
      throw new UsageError(
        `expected a media/<id> ref, a message .json file or - for REF|MESSAGE but received ${JSON.stringify(target.slice(0, 80))}`,
      );
    }
  }
  if (text === undefined) {
    const format = flags.format;
    if (format !== undefined && format !== 'v1' && format !== 'v2') {
      throw new UsageError(`expected v2 or v1 for --format but received ${format}`);
    }
    return {
      ref: target,
      ...(format === undefined ? {} : { format }),
      ...(flags.mimeType === undefined ? {} : { mimeType: flags.mimeType }),
      ...(flags.name === undefined ? {} : { name: flags.name }),
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new UsageError('expected a JSON message (photo, video or file) but the input is not JSON', {
      cause,
    });
  }
  if (typeof parsed === 'object' && parsed !== null && 'message' in parsed && !('type' in parsed)) {
    parsed = (parsed as { message: unknown }).message;
  }
  // Happy's own attachment message (what `send --format v1` prints): a v1 blob under the server's ref.
  const event = parseHappyFileEvent(parsed);
  if (event) {
    // Its ref is the server's name for the blob where the store has one (Happy's server).
    const ref =
      typeof store.mediaRef === 'function' && !event.ev.ref.startsWith('media/')
        ? store.mediaRef(event.ev.ref)
        : event.ev.ref;
    return {
      ref,
      format: 'v1',
      name: event.ev.name,
      size: event.ev.size,
      ...(event.ev.mimeType === undefined ? {} : { mimeType: event.ev.mimeType }),
    };
  }
  return parsed as MediaInput;
}

/** REF|MESSAGE with `--store` and the blob key's flags. */
async function fromStore(
  target: string,
  flags: PlayFlags,
): Promise<{ store: BlobStore; blobKey: Uint8Array; input: MediaInput; spec: string }> {
  const blobKey = await resolveKey({ key: flags.key, keyFile: flags.keyFile });
  const { store, spec } = await openCliStore(flags);
  try {
    return { store, blobKey, input: await resolveTarget(target, flags, store), spec };
  } catch (error) {
    throw withHint(error, storeErrorHint(spec, error));
  }
}

/** The flags that name a store or a key: with any of them (and no --happy), `play` reads from that store. */
const STORE_FLAGS = [
  ['store', '--store'],
  ['key', '--key'],
  ['keyFile', '--key-file'],
  ['token', '--token'],
  ['tokenFile', '--token-file'],
] as const;

/**
 * Whether `target` names a message file rather than a message id: `-` (stdin) or an existing file. A
 * target that looks like a path (a `/`, or ending in `.json`) but is no file is refused: no message id
 * has that shape.
 *
 * @throws {UsageError} `ERR_USAGE` for a path-like target that is not a regular file.
 */
async function isMessageFile(target: string): Promise<boolean> {
  if (target === '-') return true;
  const info = await stat(target).catch(() => undefined);
  if (info?.isFile()) return true;
  if (/[/\\]|\.json$/i.test(target)) {
    throw new UsageError(
      `expected a message id of the session or a message .json file but "${target.slice(0, 200)}" is ${info ? 'not a regular file' : 'no file'}`,
    );
  }
  return false;
}

/**
 * MESSAGE_ID in a Happy session, or a MESSAGE.json (or `-`) whose blob is in that session: the store and
 * key come from the session; the message from the session (an id) or the file.
 */
async function fromSession(
  target: string,
  flags: PlayFlags,
): Promise<{ store: BlobStore; blobKey: Uint8Array; input: MediaInput }> {
  const refused = (
    [
      ['store', '--store'],
      ['key', '--key'],
      ['keyFile', '--key-file'],
      ['token', '--token'],
      ['tokenFile', '--token-file'],
      ['format', '--format'],
      ['mimeType', '--mime-type'],
      ['name', '--name'],
    ] as const
  )
    .filter(([key]) => flags[key] !== undefined)
    .map(([, flag]) => flag);
  if (refused.length > 0) {
    throw new UsageError(
      `${refused.join(', ')} cannot go with --happy: the session's message gives the blob, its key and its format`,
    );
  }
  const messageFile = await isMessageFile(target);
  const client = await connectHappy(flags);
  const session = await openHappySession(client, flags.session);
  const store = client.attachmentStore(session);
  const input = messageFile
    ? await resolveTarget(target, flags, store)
    : await findSessionMedia(client, session, target);
  return { store, blobKey: session.blobKey, input };
}

/** `--timeout` and `--idle-timeout` as download options (checked, clamped to what a timer can wait). */
function parseDeadlines(flags: PlayFlags): { deadlineMs?: number; idleTimeoutMs?: number } {
  const deadlineMs = optionalIntegerFlag(flags.timeout, '--timeout');
  const idleTimeoutMs = optionalIntegerFlag(flags.idleTimeout, '--idle-timeout', { min: 1 });
  return {
    ...(deadlineMs === undefined ? {} : { deadlineMs: Math.min(deadlineMs, MAX_TIMER_DELAY_MS) }),
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs: Math.min(idleTimeoutMs, MAX_TIMER_DELAY_MS) }),
  };
}

/**
 * `input` with its plaintext size, refused when over the cache budget: the verified file must land in
 * the cache (its path is what `play` prints), so a file bigger than the budget is refused before
 * anything is downloaded rather than after. The size is the message's, else the stored blob's (one
 * `head`, which then spares the download its own); when the store cannot say, the download reports why.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the plaintext is larger than `maxBytes`.
 */
async function withKnownSize(
  input: MediaInput,
  store: BlobStore,
  blobKey: Uint8Array,
  maxBytes: number,
): Promise<MediaInput> {
  const request = toMediaRequest(input);
  let size = request.size;
  let sized = input;
  if (size === undefined) {
    try {
      size = await storedMediaSize(store, request.ref, blobKey, { format: request.format, retries: 0 });
    } catch {
      return input;
    }
    // A bare ref carries its size on to the download, which then needs no size request of its own; a
    // message's fields are the protocol's (a photo has no `size`), so it goes on as it is.
    if (request.kind === 'ref') sized = { ...(input as MediaRefInput), size };
  }
  if (size > maxBytes) {
    throw new LimitError(
      `the file is ${size} bytes, more than the cache budget of ${maxBytes} (--cache-max-bytes); raise it, or play with --serve`,
    );
  }
  return sized;
}

/** Registers `play` on the program. */
export function registerPlay(program: Command): void {
  const command = program
    .command('play')
    .description(
      'download and verify a photo/video/file; print the verified file path (or serve it on loopback)',
    )
    .argument(
      '<REF|MESSAGE.json|MESSAGE_ID>',
      'a media/<id> ref, a message JSON file, or - for stdin; with --happy, the id of a message in the session (or a message JSON file whose blob is in the session)',
    )
    .option(
      '--store <DIR|URL|s3://...>',
      'where the encrypted blob is: DIR, http(s)://, s3://, happy+https://host (default: $HAPPY_MEDIA_STORE or the local blob dir)',
    )
    .option(
      '--token-file <PATH>',
      'file holding the bearer token of an http(s) or Happy store (or set HAPPY_MEDIA_TOKEN)',
    )
    .option(
      '--session <ID>',
      'Happy session of the message (with --happy) or of the blob (with --store happy+https://host) (or set HAPPY_MEDIA_SESSION)',
    )
    .option(
      '--key <B64>',
      'blob key, base64 (visible in the process list; prefer --key-file or HAPPY_MEDIA_KEY)',
    )
    .option('--key-file <PATH>', 'file holding the base64 blob key')
    .option('--format <v2|v1>', 'blob format for a bare ref (v1: Happy whole-blob attachments)')
    .option('--mime-type <TYPE>', 'MIME type for a bare ref (else sniffed from the verified bytes)')
    .option('--name <NAME>', 'display name for a bare ref')
    .option(
      '--cache-dir <DIR>',
      'playback cache (default: $HAPPY_MEDIA_CACHE_DIR or ~/.cache/happy-media/media)',
    )
    .option('--cache-max-bytes <N>', `cache budget in bytes (default ${DEFAULT_CACHE_MAX_BYTES})`)
    .option('--retries <N>', 'consecutive failed download attempts tolerated (default 5)')
    .option(
      '--timeout <MS>',
      'the whole download must end within MS milliseconds (default: 10 minutes plus 1 s per 64 KiB; 0: none)',
    )
    .option(
      '--idle-timeout <MS>',
      `a connection that delivers no new chunk for MS milliseconds is dropped and retried (default ${DEFAULT_DOWNLOAD_IDLE_TIMEOUT_MS})`,
    )
    .option('--serve', 'print a loopback URL for streaming playback and serve until interrupted')
    .option('--port <N>', 'port for --serve (default: any free port)')
    .option(
      '--open',
      'open the verified file (or the --serve URL) with the desktop opener: photos, videos, audio, PDF and text only',
    )
    .option(
      '--offset <N>',
      'write only the plaintext from byte N on, to stdout or --output (v2 media: fetches only the chunks, and the parts, that hold the range)',
    )
    .option('--length <M>', 'write only M plaintext bytes (from --offset, default 0)')
    .option(
      '-o, --output <OUT>',
      'with --offset/--length: the file to write the range to (default - : stdout); it appears only when every byte verified',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  happy-media play media/tz4a98xxat96iws9zmbrgj3a --store ./blobs --key-file blob.key\n' +
        '  happy-media play --happy https://api.cluster-fluster.com --secret-file ~/.happy/access.key --session ID MESSAGE_ID\n' +
        '  happy-media play --happy https://api.cluster-fluster.com --session ID MESSAGE_ID --offset 1048576 --length 65536 -o piece.bin\n' +
        '\nWith --offset/--length, play prints no path: it writes the verified range (a range past the end is\n' +
        "an error, as for decrypt --offset). A v1 blob (Happy's own attachments) verifies only whole: play it\n" +
        'without them and read the range from the file whose path it prints.',
    );
  addHappyOptions(command).action(
    runAction(async (target: string, flags: PlayFlags) => {
      const retries = optionalIntegerFlag(flags.retries, '--retries', { max: 100 });
      const deadlines = parseDeadlines(flags);
      const range = parseRange(flags);
      const happy = talksToHappyAccount(flags, STORE_FLAGS, true);
      const { store, blobKey, input, spec } = happy
        ? { ...(await fromSession(target, flags)), spec: undefined }
        : await fromStore(target, flags);
      const hintOnFailure = !happy && target.startsWith('sessions/') && flags.format === undefined;
      try {
        if (range) await playRange(store, blobKey, input, range, flags.output ?? '-', retries, deadlines);
        else await playInput(store, blobKey, input, flags, retries, deadlines);
      } catch (error) {
        // Authentication failures all read the same (no detail); what is added here depends only on what
        // the user typed, so it tells nothing about the blob.
        if (hintOnFailure && error instanceof DecryptionError) throw withHint(error, V1_HINT);
        throw withHint(error, spec === undefined ? undefined : storeErrorHint(spec, error));
      }
    }),
  );
}

/**
 * Said after a failed bare `sessions/<sid>/attachments/<uuid>.enc`: that is where Happy's server keeps
 * attachments, and the ones Happy's app sends are v1 blobs, which a bare ref is not taken to be.
 */
const V1_HINT =
  "a sessions/…/attachments/….enc ref played without --format is read as a v2 blob; attachments sent by Happy's app are v1 blobs: add --format v1, or play the message that names it";

/**
 * `--offset`/`--length` (and `--output`, which only they use), checked before anything is fetched.
 *
 * @throws {UsageError} `ERR_USAGE` for a bad number, for `--output` without a range, and for a range
 *   with `--serve`, `--port` or `--open` (a range is bytes written out, not a file to serve or open).
 */
function parseRange(flags: PlayFlags): PlayRange | undefined {
  const offset = optionalIntegerFlag(flags.offset, '--offset');
  const length = optionalIntegerFlag(flags.length, '--length');
  if (offset === undefined && length === undefined) {
    if (flags.output !== undefined) {
      throw new UsageError(
        "--output is for --offset/--length: without them play prints the verified file's path (copy it from there)",
      );
    }
    return undefined;
  }
  const refused = (
    [
      ['serve', '--serve'],
      ['port', '--port'],
      ['open', '--open'],
    ] as const
  )
    .filter(([key]) => flags[key] !== undefined)
    .map(([, flag]) => flag);
  if (refused.length > 0) {
    throw new UsageError(
      `${refused.join(', ')} cannot go with --offset/--length: a range is written to stdout or --output; serve or open the whole media without them (a player seeks through --serve)`,
    );
  }
  return { ...(offset === undefined ? {} : { offset }), ...(length === undefined ? {} : { length }) };
}

/**
 * Writes plaintext `range` of v2 media to `outPath` (`-`: stdout, after every byte of the range
 * verified), through random access: only the chunks holding the range are read, and of media in parts
 * only the attachments holding them (besides the manifest and what opening any blob reads).
 *
 * @throws {UsageError} `ERR_USAGE` for v1 media (one secretbox, verified only whole).
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a range outside the plaintext.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when the media does not authenticate or its size is
 *   not the message's.
 */
async function playRange(
  store: BlobStore,
  blobKey: Uint8Array,
  input: MediaInput,
  range: PlayRange,
  outPath: string,
  retries: number | undefined,
  deadlines: { deadlineMs?: number; idleTimeoutMs?: number },
): Promise<void> {
  const request = toMediaRequest(input);
  if (request.format === 'v1') {
    throw new UsageError(
      "a v1 blob (Happy's own attachment) is one secretbox that verifies only whole, so --offset/--length cannot read part of it: play it without them and read the range from the verified file whose path play prints",
    );
  }
  await interruptible(async (signal) => {
    const reader = await openMediaRandomAccess(store, request.ref, blobKey, {
      ...(retries === undefined ? {} : { retries }),
      ...deadlines,
      ...(request.size === undefined ? {} : { size: request.size }),
    });
    if (outPath !== '-') {
      await writePlaintextRange(reader, outPath, range, signal);
      return;
    }
    // stdout cannot be un-written: the range goes through a private temp file first.
    await writeAfterCompletion((temp) => writePlaintextRange(reader, temp, range, signal), writeStdout);
  });
}

/** Plays `input`: a loopback URL with --serve, else the verified file's path in the cache. */
async function playInput(
  store: BlobStore,
  blobKey: Uint8Array,
  input: MediaInput,
  flags: PlayFlags,
  retries: number | undefined,
  deadlines: { deadlineMs?: number; idleTimeoutMs?: number },
): Promise<void> {
  if (flags.serve) {
    const port = optionalIntegerFlag(flags.port, '--port', { max: 65535 });
    const endpoint = await serveMedia(input, {
      store,
      blobKey,
      ...(port === undefined ? {} : { port }),
      ...(retries === undefined ? {} : { retries }),
    });
    process.stdout.write(`${endpoint.url}\n`);
    if (flags.open) openOnDesktop(endpoint.url);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await endpoint.close();
    return;
  }

  const cache = new MediaCache({
    dir: flags.cacheDir ?? (process.env.HAPPY_MEDIA_CACHE_DIR || defaultCacheDir()),
    maxBytes: optionalIntegerFlag(flags.cacheMaxBytes, '--cache-max-bytes') ?? DEFAULT_CACHE_MAX_BYTES,
  });
  const sized = await withKnownSize(input, store, blobKey, cache.maxBytes);
  const tty = process.stderr.isTTY === true;
  let shown = -1;
  await interruptible(async (signal) => {
    const media = await openMedia(sized, {
      store,
      blobKey,
      cache,
      signal,
      ...(retries === undefined ? {} : { retries }),
      ...deadlines,
      onProgress: ({ done, total }) => {
        const percent = total === 0 ? 100 : Math.floor((done * 100) / total);
        if (tty && percent !== shown) {
          shown = percent;
          process.stderr.write(`\rdownloading and verifying: ${percent}%`);
        }
      },
    });
    if (tty && shown >= 0) process.stderr.write('\n');
    if (!media.cached) {
      await media.dispose();
      throw new LimitError(
        `the file is ${media.size} bytes, more than the cache budget of ${cache.maxBytes}; raise --cache-max-bytes`,
      );
    }
    process.stdout.write(`${media.path}\n`);
    if (flags.open) openOnDesktop(media.path);
    await media.dispose();
  });
}
