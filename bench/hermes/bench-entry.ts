/**
 * Timed inside the Hermes VM (the `hermes` bench suite bundles it after the app globals): the universal
 * entry's pure-JS blob decrypt (noble AES-GCM, what an app without a native cipher gets) beside tweetnacl
 * `secretbox.open` over the same plaintext size (what Happy's app uses today), after checking both
 * round-trip. Also the engine alone: `decryptBlob` through the Cipher-API AES-GCM over a module whose
 * "cipher" only copies (no AES, no tag check), i.e. the ceiling a native cipher
 * (react-native-quick-crypto) reaches before its own AES time. Prints one JSON line:
 * `{ size, blobDecryptMs[], secretboxOpenMs[], engineOnlyMs[] }`.
 */

import {
  type CipherModule,
  cipherModuleAesGcm,
  decryptBlob,
  encryptBlob,
  nobleAesGcm,
  unboundBlobContext,
} from 'happy-media';
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

async function time(runs: number, fn: () => unknown): Promise<number[]> {
  await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = Date.now();
    await fn();
    out.push(Math.max(1, Date.now() - t));
  }
  return out;
}

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
  const engineOnlyMs = await time(runs, () =>
    decryptBlob(copied, key, { context: unboundBlobContext(), aesGcm: copyOnly }),
  );
  print(JSON.stringify({ size, blobDecryptMs, secretboxOpenMs, engineOnlyMs }));
}

main().catch((error) => print(JSON.stringify({ error: String(error) })));
