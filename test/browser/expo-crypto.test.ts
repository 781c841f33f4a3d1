/**
 * `expoCryptoAesGcm` over expo-crypto's own web AES (its `ExpoCryptoAES.web.js` over `crypto.subtle`,
 * bundled as an Expo web app resolves it, with the two-function `expo` stand-in) in headless Chromium
 * (Debian's, driven by playwright-core), beside node:crypto and noble in Node: Wycheproof's AES-GCM
 * vectors (96-bit IV, 256-bit key, 128-bit tag, no AAD) give the same bytes and the same refusals, and
 * Wycheproof's Cobblestone-256 vectors the same outcome through `decryptBlob` and `createDecryptStream`
 * (odd pieces), each valid one encrypted again to the vector's exact bytes. Skipped, with a printed
 * reason, without Chromium or the corpus.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { inflateSync } from 'node:zlib';
import { build } from 'esbuild';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS } from '../../bench/harness/chromium.js';
import type { AesGcm } from '../../src/core/aes-gcm/aes-gcm.js';
import type { expoCryptoAesGcm } from '../../src/core/aes-gcm/expo-crypto.js';
import { nobleAesGcm } from '../../src/core/aes-gcm/noble.js';
import type { encryptBlobWithSalt } from '../../src/core/blob/_testing.js';
import { type createDecryptStream, decryptBlob } from '../../src/core/blob/index.js';
import { fromHex, toHex } from '../../src/core/bytes.js';
import { findOnPath } from '../../src/node/media/ffmpeg-binaries.js';
import { nodeAesGcm } from '../../src/node/runtime/node-aes-gcm.js';
import { hasCorpus, readCorpusJson } from '../helpers/corpus.js';
import { rejectionCodeOf } from '../helpers/errors.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? findOnPath('chromium') ?? findOnPath('chromium-browser');
const hasChromium = CHROMIUM !== undefined && existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `expo-crypto browser tests skipped: no Chromium (${CHROMIUM ?? 'none on the PATH'}); apt-get install chromium or set CHROMIUM_PATH`,
  );
}

interface AeadCase {
  tcId: number;
  key: string;
  iv: string;
  msg: string;
  ct: string;
  tag: string;
  result: string;
}

interface CobblestoneVector {
  tcId: number;
  key: string;
  ctx: string;
  ct: string;
  msgLength?: number;
  msgSha512?: string;
  result: string;
}

/** What the page exposes (bundled from the sources and expo-crypto's web AES). */
interface PageApi {
  expoCryptoAesGcm: typeof expoCryptoAesGcm;
  expoCrypto: Parameters<typeof expoCryptoAesGcm>[0];
  decryptBlob: typeof decryptBlob;
  createDecryptStream: typeof createDecryptStream;
  encryptBlobWithSalt: typeof encryptBlobWithSalt;
}

/** One Cobblestone vector's outcome on one path: `sha512 <hex>` of the plaintext, or the error code. */
type Outcome = string;

const sha512Hex = (b: Uint8Array) => createHash('sha512').update(b).digest('hex');

/** An implementation's outcome per Wycheproof AES-GCM case: `same`, `DIFFERS` or the refusal's code. */
async function aeadOutcomes(aes: AesGcm, tests: AeadCase[]): Promise<string[]> {
  const out: string[] = [];
  for (const t of tests) {
    const key = await aes.importKey(fromHex(t.key));
    const sealed = fromHex(t.ct + t.tag);
    if (t.result === 'invalid') {
      out.push(
        `${t.tcId} ${await rejectionCodeOf(async () => aes.open(key as never, fromHex(t.iv), sealed))}`,
      );
      continue;
    }
    const opened = toHex(await aes.open(key as never, fromHex(t.iv), sealed));
    const resealed = toHex(await aes.seal(key as never, fromHex(t.iv), fromHex(t.msg)));
    out.push(`${t.tcId} ${opened === t.msg && resealed === t.ct + t.tag ? 'same' : 'DIFFERS'}`);
  }
  return out;
}

describe.skipIf(!hasChromium || !hasCorpus)('expoCryptoAesGcm over expo-crypto’s web AES in Chromium', () => {
  let server: Server;
  let browser: Browser;
  let page: Page;
  let vectors: CobblestoneVector[] = [];
  const blobs: Uint8Array[] = [];

  beforeAll(async () => {
    const file = await readCorpusJson<{ testGroups: { tests: CobblestoneVector[] }[] }>(
      'crypto/wycheproof/c2sp_chunked_encryption_aes_256_gcm_test.json',
    );
    vectors = file.testGroups.flatMap((g) => g.tests);
    for (const v of vectors) blobs.push(new Uint8Array(inflateSync(fromHex(v.ct))));
    const src = (path: string) => JSON.stringify(join(ROOT, path));
    const bundle = await build({
      stdin: {
        contents: [
          `import { expoCryptoAesGcm } from ${src('src/core/aes-gcm/expo-crypto.ts')};`,
          `import { createDecryptStream, decryptBlob } from ${src('src/core/blob/index.ts')};`,
          `import { encryptBlobWithSalt } from ${src('src/core/blob/_testing.ts')};`,
          `import * as expoCrypto from ${src('node_modules/expo-crypto/build/aes/index.js')};`,
          'globalThis.api = { expoCryptoAesGcm, expoCrypto, decryptBlob, createDecryptStream, encryptBlobWithSalt };',
        ].join('\n'),
        resolveDir: ROOT,
        loader: 'ts',
      },
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      // Expo's web build takes the .web.js files; `expo` itself is the tests' two-function stand-in.
      resolveExtensions: ['.web.js', '.js', '.ts'],
      alias: { expo: join(ROOT, 'test/expo/expo-stand-in.ts') },
      write: false,
      logLevel: 'silent',
      metafile: true,
    });
    expect(
      Object.keys(bundle.metafile.inputs).some((p) => p.startsWith('node:') || p.includes('/src/node/')),
    ).toBe(false);
    const script = bundle.outputFiles[0]!.text;
    server = createServer((req, res) => {
      const url = req.url ?? '';
      if (url === '/') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>');
      } else if (url === '/page.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      } else if (/^\/blob\/\d+$/.test(url) && blobs[Number(url.slice(6))] !== undefined) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(blobs[Number(url.slice(6))]);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => 'api' in globalThis, undefined, { timeout: 30_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  });

  it('Wycheproof AES-GCM: the same ciphertext, tag and refusals as node:crypto and noble', async () => {
    const file = await readCorpusJson<{
      testGroups: {
        ivSize: number;
        keySize: number;
        tagSize: number;
        tests: (AeadCase & { aad: string })[];
      }[];
    }>('crypto', 'wycheproof', 'aes_gcm_test.json');
    const tests = file.testGroups
      .filter((g) => g.ivSize === 96 && g.keySize === 256 && g.tagSize === 128)
      .flatMap((g) => g.tests)
      .filter((t) => t.aad === '');
    expect(tests.length).toBeGreaterThan(30);
    const inChromium = await page.evaluate(async (cases) => {
      const { expoCryptoAesGcm, expoCrypto } = (globalThis as unknown as { api: PageApi }).api;
      const aes = expoCryptoAesGcm(expoCrypto);
      const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
      const bytes = (h: string) => new Uint8Array((h.match(/../g) ?? []).map((x) => Number.parseInt(x, 16)));
      const out: string[] = [];
      for (const t of cases) {
        const key = await aes.importKey(bytes(t.key));
        const sealed = bytes(t.ct + t.tag);
        if (t.result === 'invalid') {
          const code = await aes.open(key, bytes(t.iv), sealed).then(
            () => 'opened',
            (e: { code?: string }) => e.code,
          );
          out.push(`${t.tcId} ${code}`);
          continue;
        }
        const opened = hex(await aes.open(key, bytes(t.iv), sealed));
        const resealed = hex(await aes.seal(key, bytes(t.iv), bytes(t.msg)));
        out.push(`${t.tcId} ${opened === t.msg && resealed === t.ct + t.tag ? 'same' : 'DIFFERS'}`);
      }
      return out;
    }, tests);
    expect(inChromium).toEqual(await aeadOutcomes(nodeAesGcm, tests));
    expect(inChromium).toEqual(await aeadOutcomes(nobleAesGcm, tests));
    expect(inChromium.filter((o) => o.endsWith('DIFFERS'))).toEqual([]);
    expect(inChromium.some((o) => o.endsWith('ERR_DECRYPTION_FAILED'))).toBe(true);
  });

  it('Wycheproof Cobblestone-256: decryptBlob and createDecryptStream give node:crypto’s and noble’s outcomes; valid vectors encrypt again to their bytes', async () => {
    const jobs = vectors.map((v, i) => ({
      i,
      key: v.key,
      ctx: v.ctx,
      valid: v.result === 'valid',
    }));
    const inChromium = await page.evaluate(async (list) => {
      const { expoCryptoAesGcm, expoCrypto, decryptBlob, createDecryptStream, encryptBlobWithSalt } = (
        globalThis as unknown as { api: PageApi }
      ).api;
      const aesGcm = expoCryptoAesGcm(expoCrypto);
      const bytes = (h: string) => new Uint8Array((h.match(/../g) ?? []).map((x) => Number.parseInt(x, 16)));
      const hex = (b: ArrayBuffer | Uint8Array) =>
        [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
      const sha512 = async (b: Uint8Array) =>
        `sha512 ${hex(await crypto.subtle.digest('SHA-512', b as Uint8Array<ArrayBuffer>))}`;
      const codeOf = (e: unknown) => (e as { code?: string }).code ?? String(e);
      const out: { whole: string; stream: string; reencrypted?: boolean }[] = [];
      for (const job of list) {
        const blob = new Uint8Array(await (await fetch(`/blob/${job.i}`)).arrayBuffer());
        const key = bytes(job.key);
        const context = bytes(job.ctx);
        let plain: Uint8Array | undefined;
        const whole = await decryptBlob(blob, key, { context, aesGcm }).then(async (p) => {
          plain = p;
          return sha512(p);
        }, codeOf);
        // Odd pieces (1000 bytes): chunks straddle pushes; an error ends the stream.
        let stream: string;
        try {
          const parts: Uint8Array[] = [];
          let at = 0;
          const source = new ReadableStream<Uint8Array>({
            pull(controller) {
              if (at >= blob.length) return controller.close();
              controller.enqueue(blob.slice(at, at + 1000));
              at += 1000;
            },
          });
          const reader = source.pipeThrough(createDecryptStream(key, { context, aesGcm })).getReader();
          for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
          const joined = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
          let o = 0;
          for (const p of parts) {
            joined.set(p, o);
            o += p.length;
          }
          stream = await sha512(joined);
        } catch (error) {
          stream = codeOf(error);
        }
        const entry: { whole: string; stream: string; reencrypted?: boolean } = { whole, stream };
        if (job.valid && plain !== undefined) {
          const again = await encryptBlobWithSalt(plain, key, blob.subarray(0, 24), { context, aesGcm });
          entry.reencrypted = again.length === blob.length && again.every((b, k) => b === blob[k]);
        }
        out.push(entry);
      }
      return out;
    }, jobs);
    expect(inChromium.length).toBe(vectors.length);
    for (const aesGcm of [nodeAesGcm, nobleAesGcm] as AesGcm[]) {
      const inNode: Outcome[] = [];
      for (const [i, v] of vectors.entries()) {
        inNode.push(
          await decryptBlob(blobs[i]!, fromHex(v.key), { context: fromHex(v.ctx), aesGcm }).then(
            (p) => `sha512 ${sha512Hex(p)}`,
            (e: { code?: string }) => e.code ?? String(e),
          ),
        );
      }
      expect(inChromium.map((o) => o.whole)).toEqual(inNode);
    }
    for (const [i, v] of vectors.entries()) {
      const got = inChromium[i]!;
      if (v.result === 'valid') {
        expect(got.whole, `#${v.tcId}`).toBe(`sha512 ${v.msgSha512}`);
        expect(got.stream, `#${v.tcId}`).toBe(`sha512 ${v.msgSha512}`);
        expect(got.reencrypted, `#${v.tcId}`).toBe(true);
      } else {
        expect(got.whole, `#${v.tcId}`).toMatch(/^ERR_(DECRYPTION_FAILED|INVALID_ARGUMENT)$/);
        expect(got.stream, `#${v.tcId}`).toBe(got.whole);
      }
    }
  }, 120_000);
});
