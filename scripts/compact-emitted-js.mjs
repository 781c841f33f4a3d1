#!/usr/bin/env node
/**
 * The build's last step: the emitted JavaScript of `DIR` without its comments and layout. tsc copies every
 * TSDoc comment into the .js files as well as into the .d.ts files, and indents by four spaces; at run time
 * nobody reads either, and they were a third of the package an app installs (docs/architecture.md, "What an
 * app installs": the goal is 10 MB, and zod alone is 6.1 MB). The .d.ts files keep the comments for
 * editors, and the repository's `src/` is the code to read. esbuild rewrites each file on its own (no
 * bundling, no renaming, no lowering: the same ES modules with their names, on fewer lines); tsc's source
 * maps would no longer match, so the build emits none.
 *
 * Usage: `node scripts/compact-emitted-js.mjs DIR` (run by `npm run build`).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { transform } from 'esbuild';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node scripts/compact-emitted-js.mjs DIR\n');
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
    minifyWhitespace: true,
    charset: 'utf8',
  });
  before += Buffer.byteLength(source);
  after += Buffer.byteLength(code);
  if (code !== source) await writeFile(path, code);
}
process.stdout.write(`compact-emitted-js: ${dir}: ${before} → ${after} bytes of JavaScript\n`);
