/**
 * Big media into Happy's real server (only when HAPPY_MEDIA_HAPPY_SERVER_URL names one; skipped, saying
 * so, otherwise).
 *
 * - `sendToSession` of a 256 MiB file (quick: 32 MiB) as users send it (resumable: its journal written as
 *   parts are stored), which probes, encrypts and stores it in parts of at most 10 MiB and a manifest and
 *   appends the one message; beside the floor of that work: the same bytes uploaded in as many
 *   attachments through the same routes, unencrypted, no manifest, no message, one after another (the
 *   issue's floor) and two at a time (as ours stores its parts). Each case runs in a child
 *   process of its own (its peak RSS) with a fresh account, so no run waits for another's 60 new
 *   attachments a minute; the first send is downloaded back and compared with the file before any figure
 *   counts.
 * - The same at 1 GiB (full mode only): 104 attachments (103 parts and the manifest), more than Happy takes from one account in
 *   a minute, so both sides wait for the window, as a user's send does.
 * - The cost of resuming: `happy-media send` (the bin) SIGKILLed once half the blob's bytes have left it
 *   (in the middle of a part), then run again; a proxy counts the bytes uploaded. Goal: bytes re-sent ÷ bytes the server did not hold ≤ 1.1.
 *
 * Sessions are deleted after each case (Happy's server deletes their attachments with them).
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { downloadMedia, type FetchFunction, HappyClient, type MediaSink } from 'happy-media';
import { ciphertextSize } from 'happy-media/blob';
import { createAccountSecret, formatAccountSecret, HAPPY_MAX_ATTACHMENT_BYTES } from 'happy-media/happy';
import { sendToSession } from 'happy-media/node';
import { happyMediaBin, runChild, runProgram } from '../harness/child.js';
import { type BenchContext, SkipSuite, type Suite, type SuiteRecorder } from '../harness/context.js';
import { startCountingProxy } from '../harness/counting-proxy.js';
import { GiB, MiB, sha256File, writeRandomFile } from '../harness/data.js';
import type { Measurement } from '../harness/figures.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';
import { fileStream } from './send.js';

/** The blob format's header (salt and nonce prefix), in the first part only. */
const BLOB_HEADER_BYTES = 56;
/** A sealed chunk: 16 384 bytes of plaintext and its 16-byte tag. */
const SEALED_CHUNK_BYTES = 16_400;
/** Chunks per part when a send fills Happy's attachments (639: 10 479 656 bytes with the header). */
const CHUNKS_PER_PART = Math.floor((HAPPY_MAX_ATTACHMENT_BYTES - BLOB_HEADER_BYTES) / SEALED_CHUNK_BYTES);
/** Bytes per attachment of the plain floor: as many as one part of ours holds, so as many attachments. */
const PLAIN_PART_BYTES = CHUNKS_PER_PART * SEALED_CHUNK_BYTES;

/** One timed case in a child process. */
interface SendJob {
  url: string;
  path: string;
  size: number;
  /**
   * `ours`: sendToSession; `plain`: the file's bytes in attachments of {@link PLAIN_PART_BYTES}, one after
   * another; `plain2`: the same, two at a time (as ours stores its parts).
   */
  kind: 'ours' | 'plain' | 'plain2';
  /** Where a resumable send keeps its journal (XDG_STATE_HOME of the child). */
  stateDir: string;
  /** Download the message back and compare it with the file (ours only; not timed). */
  verify: boolean;
}

/** What a child case did. */
interface SendDone {
  ms: number;
  /** Attachments the bytes went into (ours: parts, without the manifest). */
  attachments: number;
  /** Waits for Happy's window said along the way. */
  waits: number;
  /** True when the message was downloaded back and equals the file. */
  verified: boolean;
}

/** A fetch that remembers the bearer token the client signed in with (to delete the session after). */
function tokenKeepingFetch(): { fetch: FetchFunction; token: () => string | undefined } {
  let token: string | undefined;
  const fetch: FetchFunction = (input, init) => {
    const auth = new Headers(init?.headers).get('authorization');
    if (auth?.startsWith('Bearer ')) token = auth.slice('Bearer '.length);
    return globalThis.fetch(input, init);
  };
  return { fetch, token: () => token };
}

/** Deletes a session, and with it its attachments on Happy's server. */
async function deleteSession(url: string, token: string | undefined, id: string): Promise<void> {
  if (token === undefined) return;
  const answer = await globalThis.fetch(`${url}/v1/sessions/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
  });
  await answer.body?.cancel();
}

/** A sink that keeps only the SHA-256 of what it is given. */
function hashSink(): MediaSink<string> {
  const hash = createHash('sha256');
  return {
    write: (bytes) => {
      hash.update(bytes);
    },
    commit: () => hash.digest('hex'),
    abort: () => undefined,
  };
}

/** A fresh account and session; the case; the session deleted. */
async function sendCase(job: SendJob): Promise<SendDone> {
  process.env.XDG_STATE_HOME = job.stateDir;
  const kept = tokenKeepingFetch();
  const client = await HappyClient.connect({
    url: job.url,
    credentials: { kind: 'secret', secret: createAccountSecret() },
    fetch: kept.fetch,
  });
  const session = await client.createSession({
    metadata: { path: '/bench', host: 'bench', name: 'big media' },
  });
  try {
    let waits = 0;
    const start = performance.now();
    let attachments = 0;
    let message: Awaited<ReturnType<typeof sendToSession>>['message'] | undefined;
    if (job.kind === 'ours') {
      const sent = await sendToSession(job.path, {
        client,
        session,
        onNotice: (text) => {
          if (/waiting \d+ s/.test(text)) waits += 1;
        },
      });
      attachments = sent.parts;
      message = sent.message;
    } else {
      const store = client.attachmentStore(session);
      let at = 0;
      const uploads = async () => {
        while (at < job.size) {
          const from = at;
          const length = Math.min(PLAIN_PART_BYTES, job.size - from);
          at += length;
          await store.create(length, () => fileStream(job.path, from, from + length), {
            onWait: () => {
              waits += 1;
            },
          });
          attachments += 1;
        }
      };
      await Promise.all(job.kind === 'plain2' ? [uploads(), uploads()] : [uploads()]);
    }
    const ms = performance.now() - start;
    let verified = false;
    if (job.verify && message && 'ref' in message) {
      const played = await downloadMedia(message, {
        source: client.attachmentStore(session),
        blobKey: session.blobKey,
        sink: hashSink(),
      });
      if (played !== (await sha256File(job.path))) {
        throw new Error(`the ${formatBytes(job.size)} message downloaded back differs from the file`);
      }
      verified = true;
    }
    return { ms, attachments, waits, verified };
  } finally {
    await deleteSession(job.url, kept.token(), session.id);
  }
}

/** Cases run in a child process of their own (bench/child-entry.ts). */
export const childCases = {
  send: (payload: unknown) => sendCase(payload as SendJob),
};

/** Ours and the plain floor at one size, interleaved, each run in a child; recorded and compared. */
async function sendFigures(
  rec: SuiteRecorder,
  job: Omit<SendJob, 'kind' | 'verify'>,
  plan: { warmup: number; runs: number },
): Promise<void> {
  const tag = formatBytes(job.size);
  const timeoutMs = job.size > 256 * MiB ? 1_200_000 : 600_000;
  const samples = { ours: [] as SendDone[], plain: [] as SendDone[], plain2: [] as SendDone[] };
  const peak = { ours: 0, plain: 0, plain2: 0 };
  for (let round = 0; round < plan.warmup + plan.runs; round++) {
    // Rotating which goes first: all see the same load, round by round.
    const kinds: SendJob['kind'][] = ['ours', 'plain', 'plain2'];
    const order = [...kinds.slice(round % 3), ...kinds.slice(0, round % 3)];
    for (const kind of order) {
      const done = await runChild<SendDone>(
        'happy-send:send',
        { ...job, kind, verify: kind === 'ours' && round === 0 } satisfies SendJob,
        timeoutMs,
      );
      if (kind === 'ours' && round === 0) {
        if (!done.result.verified) throw new Error(`the ${tag} send was not checked`);
        rec.check(
          `sendToSession of ${tag}: one message in ${done.result.attachments} parts and a manifest (${ciphertextSize(job.size)} bytes), downloaded back equal to the file`,
        );
      }
      peak[kind] = Math.max(peak[kind], done.maxRssBytes);
      if (round >= plan.warmup) samples[kind].push(done.result);
    }
  }
  const waits = samples.ours[0]?.waits ?? 0;
  if (waits > 0)
    rec.check(`sendToSession of ${tag}: waited ${waits}× for Happy's 60 new attachments a minute`);
  const rate = (runs: SendDone[]) => summarize(runs.map((run) => megabytesPerSecond(job.size, run.ms)));
  const mine: Measurement = rec.add({
    id: `happy-send.parts.${tag}`,
    suite: 'happy-send',
    label: `sendToSession ${tag} → Happy's server, ${samples.ours[0]?.attachments} parts + manifest, one message`,
    unit: 'MB/s',
    sizeBytes: job.size,
    peakRssBytes: peak.ours,
    series: "send → Happy's server",
    summary: rate(samples.ours),
  });
  const floor = rec.add({
    id: `ref.happy-send.plain.${tag}`,
    suite: 'happy-send',
    label: `plain upload of the same bytes in ${samples.plain[0]?.attachments} attachments, one after another`,
    unit: 'MB/s',
    sizeBytes: job.size,
    peakRssBytes: peak.plain,
    reference: true,
    series: "plain upload in parts → Happy's server",
    summary: rate(samples.plain),
  });
  rec.compare(mine, floor);
  const pair = rec.add({
    id: `ref.happy-send.plain2.${tag}`,
    suite: 'happy-send',
    label: `plain upload of the same bytes in ${samples.plain2[0]?.attachments} attachments, two at a time`,
    unit: 'MB/s',
    sizeBytes: job.size,
    peakRssBytes: peak.plain2,
    reference: true,
    series: "plain upload in parts, two at a time → Happy's server",
    summary: rate(samples.plain2),
  });
  rec.compare(mine, pair);
}

/**
 * `happy-media send` SIGKILLed once half the blob's bytes have left it and run again, the bytes uploaded
 * counted by a proxy: the cost of resuming.
 */
async function resumeCost(
  ctx: BenchContext,
  rec: SuiteRecorder,
  url: string,
  path: string,
  size: number,
): Promise<void> {
  const dir = join(ctx.scratchDir, 'happy-send-resume');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const secret = createAccountSecret();
  const secretFile = join(dir, 'secret');
  await writeFile(secretFile, `${formatAccountSecret(secret)}\n`, { mode: 0o600 });
  const kept = tokenKeepingFetch();
  const client = await HappyClient.connect({
    url,
    credentials: { kind: 'secret', secret },
    fetch: kept.fetch,
  });
  const session = await client.createSession({ metadata: { path: dir, host: 'bench', name: 'resume' } });
  const proxy = await startCountingProxy(url);
  try {
    // The secret reaches the CLI in a private file named in its environment, never in argv.
    const env = {
      HAPPY_MEDIA_HAPPY_SERVER_URL: proxy.url,
      HAPPY_MEDIA_SECRET_FILE: secretFile,
      HAPPY_MEDIA_SESSION: session.id,
      HAPPY_MEDIA_CACHE_DIR: join(dir, 'cache'),
      XDG_STATE_HOME: join(dir, 'state'),
    };
    const bin = happyMediaBin();
    const total = ciphertextSize(size);
    // A power cut once half the blob's bytes have left: the process SIGKILLed and what it was sending
    // cut off on the way, wherever that falls in a part.
    const kill = new AbortController();
    proxy.onSent = (method, sent) => {
      if (method !== 'PUT' || sent < total / 2 || kill.signal.aborted) return;
      kill.abort();
      void proxy.cut();
    };
    const killed = await runProgram(bin, ['send', path], { env, timeoutMs: 600_000, kill: kill.signal });
    proxy.onSent = undefined;
    if (!('killed' in killed)) throw new Error('the send ended before half its bytes were sent');
    await proxy.cut();
    const sentBeforeKill = proxy.sent.PUT ?? 0;
    // What the server held when the send stopped: the attachments it accepted whole.
    const left = total - (proxy.accepted.PUT ?? 0);
    proxy.sent.PUT = 0;
    const resumed = await runProgram(bin, ['send', path], { env, timeoutMs: 600_000 });
    if ('killed' in resumed) throw new Error('unreachable');
    const resent = proxy.sent.PUT ?? 0;
    const held = /resuming an interrupted send: (\d+) of (\d+) parts were stored/.exec(resumed.stderr);
    if (!held) throw new Error(`the second run did not resume: ${resumed.stderr.trim().split('\n').at(-1)}`);
    const ratio = resent / left;
    const overall = (sentBeforeKill + resent) / total;
    rec.check(
      `resume: happy-media send of ${formatBytes(size)} SIGKILLed, its uploads cut, once ${sentBeforeKill} of its ${total} bytes had left it (the server held ${total - left}; the journal had ${held[1]} of ${held[2]} parts confirmed), run again: ` +
        `re-sent ${resent} bytes of the ${left} the server did not hold = ${ratio.toFixed(3)}× (goal ≤ 1.1; the manifest included); ` +
        `both runs together uploaded ${overall.toFixed(3)}× the blob; the resumed run's peak RSS ${formatBytes(resumed.maxRssBytes)}`,
    );
    if (!(ratio <= 1.1))
      throw new Error(`resume cost ${ratio.toFixed(3)}×: more than 1.1× the bytes left were sent`);
    rec.add({
      id: `happy-send.resume.${formatBytes(size)}`,
      suite: 'happy-send',
      label: `happy-media send (bin) resumed after a SIGKILL at half the bytes: the ${formatBytes(left)} left`,
      unit: 'MB/s',
      sizeBytes: left,
      peakRssBytes: resumed.maxRssBytes,
      summary: summarize([megabytesPerSecond(left, resumed.ms)]),
    });
  } finally {
    await proxy.close();
    await deleteSession(url, kept.token(), session.id);
  }
}

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const url = process.env.HAPPY_MEDIA_HAPPY_SERVER_URL?.replace(/\/+$/, '');
  if (!url) {
    throw new SkipSuite(
      "HAPPY_MEDIA_HAPPY_SERVER_URL is not set: start Happy's server (scripts/happy-server.sh start DIR) and set it to measure sends into it",
    );
  }
  try {
    await (await globalThis.fetch(url, { signal: AbortSignal.timeout(5_000) })).body?.cancel();
  } catch (error) {
    throw new SkipSuite(`Happy's server at ${url} does not answer (${(error as Error).message})`);
  }
  const dir = join(ctx.scratchDir, 'happy-send');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const size = ctx.quick ? 32 * MiB : 256 * MiB;
  const path = join(dir, 'clip.bin');
  await writeRandomFile(path, size);
  const stateDir = join(dir, 'state');
  ctx.log(`happy-send: ${formatBytes(size)} into ${url}`);
  await sendFigures(
    rec,
    { url, path, size, stateDir },
    ctx.quick ? { warmup: 0, runs: 1 } : { warmup: 1, runs: 3 },
  );
  ctx.log('happy-send: resume after SIGKILL at half');
  await resumeCost(ctx, rec, url, path, size);
  if (!ctx.quick) {
    const big = join(dir, 'big.bin');
    await writeRandomFile(big, GiB);
    ctx.log(`happy-send: 1 GiB into ${url} (waits for Happy's 60 new attachments a minute)`);
    await sendFigures(rec, { url, path: big, size: GiB, stateDir }, { warmup: 0, runs: 1 });
  }
}

/** The happy-send suite. */
export const happySendSuite: Suite = {
  name: 'happy-send',
  description:
    "sendToSession into Happy's real server in parts (256 MiB, 1 GiB) vs a plain upload of the same bytes in as many attachments; resume cost after a SIGKILL at half the bytes",
  run,
};
