/**
 * Happy's app path with expo-crypto, in headless Chromium: the blob engine over expo-crypto's own web AES
 * (`expoCryptoAesGcm` over its `ExpoCryptoAES.web.js`, which wraps `crypto.subtle` with its key and
 * sealed-data objects) beside one-shot `crypto.subtle` over the same bytes and the engine over WebCrypto
 * directly. Three feeds: the whole blob (`decryptBlob`: every chunk of a 1 MiB batch in flight),
 * `downloadMedia` from a source that hands over 64 KiB at a time, as a phone's network does (4 chunks per
 * piece; the engine keeps up to 64 in flight across pieces), and `createDecryptStream` fed one sealed
 * chunk per piece (one call in flight at a time: nothing hidden). The gap to one-shot is what a call per
 * chunk costs and what concurrency hides of it; the gap to the same feed over WebCrypto directly is what
 * expo's wrapper adds per call (the bridge cost). Issue #25's goal, 0.8× of one-shot, is printed beside
 * the figures it applies to. Needs Chromium, playwright-core, esbuild and expo-crypto (dev dependency).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { downloadMedia, memorySink, webCryptoAesGcm } from 'happy-media';
import { type createDecryptStream, type decryptBlob, encryptBlob, mediaBlobContext } from 'happy-media/blob';
import type { expoCryptoAesGcm } from 'happy-media/expo';
import { type ChromiumTools, chromiumTools, openBenchPage } from '../harness/chromium.js';
import { type BenchContext, SkipSuite, type Suite, type SuiteRecorder } from '../harness/context.js';
import { MiB, randomData, sha256 } from '../harness/data.js';
import { packageRoot } from '../harness/hermes.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';

/** The ref the blob is bound to (its Cobblestone context), as every v2 media blob is. */
const REF = 'media/benchexpo0000000000000000';

interface PageJob {
  ref: string;
  keyHex: string;
  sha: string;
  size: number;
  runs: number;
}

type PageResult = Record<
  'expoWhole' | 'expoDownload' | 'expoSerial' | 'webWhole' | 'webDownload' | 'webSerial' | 'subtle',
  number[]
>;

/** Issue #25's goal for the engine over expo-crypto in Chromium: this share of one-shot `crypto.subtle`. */
const GOAL_VS_ONE_SHOT = 0.8;

/** Runs inside the page: checks every path's bytes, then times them in shuffled rounds. */
async function inPage(job: PageJob): Promise<PageResult> {
  const api = (
    globalThis as unknown as {
      happyBench: {
        createDecryptStream: typeof createDecryptStream;
        decryptBlob: typeof decryptBlob;
        downloadMedia: typeof downloadMedia;
        memorySink: typeof memorySink;
        mediaBlobContext: typeof mediaBlobContext;
        webCryptoAesGcm: typeof webCryptoAesGcm;
        expoCryptoAesGcm: typeof expoCryptoAesGcm;
        installRuntime: (parts: object) => unknown;
        expoCrypto: Parameters<typeof expoCryptoAesGcm>[0];
      };
    }
  ).happyBench;
  const key = new Uint8Array(job.keyHex.match(/../g)!.map((h) => Number.parseInt(h, 16)));
  const blob = new Uint8Array(await (await fetch('/blob.bin')).arrayBuffer());
  const expo = api.expoCryptoAesGcm(api.expoCrypto);
  const hex = (b: ArrayBuffer) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
  const context = api.mediaBlobContext(job.ref);
  // A store in memory that answers in 64 KiB pieces (a phone's network reads).
  const store = {
    head: async () => ({ size: blob.length }),
    get: async (_ref: string, range?: { offset: number; length: number }) => {
      const start = range?.offset ?? 0;
      const end = Math.min(blob.length, start + (range?.length ?? blob.length));
      let at = start;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (at >= end) return controller.close();
          controller.enqueue(blob.subarray(at, Math.min(end, at + 65536)));
          at += 65536;
        },
      });
    },
  };
  const download = async (aesGcm: unknown) => {
    api.installRuntime({ aesGcm });
    return api.downloadMedia({ ref: job.ref }, { source: store, blobKey: key, sink: api.memorySink() });
  };
  const whole = (aesGcm: typeof expo) => api.decryptBlob(blob, key, { context, aesGcm });
  // One sealed chunk per piece (the header with the first): each push completes the chunk before it, and
  // the stream awaits it before the next, so one call is in flight at a time.
  const serial = async (aesGcm: typeof expo) => {
    let at = 0;
    const pieces = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= blob.length) return controller.close();
        const end = Math.min(blob.length, (at === 0 ? 56 : at) + 16400);
        controller.enqueue(blob.subarray(at, end));
        at = end;
      },
    });
    const reader = pieces.pipeThrough(api.createDecryptStream(key, { context, aesGcm })).getReader();
    let bytes = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.length;
    return bytes;
  };
  for (const out of [await whole(expo), await download(expo), await whole(api.webCryptoAesGcm)]) {
    if (hex(await crypto.subtle.digest('SHA-256', out as Uint8Array<ArrayBuffer>)) !== job.sha) {
      throw new Error('a decrypt path differs from the original');
    }
  }
  if ((await serial(expo)) !== job.size || (await serial(api.webCryptoAesGcm)) !== job.size) {
    throw new Error('a stream fed one chunk at a time gave another length than the original');
  }
  const pt = await whole(api.webCryptoAesGcm);
  const ck = await crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['encrypt', 'decrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const oneShot = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, ck, pt as Uint8Array<ArrayBuffer>);
  const cases: Record<keyof PageResult, () => Promise<unknown>> = {
    expoWhole: () => whole(expo),
    expoDownload: () => download(expo),
    expoSerial: () => serial(expo),
    webWhole: () => whole(api.webCryptoAesGcm),
    webDownload: () => download(api.webCryptoAesGcm),
    webSerial: () => serial(api.webCryptoAesGcm),
    subtle: () => crypto.subtle.decrypt({ name: 'AES-GCM', iv }, ck, oneShot),
  };
  const gc = (globalThis as { gc?: () => void }).gc;
  const names = Object.keys(cases) as (keyof PageResult)[];
  const out = Object.fromEntries(names.map((k) => [k, [] as number[]])) as PageResult;
  for (let round = -1; round < job.runs; round++) {
    for (const k of names.map((n) => [Math.random(), n] as const).sort((a, b) => a[0] - b[0])) {
      gc?.();
      const t = performance.now();
      await cases[k[1]]();
      if (round >= 0) out[k[1]].push(performance.now() - t);
    }
  }
  return out;
}

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const tools = await chromiumTools();
  const root = packageRoot();
  const expoAes = join(root, 'node_modules/expo-crypto/build/aes/index.js');
  if (!existsSync(expoAes)) throw new SkipSuite('expo-crypto is not installed (dev dependency)');
  const size = ctx.quick ? 4 * MiB : 32 * MiB;
  // Many short rounds: on a shared machine a few busy ones then move the median less.
  const runs = ctx.quick ? 3 : 15;
  const key = new Uint8Array(randomBytes(32));
  const pt = randomData(size);
  const blob = await encryptBlob(pt, key, { context: mediaBlobContext(REF) });

  const bundle = await appBundle(ctx, tools, root, expoAes);
  const { page, close } = await openBenchPage(tools, bundle, { '/blob.bin': blob });
  try {
    const r = await page.evaluate(inPage, {
      ref: REF,
      keyHex: Buffer.from(key).toString('hex'),
      sha: sha256(pt),
      size,
      runs,
    } satisfies PageJob);
    rec.check(
      `in Chromium: expo-crypto's web AES and WebCrypto, whole and through downloadMedia, decrypt a Node-made ${formatBytes(size)} blob to the original (SHA-256); fed one chunk at a time, to its length`,
    );
    recordFigures(ctx, rec, r, size);
  } finally {
    await close();
  }
}

/**
 * The app's bundle: the universal entry, happy-media/expo, and expo-crypto's AES as Expo's web build
 * resolves it (.web.js), with the two-function `expo` stand-in of the tests.
 */
async function appBundle(
  ctx: BenchContext,
  tools: ChromiumTools,
  root: string,
  expoAes: string,
): Promise<string> {
  const universal = fileURLToPath(import.meta.resolve('happy-media'));
  const blobEntry = fileURLToPath(import.meta.resolve('happy-media/blob'));
  const expoEntry = fileURLToPath(import.meta.resolve('happy-media/expo'));
  const bundle = await tools.esbuild.build({
    stdin: {
      contents: [
        `import { downloadMedia, installRuntime, memorySink, webCryptoAesGcm } from ${JSON.stringify(universal)};`,
        `import { createDecryptStream, decryptBlob, mediaBlobContext } from ${JSON.stringify(blobEntry)};`,
        `import { expoCryptoAesGcm } from ${JSON.stringify(expoEntry)};`,
        `import * as expoCrypto from ${JSON.stringify(expoAes)};`,
        'globalThis.happyBench = { createDecryptStream, decryptBlob, downloadMedia, installRuntime, mediaBlobContext, memorySink, webCryptoAesGcm, expoCryptoAesGcm, expoCrypto };',
      ].join('\n'),
      resolveDir: ctx.scratchDir,
      loader: 'js',
    },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    resolveExtensions: ['.web.js', '.js', '.ts'],
    alias: { expo: join(root, 'test/expo/expo-stand-in.ts') },
    write: false,
    logLevel: 'silent',
  });
  return bundle.outputFiles[0]!.text;
}

/**
 * Each expo figure beside the limit (one-shot subtle) and beside the same feed over WebCrypto directly (the
 * bridge cost), and the goal's ratios, paired round by round.
 */
function recordFigures(ctx: BenchContext, rec: SuiteRecorder, r: PageResult, size: number): void {
  const add = (id: string, label: string, ms: number[], reference = false) =>
    rec.add({
      id,
      suite: 'expo',
      label,
      unit: 'MB/s',
      sizeBytes: size,
      reference,
      series: label.replace(/ \d.*$/, ''),
      summary: summarize(ms.map((t) => megabytesPerSecond(size, t))),
    });
  const goal = `goal ≥ ${GOAL_VS_ONE_SHOT.toFixed(1)}× a`;
  const subtle = add(
    'ref.expo.subtle',
    `Chromium one-shot subtle AES-GCM ${formatBytes(size)}`,
    r.subtle,
    true,
  );
  const feeds = [
    {
      name: 'whole',
      expo: add(
        'expo.whole',
        `Chromium decryptBlob expo-crypto web AES ${formatBytes(size)} (${goal})`,
        r.expoWhole,
      ),
      web: add('expo.whole.webcrypto', `Chromium decryptBlob webcrypto ${formatBytes(size)}`, r.webWhole),
    },
    {
      name: 'downloadMedia',
      expo: add(
        'expo.download',
        `Chromium downloadMedia expo-crypto web AES ${formatBytes(size)}, 64 KiB pieces (${goal})`,
        r.expoDownload,
      ),
      web: add(
        'expo.download.webcrypto',
        `Chromium downloadMedia webcrypto ${formatBytes(size)}, 64 KiB pieces`,
        r.webDownload,
      ),
    },
    {
      name: 'one call in flight',
      expo: add(
        'expo.serial',
        `Chromium createDecryptStream expo-crypto web AES ${formatBytes(size)}, one chunk per piece (one call in flight)`,
        r.expoSerial,
      ),
      web: add(
        'expo.serial.webcrypto',
        `Chromium createDecryptStream webcrypto ${formatBytes(size)}, one chunk per piece (one call in flight)`,
        r.webSerial,
      ),
    },
  ];
  // Each expo figure beside the limit and beside the same feed over WebCrypto directly (the bridge cost).
  for (const feed of feeds) {
    rec.compare(feed.expo, subtle);
    rec.compare(feed.expo, feed.web);
  }
  for (const feed of feeds) rec.compare(feed.web, subtle);
  // The printed ratios pair each round's timings (the cases of a round ran back to back, in shuffled
  // order), then take the median: steadier than a ratio of medians when the machine's load drifts.
  const paired = (ours: number[], ref: number[]) =>
    summarize(ours.map((ms, i) => (ref[i] as number) / ms)).median;
  const times = [
    [r.expoWhole, r.webWhole],
    [r.expoDownload, r.webDownload],
    [r.expoSerial, r.webSerial],
  ] as const;
  const atGoal = (ours: number[]) => {
    const x = paired(ours, r.subtle);
    return `${x.toFixed(2)}× (${x >= GOAL_VS_ONE_SHOT ? 'met' : 'not met'})`;
  };
  ctx.log(
    `  goal: the engine over expo-crypto ≥ ${GOAL_VS_ONE_SHOT}× one-shot crypto.subtle in the same rounds (median of per-round ratios): ` +
      `whole ${atGoal(r.expoWhole)}, downloadMedia ${atGoal(r.expoDownload)}`,
  );
  ctx.log(
    `  per-call bridge cost (expo-crypto's web wrapper ÷ WebCrypto directly, same engine and feed): ${feeds
      .map((f, i) => `${f.name} ${paired(times[i]![0], times[i]![1]).toFixed(2)}×`)
      .join(', ')}; what concurrency hides (whole ÷ one call in flight): expo ${paired(
      r.expoWhole,
      r.expoSerial,
    ).toFixed(1)}×, WebCrypto ${paired(r.webWhole, r.webSerial).toFixed(1)}×`,
  );
}

/** The expo suite. */
export const expoSuite: Suite = {
  name: 'expo',
  description:
    "Happy's app path in Chromium: the blob engine over expo-crypto's own web AES (whole, downloadMedia in 64 KiB pieces, one call in flight) vs WebCrypto vs one-shot crypto.subtle",
  run,
};
