/**
 * Timed inside the Hermes VM (the `hermes` bench suite bundles it after the app globals): the universal
 * entry's pure-JS blob decrypt (noble AES-GCM, what an app without a native cipher gets) beside tweetnacl
 * `secretbox.open` over the same plaintext size (what Happy's app reads v1 blobs with), after checking both
 * round-trip. Also the engine alone: `decryptBlob` through the Cipher-API AES-GCM over a module whose
 * "cipher" only copies (no AES, no tag check), i.e. the ceiling a native cipher
 * (react-native-quick-crypto) reaches before its own AES time. And the asynchronous engine (Happy's app
 * path: `expoCryptoAesGcm`) over a stand-in of expo-crypto's AES module whose calls resolve with copies
 * (no AES, no tag check): `decryptBlob` whole and `downloadMedia` from a source handing over 64 KiB
 * pieces, the ceiling the engine reaches under Hermes with a native cipher before the cipher's own time
 * and its native call. Prints one JSON line:
 * `{ size, blobDecryptMs[], secretboxOpenMs[], engineOnlyMs[], asyncEngineMs[], asyncDownloadMs[] }`.
 */

import {
  type CipherModule,
  cipherModuleAesGcm,
  downloadMedia,
  installRuntime,
  memorySink,
  nobleAesGcm,
  type ReadableBlobStore,
} from 'happy-media';
import { decryptBlob, encryptBlob, mediaBlobContext, unboundBlobContext } from 'happy-media/blob';
import { type ExpoCryptoAes, expoCryptoAesGcm } from 'happy-media/expo';
import nacl from 'tweetnacl';

declare const print: (line: string) => void;
declare const HERMES_BENCH: { size: number; runs: number };

function bytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Milliseconds per call of `fn`, `runs` times after a warm-up. A fast case is called `repeat` times per
 * timed run (`Date.now()` counts whole milliseconds: a call of a few would be mostly rounding).
 */
async function time(runs: number, fn: () => unknown, repeat = 1): Promise<number[]> {
  await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = Date.now();
    for (let k = 0; k < repeat; k++) await fn();
    out.push(Math.max(1, Date.now() - t) / repeat);
  }
  return out;
}

/** Calls per timed run of the engine-only cases (a few milliseconds each). */
const ENGINE_REPEAT = 16;

/** A Cipher-API module that copies instead of encrypting: times the JS engine around a native cipher. */
const copyingModule: CipherModule = {
  createCipheriv: () => ({
    update: (d) => d.slice(),
    final: () => new Uint8Array(0),
    getAuthTag: () => new Uint8Array(16),
  }),
  createDecipheriv: () => ({
    setAuthTag: () => undefined,
    update: (d) => d.slice(),
    final: () => new Uint8Array(0),
  }),
};

/** Stand-in of expo-crypto's sealed data: the bytes the native side would hold. */
interface CopiedSealed {
  bytes: Uint8Array;
  ivLength: number;
  ciphertext(options: { includeTag: boolean }): Promise<Uint8Array>;
}

function copiedSealed(bytes: Uint8Array, ivLength: number): CopiedSealed {
  return {
    bytes,
    ivLength,
    ciphertext: async ({ includeTag }) => bytes.slice(ivLength, bytes.length - (includeTag ? 0 : 16)),
  };
}

/**
 * expo-crypto's AES API (as `expoCryptoAesGcm` calls it) with a copy for a cipher: the bytes cross into
 * the "native" side once (`fromCombined`, as expo's native module copies them) and the result comes back
 * as a fresh array, each call resolving asynchronously. Nothing is encrypted: for timing the engine only.
 */
const copyingExpoModule: ExpoCryptoAes<Uint8Array, CopiedSealed> = {
  AESEncryptionKey: { import: async (key) => key.slice() },
  AESSealedData: { fromCombined: (combined, config) => copiedSealed(combined.slice(), config.ivLength) },
  async aesEncryptAsync(plaintext, _key, { nonce }) {
    const bytes = new Uint8Array(nonce.bytes.length + plaintext.length + 16);
    bytes.set(nonce.bytes);
    bytes.set(plaintext, nonce.bytes.length);
    return copiedSealed(bytes, nonce.bytes.length);
  },
  aesDecryptAsync: async (sealed) => sealed.bytes.slice(sealed.ivLength, sealed.bytes.length - 16),
};

/** A store in memory that answers in 64 KiB pieces (a phone's network reads). */
function piecewiseStore(blob: Uint8Array): ReadableBlobStore {
  return {
    head: async () => ({ size: blob.length }),
    get: async (_ref, range) => {
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
}

async function main(): Promise<void> {
  const { size, runs } = HERMES_BENCH;
  const key = bytes(32, 7);
  const plain = bytes(size, 9);
  const blob = await encryptBlob(plain, key, { context: unboundBlobContext(), aesGcm: nobleAesGcm });
  if (!same(await decryptBlob(blob, key, { context: unboundBlobContext(), aesGcm: nobleAesGcm }), plain))
    throw new Error('blob round trip failed');
  const nonce = bytes(24, 3);
  const boxed = nacl.secretbox(plain, nonce, key);
  const opened = nacl.secretbox.open(boxed, nonce, key);
  if (!opened || !same(opened, plain)) throw new Error('secretbox round trip failed');
  const blobDecryptMs = await time(runs, () =>
    decryptBlob(blob, key, { context: unboundBlobContext(), aesGcm: nobleAesGcm }),
  );
  const secretboxOpenMs = await time(runs, () => nacl.secretbox.open(boxed, nonce, key));
  const copyOnly = cipherModuleAesGcm(copyingModule, { name: 'copy-only' });
  const copied = await encryptBlob(plain, key, { context: unboundBlobContext(), aesGcm: copyOnly });
  if (!same(await decryptBlob(copied, key, { context: unboundBlobContext(), aesGcm: copyOnly }), plain))
    throw new Error('engine round trip failed');
  const engineOnlyMs = await time(
    runs,
    () => decryptBlob(copied, key, { context: unboundBlobContext(), aesGcm: copyOnly }),
    ENGINE_REPEAT,
  );
  const REF = 'media/benchhermes00000000000000';
  const asyncCopy = expoCryptoAesGcm(copyingExpoModule, { name: 'copy-only expo stand-in' });
  const context = mediaBlobContext(REF);
  const asyncCopied = await encryptBlob(plain, key, { context, aesGcm: asyncCopy });
  const store = piecewiseStore(asyncCopied);
  installRuntime({ aesGcm: asyncCopy });
  const download = () =>
    downloadMedia({ ref: REF, size }, { source: store, blobKey: key, sink: memorySink() });
  if (
    !same(await decryptBlob(asyncCopied, key, { context, aesGcm: asyncCopy }), plain) ||
    !same(await download(), plain)
  )
    throw new Error('asynchronous engine round trip failed');
  const asyncEngineMs = await time(
    runs,
    () => decryptBlob(asyncCopied, key, { context, aesGcm: asyncCopy }),
    ENGINE_REPEAT,
  );
  const asyncDownloadMs = await time(runs, download, ENGINE_REPEAT);
  print(
    JSON.stringify({ size, blobDecryptMs, secretboxOpenMs, engineOnlyMs, asyncEngineMs, asyncDownloadMs }),
  );
}

main().catch((error) => print(JSON.stringify({ error: String(error) })));
