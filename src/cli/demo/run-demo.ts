/**
 * `happy-media demo`: the whole mission on the embedded default, with nothing to set up.
 *
 * Sample media → probe → keys from the key tree → encrypt + upload (embedded local store, mirrored to the
 * HTTP media server started in-process) → sealed v2 messages in a short valid stream (JSONL) → validate →
 * play every media message back from both stores and compare it with what was sent (SHA-256) → when a
 * Happy server is reachable (`HAPPY_MEDIA_HAPPY_SERVER_URL`), send the photo through it as v2 and as v1.
 * Each step lives in its own `step-*.ts`; this file orders them and reports.
 *
 * @module
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toBase64 } from '../../envelope.js';
import { InternalError } from '../../errors.js';
import { conversationHead, createDemoTurn } from './conversation.js';
import type { DemoFiles, DemoItem, DemoKeys } from './demo-state.js';
import { DemoRecorder, type DemoReport } from './report.js';
import { type HappyServerTarget, sendThroughHappyServer } from './step-happy-server.js';
import { deriveKeys } from './step-keys.js';
import { playBackFromBothStores } from './step-playback.js';
import { probeSamples } from './step-probe.js';
import { makeSamples } from './step-samples.js';
import { sendSamples } from './step-send.js';
import { type Closable, openStores } from './step-stores.js';
import { writeAndValidateStream } from './step-stream.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Keep the working directory (samples, stores, JSONL) instead of removing it at the end. */
  keep?: boolean;
  /** Parent of the working directory (default: the OS temp dir). */
  parentDir?: string;
  /** Where progress lines go; `undefined` prints nothing (for `--json`). */
  print?: (line: string) => void;
  /**
   * A running Happy server to send through (a throwaway account and session are made on it, never the
   * user's). Default: `HAPPY_MEDIA_HAPPY_SERVER_URL`; without one, that step says how to start one and
   * is skipped.
   */
  happyServer?: HappyServerTarget;
}

/**
 * Runs the demo and returns its report; `report.ok` is true only when every check held.
 *
 * ffmpeg comes from the system or the bundled optional dependency; without any, the video is skipped
 * (reported, with how to install it) and the rest still runs.
 *
 * @example
 * ```ts
 * const report = await runDemo({ print: console.log });
 * process.exitCode = report.ok ? 0 : 1;
 * ```
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoReport> {
  const rec = new DemoRecorder(options.print);
  const parent = options.parentDir ?? tmpdir();
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(join(parent, 'happy-media-demo-'));
  const files: DemoFiles = {
    samples: join(dir, 'samples'),
    localStore: join(dir, 'store'),
    serverStore: join(dir, 'server'),
    stream: join(dir, 'session.jsonl'),
    sealedStream: join(dir, 'session.sealed.jsonl'),
  };
  options.print?.(`happy-media demo: the whole mission on the embedded default, in ${dir}`);
  let server: Closable | undefined;
  let next: string[] = [];
  try {
    const made = await runSteps(rec, options, dir, files, (started) => {
      server = started;
    });
    if (options.keep && made.keys) next = await keepKeys(dir, files, made.keys, made.items ?? []);
  } finally {
    await server?.close();
    if (!options.keep) await rm(dir, { recursive: true, force: true });
  }
  const totals = rec.totals();
  const report: DemoReport = {
    ok: rec.ok && totals.failed === 0,
    dir,
    kept: options.keep === true,
    files,
    steps: rec.steps,
    totals,
    next,
  };
  if (options.print) printSummary(options.print, report);
  return report;
}

/**
 * The steps in order. Each step needs what the ones before produced, so the first that fails (returns
 * `undefined`) ends the run; its failure is already recorded.
 */
async function runSteps(
  rec: DemoRecorder,
  options: DemoOptions,
  dir: string,
  files: DemoFiles,
  onServer: (server: Closable) => void,
): Promise<{ keys?: DemoKeys; items?: DemoItem[] }> {
  for (const d of [files.samples, files.localStore, files.serverStore])
    await mkdir(d, { recursive: true, mode: 0o700 });
  const items = await makeSamples(rec, files.samples);
  if (!items) return {};
  if (!(await probeSamples(rec, items))) return { items };
  const keys = await deriveKeys(rec);
  if (!keys) return { items };
  const made = { keys, items };
  const stores = await openStores(rec, files, onServer);
  if (!stores) return made;
  // The conversation's head is made before the media is sent, so it is older than the media messages.
  const turn = createDemoTurn();
  const head = conversationHead(turn);
  if (!(await sendSamples(rec, items, stores, keys, turn))) return made;
  if (!(await writeAndValidateStream(rec, head, items, turn, keys, files))) return made;
  const tempRoot = join(dir, 'play');
  if (!(await playBackFromBothStores(rec, items, stores, keys, tempRoot))) return made;
  await sendThroughHappyServer(rec, options.happyServer, items, turn, tempRoot);
  return made;
}

/**
 * With `--keep`: the session's blob key and data key as files (0600 in a 0700 `keys/`; the master secret
 * is not kept: nothing the demo left needs it), added to `files`, and the commands that replay what the
 * run left with them. Without the keys, nothing kept could be opened or played.
 */
async function keepKeys(dir: string, files: DemoFiles, keys: DemoKeys, items: DemoItem[]): Promise<string[]> {
  const keyDir = join(dir, 'keys');
  await mkdir(keyDir, { mode: 0o700 });
  const blobKey = join(keyDir, 'blob.key');
  const sessionKey = join(keyDir, 'session.key');
  if (keys.sealKey.variant !== 'datakey') {
    throw new InternalError(`the demo seals with the dataKey variant but its key is ${keys.sealKey.variant}`);
  }
  await writeFile(blobKey, `${toBase64(keys.blobKey)}\n`, { mode: 0o600, flag: 'wx' });
  await writeFile(sessionKey, `${toBase64(keys.sealKey.key)}\n`, { mode: 0o600, flag: 'wx' });
  files.blobKey = blobKey;
  files.sessionKey = sessionKey;
  const q = shellQuoted;
  const next = [
    `happy-media validate ${q(files.stream)}`,
    `head -n 1 ${q(files.sealedStream)} | happy-media open --key-file ${q(sessionKey)} -`,
  ];
  for (const item of items) {
    const ref = item.message && 'ref' in item.message ? item.message.ref : undefined;
    if (typeof ref === 'string') {
      next.push(
        `happy-media play ${ref} --store ${files.localStore} --key-file ${blobKey}   # the ${item.label}`,
      );
    }
  }
  return next;
}

/** `text` as one shell word (single-quoted unless it is plainly safe), for commands printed to copy. */
function shellQuoted(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** The closing lines: where the files are (or were) and the verdict. */
function printSummary(print: (line: string) => void, report: DemoReport): void {
  const { totals } = report;
  print('');
  print(`Files${report.kept ? '' : ' (removed; run with --keep to keep them)'}:`);
  for (const [name, path] of Object.entries(report.files)) print(`   ${name.padEnd(13)} ${path}`);
  if (report.next.length > 0) {
    print('');
    print('Next, with the kept keys (0600 files in keys/), replay what the run left:');
    for (const command of report.next) print(`   ${command}`);
  }
  print('');
  print(
    report.ok
      ? `PASS: all ${totals.passed} checks held${totals.skipped ? ` (${totals.skipped} part skipped, see above)` : ''}.`
      : `FAIL: ${totals.failed} check(s) failed, ${totals.passed} held.`,
  );
}
