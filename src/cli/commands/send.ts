/**
 * `happy-media send FILE --store SPEC [--key-file PATH] [--role user|agent] [--turn ID]
 * [--seal-key-file PATH --variant legacy|datakey]`: probes the file, encrypts it into the store and
 * prints one JSON object `{ "message": {...}, "envelope": {...}? }` on stdout. On a terminal a progress
 * bar goes to stderr; otherwise it is quiet.
 *
 * Keys: the blob key from `--key-file`, `HAPPY_MEDIA_KEY` or `--key`; the session key for the envelope
 * from `--seal-key-file`, `HAPPY_MEDIA_SEAL_KEY` or `--seal-key` (`--key`/`--seal-key` are visible in
 * the process list).
 *
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { sessionKey } from '../../envelope.js';
import {
  defaultBlobDir,
  HappyMediaError,
  isMetadataStripRefusal,
  type SendProgress,
  sendMedia,
  sendToSession,
} from '../../node/index.js';
import { importOptional } from '../../node/optional-dependency.js';
import {
  addHappyOptions,
  connectHappy,
  type HappyFlags,
  openHappySession,
  talksToHappyAccount,
} from '../happy-options.js';
import { parseIntegerFlag } from '../integer-flag.js';
import { interruptible } from '../interrupt.js';
import { decodeKey, resolveKey } from '../key-source.js';
import { runAction, withHint } from '../run-action.js';
import { openCliStore, storeErrorHint } from '../store-options.js';
import { UsageError } from '../usage-error.js';

interface SendCliOptions extends HappyFlags {
  store?: string;
  key?: string;
  keyFile?: string;
  role?: 'user' | 'agent';
  turn?: string;
  sealKey?: string;
  sealKeyFile?: string;
  variant?: 'legacy' | 'datakey';
  token?: string;
  tokenFile?: string;
  session?: string;
  format?: 'v2' | 'v1';
  keepMetadata?: boolean;
  partBytes?: string;
  resume?: boolean;
}

/** Environment variable that may hold the session key for `--seal-key`. */
export const SEAL_KEY_ENV_VARIABLE = 'HAPPY_MEDIA_SEAL_KEY';

/**
 * The session key for sealing: `--seal-key`, `--seal-key-file` or `HAPPY_MEDIA_SEAL_KEY` (or none).
 *
 * @throws {UsageError} `ERR_USAGE` for both flags at once, an unreadable file or a malformed key.
 */
export async function resolveSealKey(options: {
  sealKey?: string;
  sealKeyFile?: string;
}): Promise<Uint8Array | undefined> {
  if (options.sealKey !== undefined && options.sealKeyFile !== undefined) {
    throw new UsageError('expected one of --seal-key and --seal-key-file but received both');
  }
  if (options.sealKey !== undefined) return decodeKey(options.sealKey, '--seal-key');
  if (options.sealKeyFile !== undefined) {
    let text: string;
    try {
      text = await readFile(options.sealKeyFile, 'utf8');
    } catch (cause) {
      throw new UsageError(`cannot read --seal-key-file "${options.sealKeyFile}"`, { cause });
    }
    return decodeKey(text, '--seal-key-file');
  }
  const fromEnv = process.env[SEAL_KEY_ENV_VARIABLE];
  return fromEnv ? decodeKey(fromEnv, SEAL_KEY_ENV_VARIABLE) : undefined;
}

/** What `send` tells on stderr while it works. */
interface SendReporter {
  /** A progress event: the bar on a terminal; elsewhere a line per part stored, for media in parts. */
  update: (event: SendProgress) => void;
  /** Something the user should know now (a wait Happy's server imposes, a resumed send): one line. */
  note: (text: string) => void;
  stop: () => void;
}

/**
 * What `send` tells on stderr: on a terminal a progress bar (bytes across the parts of media in parts)
 * and notes above it; elsewhere notes and, for media in parts, a line per part stored, and nothing for
 * media in one attachment (logs and pipes stay clean). cli-progress (an optional peer of happy-media) is
 * loaded only for the terminal.
 *
 * @throws {MissingDependencyError} on a terminal without cli-progress installed.
 */
async function progressReporter(): Promise<SendReporter> {
  const say = (text: string) => process.stderr.write(`happy-media send: ${text}\n`);
  if (!process.stderr.isTTY) {
    let bytes = 0;
    return {
      update(event) {
        if (event.step === 'encrypt-upload') bytes = event.done;
        else if (event.step === 'parts') say(`part ${event.done} of ${event.total} stored (${bytes} bytes)`);
      },
      note: say,
      stop: () => {},
    };
  }
  const cliProgress = await importOptional(
    'cli-progress',
    'the progress bar of happy-media send',
    () => import('cli-progress'),
  );
  let bar: InstanceType<typeof cliProgress.SingleBar> | undefined;
  return {
    update(event) {
      if (event.step !== 'encrypt-upload') return;
      if (!bar) {
        bar = new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: 'encrypt + upload [{bar}] {percentage}% | {value}/{total} bytes | {eta_formatted}',
            hideCursor: true,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(event.total, 0);
      }
      bar.update(event.done);
    },
    note(text) {
      // Above the bar: the line is cleared first, and the bar draws itself again at its next update.
      process.stderr.write('\r\x1b[2K');
      say(text);
    },
    stop() {
      bar?.stop();
    },
  };
}

/** `--part-bytes N` as the send option (a part holds at least the header and one 16 400-byte chunk). */
function partBytes(options: SendCliOptions): { partBytes?: number } {
  if (options.partBytes === undefined) return {};
  if (options.format === 'v1')
    throw new UsageError('--part-bytes is for v2 media: a v1 blob is one attachment');
  return { partBytes: parseIntegerFlag(options.partBytes, '--part-bytes', { min: 56 + 16400 }) };
}

/** What a send takes from its flags, the same on either road (into a store or into a session). */
function sendFlags(options: SendCliOptions) {
  return {
    role: options.role,
    turn: options.turn,
    ...partBytes(options),
    ...(options.resume === false ? { resume: false as const } : {}),
    ...(options.format ? { format: options.format } : {}),
    ...(options.keepMetadata ? { keepMetadata: true as const } : {}),
  };
}

/**
 * The flag that acts on a failure of the send itself: `--keep-metadata` on a file whose metadata the strip
 * refused; leaving out `--format v1` on a v1 file over Happy's cap (sent as v2, in parts).
 */
function sendHint(options: SendCliOptions, error: unknown): string | undefined {
  if (isMetadataStripRefusal(error)) {
    return '--keep-metadata sends the file as it is, its location and camera details included';
  }
  return options.format === 'v1' && error instanceof HappyMediaError && error.code === 'ERR_LIMIT_EXCEEDED'
    ? 'leave out --format v1 to send it as v2, in parts'
    : undefined;
}

/** Options that name keys or stores, which the session gives with --happy. */
const NOT_WITH_HAPPY: [keyof SendCliOptions, string][] = [
  ['store', '--store'],
  ['key', '--key'],
  ['keyFile', '--key-file'],
  ['sealKey', '--seal-key'],
  ['sealKeyFile', '--seal-key-file'],
  ['variant', '--variant'],
  ['token', '--token'],
  ['tokenFile', '--token-file'],
];

/**
 * Refuses an empty file before anything is read or uploaded: a 0-byte photo, video or file is nothing to
 * show, and a message sent into a session stays there. A path that cannot be examined is left to the
 * pipeline, which says why it cannot be read.
 *
 * @throws {UsageError} `ERR_USAGE` for a regular file of 0 bytes.
 */
async function refuseEmptyFile(file: string): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (info?.isFile() && info.size === 0) {
    throw new UsageError(`"${file}" is empty (0 bytes): there is nothing to send; nothing was uploaded`);
  }
}

/**
 * `send FILE --happy URL --session ID`: probe → encrypt → upload to the session's attachments → build the
 * message → append it to the session; prints `{ message, seq }`.
 */
async function sendIntoSession(file: string, options: SendCliOptions): Promise<void> {
  const given = NOT_WITH_HAPPY.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
  if (given.length > 0) {
    throw new UsageError(
      `${given.join(', ')} cannot go with --happy: the session gives the store, the keys and the token (signed in with --secret-file)`,
    );
  }
  const client = await connectHappy(options);
  const session = await openHappySession(client, options.session);
  const progress = await progressReporter();
  try {
    const result = await interruptible((signal) =>
      sendToSession(file, {
        client,
        session,
        signal,
        onProgress: progress.update,
        onNotice: progress.note,
        ...sendFlags(options),
      }),
    ).catch((error: unknown) => {
      throw withHint(error, sendHint(options, error));
    });
    progress.stop();
    process.stdout.write(`${JSON.stringify({ message: result.message, seq: result.seq })}\n`);
    if (result.probe.warning) process.stderr.write(`happy-media send: warning: ${result.probe.warning}\n`);
  } finally {
    progress.stop();
  }
}

/**
 * `send FILE --store SPEC`: probe → encrypt → upload to the store → build the message (sealed too with a
 * session key); prints `{ message, envelope? }`.
 */
async function sendIntoStore(file: string, options: SendCliOptions): Promise<void> {
  const blobKey = await resolveKey(options);
  const seal = await resolveSealKey(options);
  if (!seal && options.variant !== undefined) {
    throw new UsageError('--variant needs a session key: pass --seal-key-file (or HAPPY_MEDIA_SEAL_KEY)');
  }
  const sealKey = seal ? sessionKey(options.variant ?? 'datakey', seal) : undefined;
  const { store, spec } = await openCliStore(options, { blobKey, ...(sealKey ? { sealKey } : {}) });
  const progress = await progressReporter();
  try {
    const result = await interruptible((signal) =>
      sendMedia(file, {
        store,
        blobKey,
        sealKey,
        signal,
        onProgress: progress.update,
        onNotice: progress.note,
        ...sendFlags(options),
      }),
    ).catch((error: unknown) => {
      throw withHint(error, sendHint(options, error) ?? storeErrorHint(spec, error));
    });
    progress.stop();
    const out = result.envelope
      ? { message: result.message, envelope: result.envelope }
      : { message: result.message };
    process.stdout.write(`${JSON.stringify(out)}\n`);
    if (result.probe.warning) process.stderr.write(`happy-media send: warning: ${result.probe.warning}\n`);
  } finally {
    progress.stop();
  }
}

/** Registers `send` on the program. */
export function registerSend(program: Command): void {
  const command = program
    .command('send')
    .description(
      'probe, encrypt and upload a file; print its v2 message (and envelope) as JSON; with --happy, send it into a Happy session',
    )
    .argument('<file>', 'the photo, video or file to send')
    .option(
      '--store <spec>',
      `directory, http(s)://server, s3://bucket/prefix or happy+https://host (Happy's server) (default: HAPPY_MEDIA_STORE or ${defaultBlobDir()})`,
    )
    .option('--key <base64>', 'the 32-byte blob key (visible in the process list: prefer --key-file)')
    .option('--key-file <path>', 'file holding the base64 blob key (or set HAPPY_MEDIA_KEY)')
    .addOption(
      program
        .createOption('--role <role>', 'author of the message (default: agent with --turn, else user)')
        .choices(['user', 'agent']),
    )
    .option('--turn <id>', 'turn id (agent messages)')
    .option('--seal-key <base64>', 'also seal the message with this session key (prefer --seal-key-file)')
    .option('--seal-key-file <path>', `file holding the base64 session key (or set ${SEAL_KEY_ENV_VARIABLE})`)
    .addOption(
      program
        .createOption('--variant <variant>', 'envelope variant for --seal-key')
        .choices(['legacy', 'datakey']),
    )
    .option('--token <token>', 'bearer token of an http(s) store (prefer --token-file or HAPPY_MEDIA_TOKEN)')
    .option('--token-file <path>', 'file holding the bearer token (or set HAPPY_MEDIA_TOKEN)')
    .option(
      '--session <id>',
      'Happy session to send into (with --happy) or attach to (with --store happy+https://host) (or set HAPPY_MEDIA_SESSION)',
    )
    .addOption(
      program
        .createOption(
          '--format <format>',
          "blob format: v2 (chunked, any size: in parts over Happy's 10 MiB; the default) or v1 (what Happy's released app opens, at most 10 MiB)",
        )
        .choices(['v2', 'v1']),
    )
    .option(
      '--part-bytes <N>',
      "largest attachment of media sent in parts (default: the store's limit, 10485760 on Happy's server); smaller parts redo less after a failure, each costs one of Happy's 60 new attachments a minute",
    )
    .option(
      '--keep-metadata',
      'send the file as it is; by default a photo or video loses its location, camera, owner, software and time metadata first (in place: same size, same pixels)',
    )
    .option(
      '--no-resume',
      'send afresh: do not resume an interrupted send of this file to this place, nor record this one',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  happy-media keygen --out blob.key\n  happy-media send shot.png --store ./blobs --key-file blob.key\n' +
        '  happy-media send clip.mp4 --store http://127.0.0.1:8787 --key-file blob.key --turn t1 --seal-key-file session.key\n' +
        '  happy-media send photo.jpg --happy https://api.cluster-fluster.com --secret-file ~/.happy/access.key --session ID --format v1',
    );
  addHappyOptions(command).action(
    runAction(async (file: string, options: SendCliOptions) => {
      await refuseEmptyFile(file);
      if (talksToHappyAccount(options, NOT_WITH_HAPPY, true)) {
        await sendIntoSession(file, options);
        return;
      }
      await sendIntoStore(file, options);
    }),
  );
}
