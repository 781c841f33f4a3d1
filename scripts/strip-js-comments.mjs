#!/usr/bin/env node
/**
 * The build's last step: the emitted JavaScript of `DIR` without its comments. tsc copies every TSDoc
 * comment into the .js files as well as into the .d.ts files; at run time nobody reads them, and they were
 * a third of the package an app installs (docs/architecture.md, "What an app installs"). The .d.ts files
 * keep them for editors. esbuild rewrites each file on its own (no bundling, no minifying, no lowering:
 * the same ES modules without comments); tsc's source maps would no longer match, so the build emits none.
 *
 * Usage: `node scripts/strip-js-comments.mjs DIR` (run by `npm run build`).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { transform } from 'esbuild';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node scripts/strip-js-comments.mjs DIR\n');
  process.exit(2);
}
let before = 0;
let after = 0;
for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
  const path = join(entry.parentPath, entry.name);
  const source = await readFile(path, 'utf8');
  const { code } = await transform(source, {
    loader: 'js',
    format: 'esm',
    legalComments: 'none',
    charset: 'utf8',
  });
  before += Buffer.byteLength(source);
  after += Buffer.byteLength(code);
  if (code !== source) await writeFile(path, code);
}
process.stdout.write(`strip-js-comments: ${dir}: ${before} → ${after} bytes of JavaScript\n`);
