/**
 * expo-crypto's own web AES (`expo-crypto/build/aes`, its `ExpoCryptoAES.web.js` over `crypto.subtle`),
 * bundled as an Expo web app resolves it (`.web.js` first) with the two-function `expo` stand-in of
 * test/expo/expo-stand-in.ts, for Node (imported from a temp file) and for a Chromium page (the source).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { ExpoCryptoAes } from '../../src/core/aes-gcm/expo-crypto.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** expo-crypto's AES entry bundled as ESM source (no other module touched). */
export async function expoCryptoAesSource(): Promise<string> {
  const result = await build({
    entryPoints: [join(ROOT, 'node_modules/expo-crypto/build/aes/index.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    resolveExtensions: ['.web.js', '.js'],
    alias: { expo: join(ROOT, 'test/expo/expo-stand-in.ts') },
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

let loaded: Promise<ExpoCryptoAes> | undefined;

/** expo-crypto's AES module (`AESEncryptionKey`, `AESSealedData`, `aesEncryptAsync`, `aesDecryptAsync`) in Node. */
export function loadExpoCryptoAes(): Promise<ExpoCryptoAes> {
  loaded ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'happy-media-expo-crypto-'));
    try {
      const file = join(dir, 'expo-crypto-aes.mjs');
      await writeFile(file, await expoCryptoAesSource(), { mode: 0o600 });
      return (await import(/* @vite-ignore */ pathToFileURL(file).href)) as ExpoCryptoAes;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  return loaded;
}
