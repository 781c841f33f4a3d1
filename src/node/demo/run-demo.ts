/**
 * `happy-media demo`: the whole mission on the embedded default, with nothing to set up.
 *
 * Sample media → probe → keys from the key tree → encrypt + upload (embedded local store, mirrored to the
 * HTTP media server started in-process) → sealed v2 messages in a short valid stream (JSONL) → validate →
 * play every media message back from both stores and compare it with the original (SHA-256) → when a
 * Happy server is reachable (`HAPPY_MEDIA_HAPPY_SERVER_URL`), send the photo through it as v2 and as v1.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ciphertextSize } from '../../core/blob/index.js';
import { randomBytes } from '../../core/bytes.js';
import {
  boxDataKey,
  contentKeyPair,
  createDataKey,
  dataKey,
  decryptV1Blob,
  masterBlobKey,
  openDataKeyBundle,
  openMessage,
  sealMessage,
  sessionBlobKey,
} from '../../core/envelope/index.js';
import {
  createMessageId,
  permissionRequest,
  permissionResponse,
  type SessionMessage,
  textMessage,
  toolCallEnd,
  toolCallStart,
  turnEnd,
  turnStart,
  validateStream,
} from '../../core/protocol/index.js';
import { ffmpegAvailability, type MediaProbe, probeMedia } from '../media/index.js';
import { openMedia } from '../playback/index.js';
import { sendMedia } from '../send/index.js';
import {
  type BlobStore,
  HappyServerStore,
  HttpBlobStore,
  LocalBlobStore,
  startMediaServer,
} from '../storage/index.js';
import { createHappyAccount } from './happy-account.js';
import { DemoRecorder, type DemoReport } from './report.js';
import {
  createDemoSamples,
  DEMO_PHOTO_SIZE,
  DEMO_VIDEO_SIZE,
  type DemoSamples,
  type DemoTools,
} from './samples.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Keep the working directory (samples, stores, JSONL) instead of removing it at the end. */
  keep?: boolean;
  /** Parent of the working directory (default: the OS temp dir). */
  parentDir?: string;
  /** Where progress lines go; `undefined` prints nothing (for `--json`). */
  print?: (line: string) => void;
  /**
   * A running Happy server to send through (its URL; with `token` and `sessionId`, an existing account,
   * else a throwaway account is made). Default: `HAPPY_MEDIA_HAPPY_SERVER_URL` (with `HAPPY_MEDIA_TOKEN`
   * and `HAPPY_MEDIA_SESSION`); without one, that step says how to start one and is skipped.
   */
  happyServer?: { url: string; token?: string; sessionId?: string };
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function describeProbe(p: MediaProbe): string {
  const dims = p.width !== undefined && p.height !== undefined ? ` ${p.width}×${p.height}` : '';
  const duration = p.durationMs !== undefined ? ` ${(p.durationMs / 1000).toFixed(2)} s` : '';
  const hash = p.thumbhash ? `, thumbhash ${p.thumbhash.slice(0, 12)}…` : '';
  return `${p.kind} ${p.mimeType}${dims}${duration}, ${kib(p.size)}${hash}`;
}

/** One sample as it goes through the pipeline. */
interface Item {
  label: string;
  path: string;
  sha256: string;
  probe?: MediaProbe;
  message?: SessionMessage;
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
  const files: Record<string, string> = {
    samples: join(dir, 'samples'),
    localStore: join(dir, 'store'),
    serverStore: join(dir, 'server'),
    stream: join(dir, 'session.jsonl'),
    sealedStream: join(dir, 'session.sealed.jsonl'),
  };
  options.print?.(`happy-media demo: the whole mission on the embedded default, in ${dir}`);
  let server: { url: string; close(): Promise<void> } | undefined;
  try {
    await run();
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
  };
  options.print?.('');
  options.print?.(`Files${report.kept ? '' : ' (removed; run with --keep to keep them)'}:`);
  for (const [name, path] of Object.entries(files)) options.print?.(`   ${name.padEnd(13)} ${path}`);
  options.print?.('');
  options.print?.(
    report.ok
      ? `PASS: all ${totals.passed} checks held${totals.skipped ? ` (${totals.skipped} part skipped, see above)` : ''}.`
      : `FAIL: ${totals.failed} check(s) failed, ${totals.passed} held.`,
  );
  return report;

  async function run(): Promise<void> {
    for (const d of [files.samples!, files.localStore!, files.serverStore!])
      await mkdir(d, { recursive: true, mode: 0o700 });

    // 1. Samples.
    const samples = await rec.step('Generate sample media', async (s): Promise<DemoSamples> => {
      const tools = await ffmpegAvailability();
      let video: DemoTools | undefined;
      if (tools.ffmpeg.available && tools.ffprobe.available) {
        video = { ffmpeg: tools.ffmpeg.path, ffprobe: tools.ffprobe.path };
        for (const t of [tools.ffmpeg, tools.ffprobe])
          s.info(`${t.source.padEnd(8)} ${t.path}: ${t.version}`);
      } else
        s.skip(
          `the rotated phone video needs ffmpeg/ffprobe (npm install happy-media's optional dependencies, apt-get install ffmpeg, or set FFMPEG_PATH/FFPROBE_PATH): ${tools.ffmpeg.error ?? tools.ffprobe.error ?? ''}`,
        );
      const made = await createDemoSamples(files.samples!, video);
      for (const note of made.notes) s.info(`note: ${note}`);
      for (const path of [made.photo, made.video, made.pdf]) {
        if (path) s.info(`${basename(path).padEnd(18)} ${kib((await stat(path)).size)}`);
      }
      return made;
    });
    if (!samples) return;
    const items: Item[] = [];
    for (const [label, path] of [
      ['photo', samples.photo],
      ['video', samples.video],
      ['PDF', samples.pdf],
    ] as const) {
      if (path) items.push({ label, path, sha256: await sha256File(path) });
    }

    // 2. Probe.
    const probed = await rec.step(
      'Probe (MIME by content, dimensions after rotation, thumbhash)',
      async (s) => {
        for (const item of items) {
          item.probe = await probeMedia(item.path);
          s.info(`${basename(item.path).padEnd(18)} ${describeProbe(item.probe)}`);
        }
        const [photo, video, pdf] = ['photo', 'video', 'PDF'].map(
          (l) => items.find((i) => i.label === l)?.probe,
        );
        s.check(
          `photo is a ${DEMO_PHOTO_SIZE.width}×${DEMO_PHOTO_SIZE.height} image/jpeg photo with a thumbhash`,
          photo?.kind === 'photo' &&
            photo.mimeType === 'image/jpeg' &&
            photo.width === DEMO_PHOTO_SIZE.width &&
            photo.height === DEMO_PHOTO_SIZE.height &&
            !!photo.thumbhash,
        );
        if (video) {
          s.check(
            `video recorded sideways reports its display size ${DEMO_VIDEO_SIZE.height}×${DEMO_VIDEO_SIZE.width} (90° display matrix applied), ~${DEMO_VIDEO_SIZE.durationMs / 1000} s, thumbhash`,
            video.kind === 'video' &&
              video.width === DEMO_VIDEO_SIZE.height &&
              video.height === DEMO_VIDEO_SIZE.width &&
              Math.abs((video.durationMs ?? 0) - DEMO_VIDEO_SIZE.durationMs) <= 150 &&
              !!video.thumbhash,
          );
        }
        s.check('PDF is an application/pdf file', pdf?.kind === 'file' && pdf.mimeType === 'application/pdf');
        return true;
      },
    );
    if (!probed) return;

    // 3. Keys.
    const keys = await rec.step('Keys from the key tree', async (s) => {
      const master = randomBytes(32);
      const account = contentKeyPair(master);
      const sessionDataKey = createDataKey();
      const bundle = boxDataKey(sessionDataKey, account.publicKey);
      const blobKey = sessionBlobKey(sessionDataKey);
      s.info('master secret: 32 random bytes (never leaves this process; not printed)');
      s.info(
        `content key pair from the master; session data key boxed for its public key: ${bundle.length}-byte bundle`,
      );
      s.info(
        'session blob key = sessionBlobKey(dataKey); messages sealed with the dataKey variant (AES-256-GCM)',
      );
      s.check(
        'the data-key bundle opens with the content secret key to the same data key',
        isDeepStrictEqual(openDataKeyBundle(bundle, account.secretKey), sessionDataKey),
      );
      s.check(
        'the session blob key is deterministic and distinct from the master blob key',
        isDeepStrictEqual(sessionBlobKey(sessionDataKey), blobKey) &&
          !isDeepStrictEqual(masterBlobKey(master), blobKey),
      );
      return { blobKey, sealKey: dataKey(sessionDataKey) };
    });
    if (!keys) return;

    // 4. Stores.
    const stores = await rec.step(
      'Stores: embedded local store and the HTTP media server (in-process)',
      async (s) => {
        const local = new LocalBlobStore(files.localStore!);
        server = await startMediaServer({ dir: files.serverStore!, host: '127.0.0.1', port: 0 });
        s.info(`local store  ${files.localStore}`);
        s.info(`HTTP server  ${server.url} (loopback; stores ciphertext only) → ${files.serverStore}`);
        return { local, http: new HttpBlobStore(server.url) as BlobStore };
      },
    );
    if (!stores) return;

    // 5. The conversation's head, then the media sent inside the agent's turn.
    const turn = createMessageId();
    const callId = createMessageId();
    const head: SessionMessage[] = [
      textMessage({
        role: 'user',
        text: 'The app crashes when I rotate the phone. Can you capture it and attach the crash report?',
      }),
      turnStart({ turn }),
      toolCallStart({
        turn,
        callId,
        toolName: 'capture',
        title: 'Capture screen and crash report',
        description: 'Record the screen, take a screenshot and export the crash report',
        args: { screen: true, report: true },
      }),
      permissionRequest({
        turn,
        callId,
        toolName: 'capture',
        title: 'Allow screen capture?',
        options: [
          { id: 'allow', label: 'Allow once', kind: 'allow-once' },
          { id: 'deny', label: 'Deny', kind: 'reject-once' },
        ],
      }),
      permissionResponse({ callId, optionId: 'allow' }),
      toolCallEnd({ turn, callId }),
    ];
    const sent = await rec.step(
      'Send: probe → encrypt (streaming) → upload → v2 message → sealed envelope',
      async (s) => {
        for (const item of items) {
          const result = await sendMedia(item.path, {
            store: stores.local,
            blobKey: keys.blobKey,
            role: 'agent',
            turn,
            sealKey: keys.sealKey,
          });
          item.message = result.message;
          const size = (await stat(item.path)).size;
          const stored = await stores.local.head(result.ref);
          s.info(
            `${basename(item.path).padEnd(18)} → ${result.ref} (${kib(stored.size)} ciphertext), ${result.message.type} message`,
          );
          s.check(
            `${item.label}: stored size is ciphertextSize(${size}) = ${ciphertextSize(size)}`,
            stored.size === ciphertextSize(size) && result.ciphertextSize === stored.size,
          );
          const blob = await readAll(await stores.local.get(result.ref));
          const plain = await readFile(item.path);
          const probe = plain.subarray(
            Math.min(1024, plain.length - 32),
            Math.min(1024, plain.length - 32) + 32,
          );
          s.check(
            `${item.label}: the stored blob contains no plaintext`,
            Buffer.from(blob).indexOf(probe) === -1,
          );
          s.check(
            `${item.label}: the message comes with a sealed envelope { t: 'encrypted', c }`,
            result.envelope?.t === 'encrypted' && typeof result.envelope.c === 'string',
          );
          // Mirror the ciphertext to the HTTP server under the same ref: the message is valid for both stores.
          await stores.http.put(result.ref, await stores.local.get(result.ref), stored.size);
          s.check(
            `${item.label}: mirrored to the HTTP server (same ref, same size)`,
            (await stores.http.head(result.ref)).size === stored.size,
          );
        }
        return true;
      },
    );
    if (!sent) return;

    // 6. The stream: write, seal, validate, open.
    const streamOk = await rec.step('Write, seal and validate the v2 stream', async (s) => {
      const media = items.map((i) => i.message!);
      const messages: SessionMessage[] = [
        ...head,
        ...media,
        textMessage({
          role: 'agent',
          turn,
          text: `Attached: ${items.map((i) => basename(i.path)).join(', ')}.`,
        }),
        turnEnd({ turn, status: 'completed' }),
      ];
      const envelopes = messages.map((m) => sealMessage(m, keys.sealKey));
      await writeFile(files.stream!, `${messages.map((m) => JSON.stringify(m)).join('\n')}\n`, {
        mode: 0o600,
      });
      await writeFile(files.sealedStream!, `${envelopes.map((e) => JSON.stringify(e)).join('\n')}\n`, {
        mode: 0o600,
      });
      s.info(`${messages.length} messages: ${messages.map((m) => m.type).join(', ')}`);
      s.info(`plain  ${files.stream}`);
      s.info(`sealed ${files.sealedStream} (what the relay server stores)`);
      const violations = validateStream(messages);
      for (const v of violations) s.info(`index ${v.index}: ${v.code}: ${v.message}`);
      s.check('validateStream: the stream breaks no rule', violations.length === 0);
      const opened = envelopes.map((e) => openMessage(e, keys.sealKey));
      s.check(
        'every envelope opens to its message (deep-equal)',
        opened.every((m, i) => isDeepStrictEqual(m, messages[i])),
      );
      s.check(
        'the sealed stream holds no plaintext of the conversation',
        !(await readFile(files.sealedStream!, 'utf8')).includes('rotate the phone'),
      );
      s.check('the opened stream validates too', validateStream(opened).length === 0);
      return true;
    });
    if (!streamOk) return;

    // 7. Playback from both stores.
    const played = await rec.step(
      'Play back every media message from both stores and compare with the original',
      async (s) => {
        const tempRoot = join(dir, 'play');
        await mkdir(tempRoot, { recursive: true, mode: 0o700 });
        for (const [storeName, store] of [
          ['local store', stores.local],
          ['HTTP server', stores.http],
        ] as const) {
          for (const item of items) {
            const opened = await openMedia(item.message!, { store, blobKey: keys.blobKey, tempRoot });
            try {
              const sha = await sha256File(opened.path);
              s.check(
                `${item.label} from the ${storeName}: ${basename(opened.path)} (${opened.mimeType}) is byte-equal to the original (SHA-256 ${sha.slice(0, 12)}…)`,
                sha === item.sha256 &&
                  opened.size === item.probe!.size &&
                  opened.mimeType === item.probe!.mimeType,
              );
            } finally {
              await opened.dispose();
            }
            s.check(
              `${item.label} from the ${storeName}: the verified temp file is gone after dispose()`,
              !existsSync(opened.path),
            );
          }
        }
        return true;
      },
    );
    if (!played) return;

    // 8. Happy's own server, when one is reachable.
    await rec.step(
      "Happy's own server: send the photo as v2 and as v1 (what today's app opens), play it back",
      async (s) => {
        const configured = options.happyServer ?? happyServerFromEnv();
        if (!configured) {
          // Optional, not part of the offline mission: say how, without counting it as a skipped part.
          s.info(
            'no Happy server configured: start one with scripts/happy-server.sh install DIR && scripts/happy-server.sh start DIR, then `. DIR/env` (sets HAPPY_MEDIA_HAPPY_SERVER_URL) and run the demo again',
          );
          return true;
        }
        const account =
          configured.token && configured.sessionId
            ? { url: configured.url, token: configured.token, sessionId: configured.sessionId }
            : await createHappyAccount(configured.url);
        s.info(
          `${account.url}, session ${account.sessionId}${configured.token ? '' : ' (throwaway account: a fresh Ed25519 key pair)'}`,
        );
        const store = new HappyServerStore(account);
        const photo = items.find((i) => i.probe?.kind === 'photo');
        if (!photo) {
          s.skip('no photo sample');
          return true;
        }
        const v2 = await sendMedia(photo.path, {
          store,
          blobKey: keys.blobKey,
          role: 'agent',
          turn,
          sealKey: keys.sealKey,
        });
        s.info(`v2 → ${v2.ref} = ${store.serverRef(v2.ref)} (${kib(v2.ciphertextSize)} ciphertext)`);
        const opened = await openMedia(v2.message, {
          store,
          blobKey: keys.blobKey,
          tempRoot: join(dir, 'play'),
        });
        try {
          s.check(
            "v2 photo played back from Happy's server has the original's SHA-256",
            (await sha256File(opened.path)) === photo.sha256,
          );
        } finally {
          await opened.dispose();
        }
        const v1 = await sendMedia(photo.path, { store, blobKey: keys.blobKey, format: 'v1' });
        s.info(`v1 → file event with ref ${v1.message.ev.ref} (${kib(v1.ciphertextSize)} secretbox blob)`);
        const blob = await readAll(await store.get(v1.ref));
        s.check(
          "v1 blob opens with the session blob key as Happy's app opens it (decryptBlob) to the original",
          createHash('sha256').update(decryptV1Blob(blob, keys.blobKey)).digest('hex') === photo.sha256,
        );
        return true;
      },
    );
  }
}

/** The Happy server named by the environment, if any. */
function happyServerFromEnv(): DemoOptions['happyServer'] {
  const url = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL;
  if (!url) return undefined;
  return {
    url,
    ...(process.env.HAPPY_MEDIA_TOKEN ? { token: process.env.HAPPY_MEDIA_TOKEN } : {}),
    ...(process.env.HAPPY_MEDIA_SESSION ? { sessionId: process.env.HAPPY_MEDIA_SESSION } : {}),
  };
}
