/**
 * Bundles a few lines of TypeScript that import from the repository's `src/` into one script for the
 * browser (esbuild, in memory): the page's module or the Service Worker's classic script of a browser test.
 */
import { build } from 'esbuild';

/** `contents` (resolved from the repository root) as one browser script: `esm` for a page, `iife` for a worker. */
export async function bundleForBrowser(contents: string, format: 'esm' | 'iife'): Promise<string> {
  const result = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    platform: 'browser',
    format,
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
