/**
 * The universal entries (the root, its specialist subpaths, and happy-media/expo, for React Native) must bundle for a browser with no Node built-ins: esbuild with platform "browser"
 * fails on any `node:` import, and the output is scanned for Node globals.
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('universal entries', () => {
  it.each([
    'src/index.ts',
    'src/envelope.ts',
    'src/blob.ts',
    'src/happy.ts',
    'src/mappers.ts',
    'src/storage.ts',
    'src/expo/index.ts',
  ])('%s bundles for the browser without Node built-ins', async (entry) => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      metafile: true,
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((p) => p.startsWith('node:') || p.includes('/src/node/'))).toBe(false);
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/from ["']node:/);
    expect(code).not.toMatch(/require\(["'](fs|crypto|stream|path)["']\)/);
    // jpeg-js allocates its output with Buffer only when called without `useTArray`, which
    // src/core/media/jpeg.ts always passes (and the Hermes run has no Buffer): that one branch aside.
    const jpegJsBranch = /opts\.useTArray \? new Uint8Array\(bytesNeeded\) : Buffer\.alloc\(bytesNeeded\)/g;
    expect(code.match(jpegJsBranch)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(code.replace(jpegJsBranch, '')).not.toMatch(/\bBuffer\.(from|alloc|concat)\(/);
  });
});
