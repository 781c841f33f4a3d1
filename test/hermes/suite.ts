/**
 * The universal entry under the Hermes VM (bundled by bench/harness/hermes.ts with only a React Native
 * app's globals). Prints `ok <name>` or `FAIL <name>: <reason>` per check, then `done`. Run by
 * test/hermes/hermes.test.ts; the names are in check-names.ts.
 */

import {
  bufferRangeSource,
  createDecryptStream,
  decryptBlob,
  encryptBlob,
  mediaBlobContext,
  openBlobRandomAccess,
  unboundBlobContext,
} from '../../src/blob.js';
import { encryptBlobWithSalt } from '../../src/core/blob/_testing.js';
import { fromHex, joinBytes, randomBytes, toHex, utf8 } from '../../src/core/bytes.js';
import type { MediaSink } from '../../src/core/playback/media-sink.js';
import {
  dataKey,
  decryptDataKey,
  decryptDataKeyAsync,
  decryptLegacy,
  encryptDataKey,
  encryptDataKeyAsync,
  encryptLegacy,
  fromBase64,
  legacyKey,
  openMessage,
  openMessageAsync,
  openMessagesAsync,
  sealMessage,
  sealMessageAsync,
  toBase64,
} from '../../src/envelope.js';
import {
  type ExpoCryptoAes,
  expoCryptoAesGcm,
  expoFileSink,
  expoFileSource,
  openExpoMedia,
} from '../../src/expo/index.js';
import {
  type AsyncAesGcm,
  assertSessionMessage,
  decryptV1Blob,
  downloadMedia,
  encryptV1Blob,
  fileMessage,
  getRuntime,
  HappyMediaError,
  installRuntime,
  memorySink,
  nobleAesGcm,
  parseSessionMessage,
  sendPickedMedia,
  thumbhashFromImage,
} from '../../src/index.js';
import { testBytes } from '../core/blob/blob-test-utils.js';
import blobVectors from '../fixtures/blob-vectors.json' with { type: 'json' };
import golden from '../fixtures/happy-formats.json' with { type: 'json' };
import thumbhashImages from '../fixtures/thumbhash-images.json' with { type: 'json' };
import { rejectionCodeOf } from '../helpers/errors.js';
import { type FakeFile, fakeExpoFileSystem } from '../helpers/fake-expo-file-system.js';
import { fakeFetch } from '../helpers/fake-fetch.js';
import { memoryStore } from '../helpers/memory-store.js';
import { HERMES_CHECKS } from './check-names.js';

declare const print: (line: string) => void;

type CheckName = (typeof HERMES_CHECKS)[number];

function assert(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(what);
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<{ out: Uint8Array; error: unknown }> {
  const parts: Uint8Array[] = [];
  let error: unknown;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
  } catch (e) {
    error = e;
  }
  const out = joinBytes(parts);
  return { out, error };
}

/** Feeds `bytes` in pieces of 1, 7, 1000, 16400, ... bytes through `transform`. */
function piecewise(bytes: Uint8Array, transform: TransformStream<Uint8Array, Uint8Array>) {
  const sizes = [1, 7, 1000, 16400, 333, 40000];
  let at = 0;
  let i = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const n = sizes[i++ % sizes.length]!;
      controller.enqueue(bytes.slice(at, at + n));
      at += n;
    },
  });
  return collect(source.pipeThrough(transform));
}

const key = testBytes(32, 11);
const REF = 'media/hermes000000000000000000';
const URL_OF = 'https://blobs.example/hermes';
/** Every v2 blob here is bound to REF, the ref the downloadMedia messages name. */
const CONTEXT = mediaBlobContext(REF);

/**
 * noble driven as an asynchronous implementation (each call settles in a later microtask), as expo-crypto's
 * would be: the asynchronous paths must give the same bytes under Hermes.
 */
const asyncNoble: AsyncAesGcm = {
  name: 'async-noble',
  mode: 'async',
  importKey: async (k) => nobleAesGcm.importKey(k),
  seal: async (k, nonce, plaintext) => nobleAesGcm.seal(k as Uint8Array, nonce, plaintext),
  open: async (k, nonce, sealed) => nobleAesGcm.open(k as Uint8Array, nonce, sealed),
};

/** What the expo-crypto stand-in's sealed data holds: `nonce || ciphertext || tag`, as its native side would. */
interface StandInSealed {
  combined: Uint8Array;
  ivLength: number;
  ciphertext(options: { includeTag: boolean }): Promise<Uint8Array>;
}

function standInSealed(combined: Uint8Array, ivLength: number): StandInSealed {
  return {
    combined,
    ivLength,
    ciphertext: async ({ includeTag }) => combined.slice(ivLength, combined.length - (includeTag ? 0 : 16)),
  };
}

/** Settles after `turn % 3` macrotasks, so calls made together settle out of order, as native ones may. */
let turn = 0;
async function later(): Promise<void> {
  for (let i = turn++ % 3; i > 0; i--) await new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * The part of expo-crypto's AES module `expoCryptoAesGcm` calls, asynchronous, with noble doing the AES-GCM
 * (Hermes has no expo native module): the bytes are copied in (`fromCombined`, as expo's native side takes
 * them) and read only when the call runs, a macrotask or two later.
 */
const expoCryptoStandIn: ExpoCryptoAes<Uint8Array, StandInSealed> = {
  AESEncryptionKey: { import: async (bytes) => bytes.slice() },
  AESSealedData: { fromCombined: (combined, config) => standInSealed(combined.slice(), config.ivLength) },
  async aesEncryptAsync(plaintext, k, { nonce }) {
    await later();
    const sealed = nobleAesGcm.seal(k, nonce.bytes, plaintext);
    return standInSealed(joinBytes([nonce.bytes, sealed]), nonce.bytes.length);
  },
  async aesDecryptAsync(sealed, k) {
    await later();
    const { combined, ivLength } = sealed;
    return nobleAesGcm.open(k, combined.subarray(0, ivLength), combined.subarray(ivLength));
  },
};

/** A sink that checks every write continues `plain` and records what happened to it. */
function checkingSink(plain: Uint8Array) {
  const events: string[] = [];
  let written = 0;
  const sink: MediaSink<void> = {
    write: (bytes) => {
      events.push('write');
      assert(same(bytes, plain.subarray(written, written + bytes.length)), 'unverified bytes written');
      written += bytes.length;
    },
    commit: () => {
      events.push('commit');
    },
    abort: () => {
      events.push('abort');
    },
  };
  return { sink, events, written: () => written };
}

const checks: Record<CheckName, () => Promise<void> | void> = {
  'runtime has no crypto.subtle, Buffer or process; the runtime AES-GCM is noble': () => {
    const g = globalThis as Record<string, unknown>;
    assert(typeof g.Buffer === 'undefined' && typeof g.process === 'undefined', 'Node globals present');
    assert(typeof (g.crypto as { subtle?: unknown }).subtle === 'undefined', 'crypto.subtle present');
    assert(typeof (g as { HermesInternal?: unknown }).HermesInternal === 'object', 'not Hermes');
    assert(getRuntime().aesGcm === nobleAesGcm, `AES-GCM ${getRuntime().aesGcm.name}`);
  },
  'protocol: builds, parses and rejects session messages': async () => {
    const message = fileMessage({
      role: 'user',
      ref: REF,
      name: 'a.pdf',
      size: 3,
      mimeType: 'application/pdf',
    });
    const parsed = parseSessionMessage(JSON.parse(JSON.stringify(message)));
    assert(parsed.success && parsed.data.type === 'file', 'valid message not parsed');
    const bad = parseSessionMessage({ ...message, ref: 'media/../x' });
    assert(!bad.success, 'bad ref accepted');
    assert(
      (await rejectionCodeOf(() => assertSessionMessage({ type: 'nope' }))) === 'ERR_SCHEMA',
      'no ERR_SCHEMA',
    );
  },
  'envelope legacy variant: golden vector, seal/open round trip, tamper rejected': async () => {
    const master = fromHex(golden.inputs.masterSecretHex);
    const nonce = fromHex(golden.legacy.nonceHex);
    assert(
      toBase64(encryptLegacy(utf8(golden.legacy.plaintextUtf8), master, { nonce })) === golden.legacy.base64,
      'golden',
    );
    const message = { id: 'm', time: 1, role: 'user' as const, type: 'text' as const, text: 'héllo ✓' };
    const sealed = sealMessage(message, legacyKey(master));
    assert(JSON.stringify(openMessage(sealed, legacyKey(master))) === JSON.stringify(message), 'round trip');
    const bad = fromBase64(golden.legacy.base64);
    bad[bad.length - 1]! ^= 1;
    assert((await rejectionCodeOf(() => decryptLegacy(bad, master))) === 'ERR_DECRYPTION_FAILED', 'tamper');
  },
  'envelope dataKey variant: golden vector, seal/open round trip, tamper rejected': async () => {
    const k = fromHex(golden.inputs.dataKeyHex);
    const nonce = fromHex(golden.dataKey.nonceHex);
    assert(
      toBase64(encryptDataKey(utf8(golden.dataKey.plaintextUtf8), k, { nonce })) === golden.dataKey.base64,
      'golden',
    );
    const message = {
      id: 'm',
      time: 1,
      role: 'user' as const,
      type: 'text' as const,
      text: 'x'.repeat(5000),
    };
    const sealed = sealMessage(message, dataKey(k));
    assert(JSON.stringify(openMessage(sealed, dataKey(k))) === JSON.stringify(message), 'round trip');
    const bad = fromBase64(golden.dataKey.base64);
    bad[5]! ^= 1;
    assert((await rejectionCodeOf(() => decryptDataKey(bad, k))) === 'ERR_DECRYPTION_FAILED', 'tamper');
  },
  'v1 attachment blob: golden vector': () => {
    const blob = fromBase64(golden.v1Blob.base64);
    const k = fromHex(golden.sessionBlobKey as unknown as string);
    assert(toHex(decryptV1Blob(blob, k)) === golden.v1Blob.plaintextHex, 'open');
    assert(
      toBase64(
        encryptV1Blob(fromHex(golden.v1Blob.plaintextHex), k, { nonce: fromHex(golden.v1Blob.nonceHex) }),
      ) === golden.v1Blob.base64,
      'seal',
    );
  },
  'blob: frozen vectors reproduced byte for byte': async () => {
    let checked = 0;
    for (const v of blobVectors.vectors as {
      key: string;
      salt: string;
      ctx?: string;
      msgLength: number;
      msgSeed: number;
      ct?: string;
      ctHead: string;
      ctTail: string;
    }[]) {
      if (v.msgLength > 20_000) continue;
      const options = { context: v.ctx === undefined ? unboundBlobContext() : fromHex(v.ctx) };
      const ct = await encryptBlobWithSalt(
        testBytes(v.msgLength, v.msgSeed),
        fromHex(v.key),
        fromHex(v.salt),
        options,
      );
      if (v.ct !== undefined) assert(toHex(ct) === v.ct, `vector ${v.msgLength}`);
      assert(
        toHex(ct.subarray(0, 96)) === v.ctHead && toHex(ct.subarray(ct.length - 32)) === v.ctTail,
        'head/tail',
      );
      assert(
        same(await decryptBlob(ct, fromHex(v.key), options), testBytes(v.msgLength, v.msgSeed)),
        'decrypt',
      );
      checked++;
    }
    assert(checked >= 6, `only ${checked} vectors`);
  },
  'blob over an asynchronous AES-GCM: frozen vectors, tamper refused': async () => {
    const v = (
      blobVectors.vectors as {
        key: string;
        salt: string;
        msgLength: number;
        msgSeed: number;
        ctHead: string;
        ctTail: string;
      }[]
    ).find((x) => x.msgLength > 16384 && x.msgLength <= 40_000);
    assert(v !== undefined, 'no multi-chunk vector');
    const plain = testBytes(v.msgLength, v.msgSeed);
    const ct = await encryptBlobWithSalt(plain, fromHex(v.key), fromHex(v.salt), {
      aesGcm: asyncNoble,
      context: unboundBlobContext(),
    });
    assert(
      toHex(ct.subarray(0, 96)) === v.ctHead && toHex(ct.subarray(ct.length - 32)) === v.ctTail,
      'bytes',
    );
    assert(
      same(
        await decryptBlob(ct, fromHex(v.key), { aesGcm: asyncNoble, context: unboundBlobContext() }),
        plain,
      ),
      'decrypt',
    );
    const bad = ct.slice();
    bad[100]! ^= 1;
    assert(
      (await rejectionCodeOf(() =>
        decryptBlob(bad, fromHex(v.key), { aesGcm: asyncNoble, context: unboundBlobContext() }),
      )) === 'ERR_DECRYPTION_FAILED',
      'tamper',
    );
  },
  'envelopes over an asynchronous AES-GCM: golden vector, openMessagesAsync, tamper refused': async () => {
    installRuntime({ aesGcm: asyncNoble });
    try {
      const k = fromHex(golden.inputs.dataKeyHex);
      const nonce = fromHex(golden.dataKey.nonceHex);
      const record = await encryptDataKeyAsync(utf8(golden.dataKey.plaintextUtf8), k, { nonce });
      assert(toBase64(record) === golden.dataKey.base64, 'golden');
      const message = { id: 'm', time: 1, role: 'user' as const, type: 'text' as const, text: 'héllo ✓' };
      const envelopes = [await sealMessageAsync(message, dataKey(k)), sealMessage(message, dataKey(k))];
      const opened = await openMessagesAsync(envelopes, dataKey(k));
      assert(
        opened.every((o) => o.ok && JSON.stringify(o.message) === JSON.stringify(message)),
        'open',
      );
      const bad = fromBase64(golden.dataKey.base64);
      bad[20]! ^= 1;
      assert(
        (await rejectionCodeOf(() => decryptDataKeyAsync(bad, k))) === 'ERR_DECRYPTION_FAILED',
        'tamper',
      );
    } finally {
      installRuntime({});
    }
  },
  'happy-media/expo cipher: expoCryptoAesGcm over an asynchronous expo-crypto stand-in: frozen vector, decryptBlob and downloadMedia, flipped tag refused with nothing unverified released, abort':
    async () => {
      const expo = expoCryptoAesGcm(expoCryptoStandIn);
      const v = (
        blobVectors as unknown as {
          vectors: {
            key: string;
            salt: string;
            msgLength: number;
            msgSeed: number;
            ctHead: string;
            ctTail: string;
          }[];
        }
      ).vectors.find((x) => x.msgLength > 16384 && x.msgLength <= 40_000);
      assert(v !== undefined, 'no multi-chunk vector');
      const vectorPlain = testBytes(v.msgLength, v.msgSeed);
      const ct = await encryptBlobWithSalt(vectorPlain, fromHex(v.key), fromHex(v.salt), {
        aesGcm: expo,
        context: unboundBlobContext(),
      });
      assert(
        toHex(ct.subarray(0, 96)) === v.ctHead && toHex(ct.subarray(ct.length - 32)) === v.ctTail,
        'frozen vector bytes',
      );
      const plain = testBytes(300_000, 13);
      const blob = await encryptBlob(plain, key, { context: CONTEXT, aesGcm: expo });
      assert(same(await decryptBlob(blob, key, { context: CONTEXT, aesGcm: expo }), plain), 'decryptBlob');
      installRuntime({ aesGcm: expo });
      try {
        const server = fakeFetch({ [URL_OF]: blob }, { pieceBytes: 65536 });
        const out = await downloadMedia(
          { ref: REF, size: plain.length },
          { source: URL_OF, fetch: server.fetch, blobKey: key, sink: memorySink() },
        );
        assert(same(out, plain), 'downloadMedia');
        // The tag of chunk 6 flipped: only chunks before it may reach the sink, then it is aborted.
        const bad = blob.slice();
        bad[56 + 16400 * 7 - 1]! ^= 1;
        assert(
          (await rejectionCodeOf(() => decryptBlob(bad, key, { context: CONTEXT }))) ===
            'ERR_DECRYPTION_FAILED',
          'decryptBlob tamper',
        );
        const tampered = checkingSink(plain);
        const code = await rejectionCodeOf(() =>
          downloadMedia(
            { ref: REF, size: plain.length },
            {
              source: URL_OF,
              fetch: fakeFetch({ [URL_OF]: bad }, { pieceBytes: 65536 }).fetch,
              blobKey: key,
              sink: tampered.sink,
            },
          ),
        );
        assert(code === 'ERR_DECRYPTION_FAILED', `tamper: ${code}`);
        assert(tampered.written() <= 6 * 16384, `tamper: ${tampered.written()} bytes written`);
        assert(
          tampered.events[tampered.events.length - 1] === 'abort' && !tampered.events.includes('commit'),
          `tamper: ${tampered.events.join(',')}`,
        );
        const controller = new AbortController();
        const stopped = checkingSink(plain);
        const abortCode = await rejectionCodeOf(() =>
          downloadMedia(
            { ref: REF, size: plain.length },
            {
              source: URL_OF,
              fetch: fakeFetch({ [URL_OF]: blob }, { pieceBytes: 65536 }).fetch,
              blobKey: key,
              sink: stopped.sink,
              signal: controller.signal,
              onProgress: ({ done }) => {
                if (done > 50_000) controller.abort();
              },
            },
          ),
        );
        assert(abortCode === 'ERR_ABORTED', `abort: ${abortCode}`);
        assert(stopped.written() < plain.length, 'abort: everything written');
        assert(
          stopped.events[stopped.events.length - 1] === 'abort' && !stopped.events.includes('commit'),
          `abort: ${stopped.events.join(',')}`,
        );
      } finally {
        installRuntime({});
      }
    },
  'blob decrypt stream: odd pieces in, exact plaintext out': async () => {
    const plain = testBytes(70_000, 3);
    const blob = await encryptBlob(plain, key, { context: CONTEXT });
    const { out, error } = await piecewise(blob, createDecryptStream(key, { context: CONTEXT }));
    assert(error === undefined, `error ${String(error)}`);
    assert(same(out, plain), 'plaintext differs');
  },
  'blob tamper: every leg fails with ERR_DECRYPTION_FAILED, nothing released': async () => {
    const plain = testBytes(40_000, 4);
    const blob = await encryptBlob(plain, key, { context: CONTEXT });
    for (const at of [3, 30, 56 + 16400 + 5, blob.length - 1]) {
      const bad = blob.slice();
      bad[at]! ^= 1;
      assert(
        (await rejectionCodeOf(() => decryptBlob(bad, key, { context: CONTEXT }))) ===
          'ERR_DECRYPTION_FAILED',
        `whole at ${at}`,
      );
      const { out, error } = await piecewise(bad, createDecryptStream(key, { context: CONTEXT }));
      assert(error instanceof HappyMediaError && error.code === 'ERR_DECRYPTION_FAILED', `stream at ${at}`);
      // Only whole chunks before the damaged one may have been released.
      const chunk = at < 56 ? 0 : Math.floor((at - 56) / 16400);
      assert(out.length <= chunk * 16384 && same(out, plain.subarray(0, out.length)), `released at ${at}`);
    }
    assert(
      (await rejectionCodeOf(() => decryptBlob(blob, testBytes(32, 99), { context: CONTEXT }))) ===
        'ERR_DECRYPTION_FAILED',
      'wrong key',
    );
  },
  'random access: ranges decrypt to the exact bytes': async () => {
    const plain = testBytes(100_000, 5);
    const reader = await openBlobRandomAccess(
      bufferRangeSource(await encryptBlob(plain, key, { context: CONTEXT })),
      key,
      { context: CONTEXT },
    );
    assert(reader.plaintextSize === plain.length, 'size');
    for (const [offset, length] of [
      [0, 10],
      [16380, 10],
      [50_000, 30_000],
      [99_900, 100],
    ] as const) {
      const got = await reader.read(offset, length);
      assert(same(got, plain.subarray(offset, offset + length)), `range ${offset}+${length}`);
    }
  },
  'downloadMedia: fetch source with a dropped connection into a memory sink': async () => {
    const plain = testBytes(120_000, 6);
    const server = fakeFetch(
      { [URL_OF]: await encryptBlob(plain, key, { context: CONTEXT }) },
      { dropAfter: [40_000] },
    );
    let last = 0;
    const out = await downloadMedia(
      { ref: REF, size: plain.length },
      {
        source: URL_OF,
        fetch: server.fetch,
        blobKey: key,
        sink: memorySink(),
        retryDelayMs: 0,
        onProgress: ({ done }) => {
          last = done;
        },
      },
    );
    assert(same(out, plain), 'plaintext differs');
    assert(last === plain.length, 'progress');
    // The size comes from the first answer's Content-Range: no size probe, just the download and its resume.
    assert(server.requests.length === 2, `${server.requests.length} requests`);
    const resumed = Number(/^bytes=(\d+)-/.exec(server.requests[1]?.range ?? '')?.[1]);
    assert(resumed > 0 && (resumed - 56) % 16400 === 0, `resumed at ${resumed}`);
  },
  'downloadMedia: tampered blob aborts the sink, v1 blob verified whole': async () => {
    const plain = testBytes(60_000, 7);
    const blob = await encryptBlob(plain, key, { context: CONTEXT });
    blob[56 + 16400 * 2 + 9]! ^= 1;
    const { sink, events } = checkingSink(plain);
    const code = await rejectionCodeOf(() =>
      downloadMedia(
        { ref: REF },
        { source: URL_OF, fetch: fakeFetch({ [URL_OF]: blob }).fetch, blobKey: key, sink },
      ),
    );
    assert(code === 'ERR_DECRYPTION_FAILED', code);
    assert(events[events.length - 1] === 'abort' && !events.includes('commit'), events.join(','));
    const small = testBytes(3000, 8);
    const v1 = encryptV1Blob(small, key);
    const out = await downloadMedia(
      { ref: REF, format: 'v1' },
      { source: URL_OF, fetch: fakeFetch({ [URL_OF]: v1 }).fetch, blobKey: key, sink: memorySink() },
    );
    assert(same(out, small), 'v1');
  },
  'thumbhashFromImage: JPEG (EXIF orientation 6) and interlaced palette PNG give the Node run’s hashes':
    async () => {
      for (const image of thumbhashImages.images) {
        const hash = await thumbhashFromImage(fromBase64(image.base64));
        assert(hash === image.hash, `${image.name}: ${hash}`);
      }
      assert(
        (await rejectionCodeOf(() => thumbhashFromImage(utf8('GIF89a not really')))) === 'ERR_PROBE_FAILED',
        'other format',
      );
    },
  'happy-media/expo: expoFileSink and openExpoMedia over an in-memory expo-file-system (verified file, cache hit, tamper leaves nothing)':
    async () => {
      const fs = fakeExpoFileSystem();
      const plain = testBytes(200_000, 12);
      const blob = await encryptBlob(plain, key, { context: CONTEXT });
      const server = fakeFetch({ [URL_OF]: blob });
      const message = { ref: REF, size: plain.length, mimeType: 'video/mp4' };
      const file = await downloadMedia(message, {
        source: URL_OF,
        fetch: server.fetch,
        blobKey: key,
        sink: expoFileSink(fs),
      });
      assert(same((file as unknown as FakeFile).bytesSync(), plain), 'sink bytes');
      const cached = await openExpoMedia(message, {
        fileSystem: fs,
        source: URL_OF,
        fetch: server.fetch,
        blobKey: key,
      });
      const requests = server.requests.length;
      const again = await openExpoMedia(message, {
        fileSystem: fs,
        source: URL_OF,
        fetch: server.fetch,
        blobKey: key,
      });
      assert(again.uri === cached.uri && server.requests.length === requests, 'cache hit without a request');
      const bad = blob.slice();
      bad[56 + 16400 * 5]! ^= 1;
      const clean = fakeExpoFileSystem();
      const code = await rejectionCodeOf(() =>
        downloadMedia(message, {
          source: URL_OF,
          fetch: fakeFetch({ [URL_OF]: bad }).fetch,
          blobKey: key,
          sink: expoFileSink(clean),
        }),
      );
      assert(
        code === 'ERR_DECRYPTION_FAILED' && clean.files.size === 0,
        `tamper: ${code}, ${clean.files.size} files`,
      );
    },
  'sendPickedMedia over the expo-crypto stand-in: a photo read through expoFileSource with its 100 px thumbnail, uploaded, described, sealed; the blob downloads to the same bytes and the envelope opens':
    async () => {
      installRuntime({ aesGcm: expoCryptoAesGcm(expoCryptoStandIn) });
      try {
        const fs = fakeExpoFileSystem();
        const photo = testBytes(150_000, 21);
        const picked = new fs.File(fs.Paths.cache, 'IMG_0001.jpg');
        picked.create();
        picked.write(photo);
        const thumbnail = thumbhashImages.images[0]!;
        const store = memoryStore();
        const sessionKey = dataKey(testBytes(32, 22));
        const { message, envelope, ref } = await sendPickedMedia(
          {
            source: expoFileSource(picked as never),
            name: 'IMG_0001.jpg',
            mimeType: 'image/jpeg',
            width: 4032,
            height: 3024,
            thumbnail: fromBase64(thumbnail.base64),
          },
          { store, blobKey: key, sealKey: sessionKey },
        );
        assert(message.type === 'photo' && message.ref === ref, `message ${message.type}`);
        assert(
          message.type === 'photo' && message.thumbhash === thumbnail.hash,
          'thumbhash of the thumbnail',
        );
        assert(fs.openHandles.size === 0, 'the picked file was closed');
        const out = await downloadMedia(message, { source: store, blobKey: key, sink: memorySink() });
        assert(same(out, photo), 'the uploaded blob downloads to the photo');
        const opened = await openMessageAsync(envelope, sessionKey);
        assert(opened.id === message.id && opened.type === 'photo', 'the envelope opens to the message');
      } finally {
        installRuntime({});
      }
    },
  "private photos: sendPickedMedia strips a JPEG's EXIF camera and GPS (bytes, and one pass over a bare stream), keeping its size and orientation":
    async () => {
      const fixture = thumbhashImages.images[0]!; // a JPEG with EXIF orientation 6
      const base = fromBase64(fixture.base64);
      // Planted after SOI: an APP1 EXIF block with Make, Orientation 6 and a GPS IFD holding a date stamp.
      const tiff = new Uint8Array(87);
      const view = new DataView(tiff.buffer);
      tiff.set([0x4d, 0x4d, 0, 0x2a, 0, 0, 0, 8, 0, 3]);
      const entry = (at: number, tag: number, type: number, count: number, value: number) => {
        view.setUint16(at, tag);
        view.setUint16(at + 2, type);
        view.setUint32(at + 4, count);
        if (type === 3) view.setUint16(at + 8, value);
        else view.setUint32(at + 8, value);
      };
      entry(10, 0x010f, 2, 8, 50); // Make → "AcmeCam"
      entry(22, 0x0112, 3, 1, 6); // Orientation
      entry(34, 0x8825, 4, 1, 58); // GPS IFD
      tiff.set(utf8('AcmeCam'), 50);
      view.setUint16(58, 1);
      entry(60, 0x001d, 2, 11, 76); // GPSDateStamp
      tiff.set(utf8('2024:01:02'), 76);
      const app1 = joinBytes([new Uint8Array([0xff, 0xe1, 0, 95]), utf8('Exif'), new Uint8Array(2), tiff]);
      const jpeg = joinBytes([base.subarray(0, 2), app1, base.subarray(2)]);
      const text = (bytes: Uint8Array) => String.fromCharCode(...bytes);
      assert(text(jpeg).includes('AcmeCam') && text(jpeg).includes('2024:01:02'), 'planted');
      let at = 0;
      const bare = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (at >= jpeg.length) return controller.close();
          controller.enqueue(jpeg.slice(at, at + 100));
          at += 100;
        },
      });
      for (const source of [jpeg, bare]) {
        const store = memoryStore();
        const { message } = await sendPickedMedia(
          {
            source,
            size: jpeg.length,
            name: 'IMG_2.jpg',
            mimeType: 'image/jpeg',
            width: 60,
            height: 100,
            thumbhash: fixture.hash,
          },
          { store, blobKey: key },
        );
        const out = await downloadMedia(message, { source: store, blobKey: key, sink: memorySink() });
        assert(out.length === jpeg.length, `the size is kept (${out.length})`);
        assert(
          !text(out).includes('AcmeCam') && !text(out).includes('2024:01:02'),
          'camera and GPS are gone',
        );
        assert((await thumbhashFromImage(out)) === fixture.hash, 'the same picture, still turned');
      }
    },
};

async function main(): Promise<void> {
  for (const name of HERMES_CHECKS) {
    try {
      await checks[name]();
      print(`ok ${name}`);
    } catch (error) {
      print(
        `FAIL ${name}: ${error instanceof Error ? `${error.message} ${error.stack ?? ''}` : String(error)}`,
      );
    }
  }
  // Proves the run is from this bundle and that randomBytes works on the app's getRandomValues.
  print(`done ${randomBytes(4).length}`);
}

main().catch((error) => print(`FAIL main: ${String(error)}`));
