#!/usr/bin/env node
/**
 * The `happy-media` command line as one file: `dist/src/cli/bin.js` (the build's output) and everything it
 * imports from this package and from happy-media's own dependencies (zod, tweetnacl, the noble and scure
 * libraries, fflate, jpeg-js, thumbhash), in one ES module. The Node media stack (every optional peer:
 * sharp, ffmpeg/ffprobe, libheif-js, file-type, the S3 client, commander, cli-progress) stays outside,
 * imported at run time as before, so a missing one still gets its ERR_DEPENDENCY_MISSING.
 *
 * Why: run from the package's files, a command starts by loading about 350 modules (every named command
 * loads the Node entry for the signal forwarding and the crash sweep), half a second on a 2-core machine,
 * most of it the module loader's resolving, reading and compiling; one file starts in half that.
 * happy-media-cli ships this file (packages/cli); happy-media's own `bin` stays the unbundled one, since
 * the package an app installs has no room for a second copy of the library (docs/architecture.md, "What an
 * app installs"). The tests run the CLI from this file, as a user of happy-media-cli does.
 *
 * No minifying: a stack trace of the CLI stays readable. No `keepNames` either: it wraps functions in a
 * helper of the bundle, which the chunk worker's source text (a function's own text, run by `eval` in a
 * thread) does not have. An error's `name` is its class's name (`new.target.name`), so the bundle is
 * checked below for a class esbuild renamed to avoid a clash (`DiskError2`).
 *
 * Usage: `node scripts/bundle-cli.mjs OUT` (OUT relative to the current directory; `npm run build` writes
 * `dist/cli/happy-media.js`, happy-media-cli's `prepack` its own `dist/happy-media.js`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: node scripts/bundle-cli.mjs OUT\n');
  process.exit(2);
}
const entry = join(root, 'dist/src/cli/bin.js');
if (!existsSync(entry)) {
  process.stderr.write(
    `bundle-cli: ${entry} is missing: run \`npm run build\` at the repository's root first\n`,
  );
  process.exit(1);
}
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const peers = Object.keys(manifest.peerDependencies ?? {});
const result = await build({
  entryPoints: [entry],
  outfile: resolve(out),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
  // A peer and any of its subpaths (`@aws-sdk/client-s3`, `sharp`, `@ffmpeg-installer/ffmpeg/...`).
  external: peers.flatMap((name) => [name, `${name}/*`]),
  // tweetnacl (CommonJS) reaches node:crypto through `require`; an ES module has none of its own.
  banner: {
    js: "import { createRequire as createRequireForBundle } from 'node:module';\nconst require = createRequireForBundle(import.meta.url);",
  },
});
const text = readFileSync(resolve(out), 'utf8');
const classes = new Set([...text.matchAll(/\bclass ([A-Za-z_$][\w$]*)/g)].map((match) => match[1]));
const renamed = [...classes].filter((name) => /\d$/.test(name) && classes.has(name.replace(/\d+$/, '')));
if (renamed.length > 0) {
  process.stderr.write(
    `bundle-cli: classes renamed in the bundle (their errors' names would change): ${renamed.join(', ')}\n`,
  );
  process.exit(1);
}
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
const modules = Object.keys(result.metafile.inputs).length;
process.stdout.write(`bundle-cli: ${out}: ${modules} modules → ${bytes} bytes\n`);
