/**
 * The browser path: decrypt throughput of the universal entry in headless Chromium, WebCrypto AES-GCM
 * vs noble, beside one-shot `crypto.subtle` AES-256-GCM over the same bytes (the limit in the
 * browser). Then seeks through the streaming Service Worker beside plain range GETs (`browser-seek.ts`).
 * Needs `/usr/bin/chromium` (or env `CHROMIUM_PATH`), playwright-core and esbuild.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { nobleAesGcm, webCryptoAesGcm } from 'happy-media';
import {
  type createDecryptStream,
  type decryptBlob,
  encryptBlob,
  unboundBlobContext,
} from 'happy-media/blob';
import { chromiumTools, openBenchPage } from '../harness/chromium.js';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { MiB, randomData, sha256 } from '../harness/data.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';
import { serviceWorkerSeekTimes } from './browser-seek.js';

interface PageJob {
  keyHex: string;
  bigSha: string;
  smallSha: string;
  runs: number;
}

interface PageResult {
  webcrypto: number[];
  encrypt: number[];
  subtleEncrypt: number[];
  stream: number[];
  noble: number[];
  subtle: number[];
}

/** Runs inside the page (serialised by playwright): checks, then times each path. */
async function inPage(job: PageJob): Promise<PageResult> {
  const api = (
    globalThis as unknown as {
      happyBench: {
        decryptBlob: typeof decryptBlob;
        createDecryptStream: typeof createDecryptStream;
        encryptBlob: typeof encryptBlob;
        nobleAesGcm: typeof nobleAesGcm;
        webCryptoAesGcm: typeof webCryptoAesGcm;
        unboundBlobContext: typeof unboundBlobContext;
      };
    }
  ).happyBench;
  // This function runs in the page: the library's functions come from its bundle (api), not this module.
  // Streaming: the blob arrives in 1 MiB pieces (as from fetch) through createDecryptStream.
  const streamed = async () => {
    let n = 0;
    await new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < big.length; i += 1 << 20) controller.enqueue(big.subarray(i, i + (1 << 20)));
        controller.close();
      },
    })
      .pipeThrough(
        api.createDecryptStream(key, { context: api.unboundBlobContext(), aesGcm: api.webCryptoAesGcm }),
      )
      .pipeTo(
        new WritableStream({
          write(chunk) {
            n += chunk.length;
          },
        }),
      );
    return n;
  };
  const hex = (b: ArrayBuffer) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
  const key = new Uint8Array(job.keyHex.match(/../g)!.map((h) => Number.parseInt(h, 16)));
  const big = new Uint8Array(await (await fetch('/big.bin')).arrayBuffer());
  const small = new Uint8Array(await (await fetch('/small.bin')).arrayBuffer());
  /**
   * Times the cases in rounds, each round in a fresh random order, after a warm-up round: machine load
   * hits every case alike, and no case always runs right after the one whose garbage it would collect.
   * Where the page can (`--js-flags=--expose-gc`), a full GC before each timed run drops what earlier runs
   * left behind; a case still pays for the collections its own garbage causes while it runs.
   */
  const timeRounds = async <K extends string>(cases: Record<K, () => Promise<unknown>>) => {
    const gc = (globalThis as { gc?: () => void }).gc;
    const names = Object.keys(cases) as K[];
    const out = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<K, number[]>;
    for (let round = -1; round < job.runs; round++) {
      const order = names
        .map((k) => [Math.random(), k] as const)
        .sort((a, b) => a[0] - b[0])
        .map(([, k]) => k);
      for (const k of order) {
        gc?.();
        const t = performance.now();
        await cases[k]();
        if (round >= 0) out[k].push(performance.now() - t);
      }
    }
    return out;
  };
  const pt = await api.decryptBlob(big, key, {
    context: api.unboundBlobContext(),
    aesGcm: api.webCryptoAesGcm,
  });
  if (hex(await crypto.subtle.digest('SHA-256', pt as Uint8Array<ArrayBuffer>)) !== job.bigSha)
    throw new Error('webcrypto decrypt differs');
  if ((await streamed()) !== pt.length) throw new Error('webcrypto streaming decrypt emitted the wrong size');
  // Encrypting in the page (an upload from the browser): the announced size, and it decrypts back.
  const sealed = await api.encryptBlob(pt, key, {
    context: api.unboundBlobContext(),
    aesGcm: api.webCryptoAesGcm,
  });
  const back = await api.decryptBlob(sealed, key, {
    context: api.unboundBlobContext(),
    aesGcm: api.webCryptoAesGcm,
  });
  if (
    sealed.length !== big.length ||
    hex(await crypto.subtle.digest('SHA-256', back as Uint8Array<ArrayBuffer>)) !== job.bigSha
  )
    throw new Error('webcrypto encrypt in Chromium does not round-trip');
  const spt = await api.decryptBlob(small, key, {
    context: api.unboundBlobContext(),
    aesGcm: api.nobleAesGcm,
  });
  if (hex(await crypto.subtle.digest('SHA-256', spt as Uint8Array<ArrayBuffer>)) !== job.smallSha)
    throw new Error('noble decrypt differs');
  const ck = await crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['encrypt', 'decrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const oneShot = await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, ck, pt as Uint8Array<ArrayBuffer>);
  return timeRounds({
    webcrypto: () =>
      api.decryptBlob(big, key, { context: api.unboundBlobContext(), aesGcm: api.webCryptoAesGcm }),
    stream: streamed,
    noble: () => api.decryptBlob(small, key, { context: api.unboundBlobContext(), aesGcm: api.nobleAesGcm }),
    subtle: () => crypto.subtle.decrypt({ name: 'AES-GCM', iv }, ck, oneShot),
    encrypt: () =>
      api.encryptBlob(pt, key, { context: api.unboundBlobContext(), aesGcm: api.webCryptoAesGcm }),
    subtleEncrypt: () => crypto.subtle.encrypt({ name: 'AES-GCM', iv }, ck, pt as Uint8Array<ArrayBuffer>),
  });
}

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const tools = await chromiumTools();
  const { esbuild } = tools;
  const bigSize = ctx.quick ? 4 * MiB : 64 * MiB;
  const smallSize = ctx.quick ? MiB : 8 * MiB;
  const runs = ctx.quick ? 3 : 9;
  const key = new Uint8Array(randomBytes(32));
  const bigPt = randomData(bigSize);
  const smallPt = bigPt.subarray(0, smallSize);
  const big = await encryptBlob(bigPt, key, { context: unboundBlobContext() });
  const small = await encryptBlob(smallPt, key, { context: unboundBlobContext() });

  // Bundle the universal entry for the browser, exactly as an app would (the package's built entry).
  const universal = fileURLToPath(import.meta.resolve('happy-media'));
  const blobEntry = fileURLToPath(import.meta.resolve('happy-media/blob'));
  const bundle = await esbuild.build({
    stdin: {
      contents: `import { nobleAesGcm, webCryptoAesGcm } from ${JSON.stringify(universal)}; import { createDecryptStream, decryptBlob, encryptBlob, unboundBlobContext } from ${JSON.stringify(blobEntry)}; globalThis.happyBench = { createDecryptStream, decryptBlob, encryptBlob, nobleAesGcm, webCryptoAesGcm, unboundBlobContext };`,
      resolveDir: ctx.scratchDir,
      loader: 'js',
    },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  const { browser, page, close } = await openBenchPage(tools, bundle.outputFiles[0]!.text, {
    '/big.bin': big,
    '/small.bin': small,
  });
  try {
    const r = await page.evaluate(inPage, {
      keyHex: Buffer.from(key).toString('hex'),
      bigSha: sha256(bigPt),
      smallSha: sha256(smallPt),
      runs,
    } satisfies PageJob);
    rec.check(
      `in Chromium: webcrypto (${formatBytes(bigSize)}) and noble (${formatBytes(smallSize)}) decrypt Node-made blobs to the original (SHA-256)`,
    );
    rec.check(
      `in Chromium: webcrypto encrypt (${formatBytes(bigSize)}) gives the announced size and decrypts back to the original (SHA-256)`,
    );
    const add = (id: string, label: string, ms: number[], size: number, reference = false) =>
      rec.add({
        id,
        suite: 'browser',
        label,
        unit: 'MB/s',
        sizeBytes: size,
        reference,
        series: label.replace(/ \d.*$/, ''),
        summary: summarize(ms.map((t) => megabytesPerSecond(size, t))),
      });
    const web = add(
      'browser.decrypt.webcrypto',
      `Chromium decrypt webcrypto ${formatBytes(bigSize)}`,
      r.webcrypto,
      bigSize,
    );
    const noble = add(
      'browser.decrypt.noble',
      `Chromium decrypt noble ${formatBytes(smallSize)}`,
      r.noble,
      smallSize,
    );
    const subtle = add(
      'ref.browser.subtle',
      `Chromium one-shot subtle AES-GCM ${formatBytes(bigSize)}`,
      r.subtle,
      bigSize,
      true,
    );
    rec.compare(web, subtle);
    rec.compare(
      add(
        'browser.stream.webcrypto',
        `Chromium createDecryptStream webcrypto ${formatBytes(bigSize)}, 1 MiB pieces`,
        r.stream,
        bigSize,
      ),
      subtle,
    );
    rec.compare(noble, subtle);
    rec.compare(
      add(
        'browser.encrypt.webcrypto',
        `Chromium encrypt webcrypto ${formatBytes(bigSize)}`,
        r.encrypt,
        bigSize,
      ),
      add(
        'ref.browser.subtle.encrypt',
        `Chromium one-shot subtle AES-GCM encrypt ${formatBytes(bigSize)}`,
        r.subtleEncrypt,
        bigSize,
        true,
      ),
    );
    await serviceWorkerSeekTimes(ctx, rec, browser, esbuild);
  } finally {
    await close();
  }
}

/** The browser suite. */
export const browserSuite: Suite = {
  name: 'browser',
  description:
    'decrypt in headless Chromium, webcrypto vs noble AES-GCM vs one-shot crypto.subtle; seeks through the Service Worker vs plain range GETs',
  run,
};
