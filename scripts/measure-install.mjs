#!/usr/bin/env node
/**
 * What each kind of user installs, measured: packs `happy-media` (this repository) and `happy-media-cli`
 * (packages/cli) with `npm pack`, installs them into empty projects the way each user would, with npm
 * fetching everything else from the registry, and reports for each install the size of node_modules
 * (the sum of its files' sizes), the native binaries in it (`.node` addons, ELF / Mach-O / PE
 * executables), the packages with install scripts and npm's install-script warnings.
 *
 * - app: `npm install happy-media` (the tarball) in an empty project. Must stay within the goal of
 *   docs/architecture.md: at most 10 MB, no native binary, no install-script warning; and its universal
 *   and web entries import, while the Node media stack answers ERR_DEPENDENCY_MISSING naming the package.
 * - cli: `npm install happy-media-cli` (with the happy-media tarball it depends on). Must run
 *   `happy-media demo` to the end with the bundled ffmpeg/ffprobe, on a PATH without any other.
 *
 * npm lists a tarball's own `prepare` script as an install script because a tarball is a file source;
 * it never runs or lists `prepare` for a package from the registry (arborist's install-scripts.js), so
 * those lines are reported apart and do not count against the goal.
 *
 * Usage: `node scripts/measure-install.mjs [--json FILE] [--keep]` (default report
 * `.tmp/install/report.json`); exit 1 when a goal is missed. Run by .ci/run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The app install's goal (docs/architecture.md): at most 10 MB of files (10,000,000 bytes, the stricter
 * reading of "10 MB"), no native binary, no install-script warning.
 */
const APP_GOAL = { maxBytes: 10_000_000, nativeBinaries: 0, installScriptWarnings: 0 };

const { values: args } = parseArgs({
  options: { json: { type: 'string' }, keep: { type: 'boolean' } },
  strict: true,
});

/** npm's environment without what `npm run` adds (npm_config_*, npm_package_*), so each install is a user's. */
function userEnv(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

function run(command, argv, options = {}) {
  const result = spawnSync(command, argv, {
    encoding: 'utf8',
    env: userEnv(options.env),
    ...options,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/** `npm pack` of `dir` into `dest`; the tarball's path. */
function pack(dir, dest) {
  const out = execFileSync('npm', ['pack', dir, '--json', '--pack-destination', dest], {
    cwd: ROOT,
    encoding: 'utf8',
    env: userEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // `prepare` (the build) prints before the JSON.
  const [info] = JSON.parse(out.slice(out.indexOf('[')));
  return join(dest, info.filename);
}

const MAGIC = [
  ['ELF', (b) => b[0] === 0x7f && b[1] === 0x45 && b[2] === 0x4c && b[3] === 0x46],
  ['Mach-O', (b) => [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(b.readUInt32BE(0))],
];

/** A native binary's kind by its first bytes or name, else undefined. */
function nativeKind(path, size) {
  if (path.endsWith('.node')) return 'node addon';
  if (/\.(exe|dll)$/i.test(path)) return 'PE';
  if (size < 4) return undefined;
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(4);
    readSync(fd, head, 0, 4, 0);
    return MAGIC.find(([, test]) => test(head))?.[0];
  } finally {
    closeSync(fd);
  }
}

/** Walks node_modules (symlinks not followed): bytes, files, native binaries, packages with install scripts. */
function inspect(nodeModules) {
  const found = { bytes: 0, files: 0, packages: 0, nativeBinaries: [], installScripts: [] };
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(path);
      } else if (entry.isFile()) {
        const { size } = lstatSync(path);
        found.bytes += size;
        found.files++;
        const kind = nativeKind(path, size);
        if (kind) found.nativeBinaries.push({ path: relative(nodeModules, path), kind, bytes: size });
        if (entry.name === 'package.json' && basenameIsPackageRoot(dir, nodeModules)) {
          found.packages++;
          const manifest = JSON.parse(readFileSync(path, 'utf8'));
          const scripts = ['preinstall', 'install', 'postinstall'].filter((s) => manifest.scripts?.[s]);
          if (scripts.length > 0) {
            found.installScripts.push(
              `${manifest.name}@${manifest.version} (${scripts.map((s) => `${s}: ${manifest.scripts[s]}`).join('; ')})`,
            );
          }
        }
      }
    }
  };
  walk(nodeModules);
  return found;
}

/** True when `dir` is a package's own folder (node_modules/x or node_modules/@s/x), not a folder inside one. */
function basenameIsPackageRoot(dir, nodeModules) {
  const parts = relative(nodeModules, dir).split(/[\\/]/);
  const i = parts.lastIndexOf('node_modules');
  const rest = i < 0 ? parts : parts.slice(i + 1);
  return rest.length === 1
    ? !rest[0].startsWith('@') && rest[0] !== '.bin'
    : rest.length === 2 && rest[0].startsWith('@');
}

/** npm's install-script warnings, with the lines about our own tarballs' `prepare` apart. */
function installScriptWarnings(output) {
  const lines = output.split('\n').filter((line) => /install-scripts|allowScripts/.test(line));
  const listed = lines
    .map((line) => line.replace(/^npm warn install-scripts\s*/, '').trim())
    .filter((l) => /@\d/.test(l));
  const ownPrepare = listed.filter((l) => /^happy-media(-cli)?@[^ ]+ \(prepare: [^;]*\)$/.test(l));
  return { lines, listed: listed.filter((l) => !ownPrepare.includes(l)), ownPrepare };
}

/** Installs `specs` into a new empty project `dir` and inspects it. */
function install(dir, specs) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: `measure-${dir.split('/').pop()}`, version: '1.0.0', private: true }, null, 2)}\n`,
  );
  const started = Date.now();
  const result = run('npm', ['install', '--no-audit', '--no-fund', ...specs], { cwd: dir });
  const seconds = (Date.now() - started) / 1000;
  if (result.code !== 0) throw new Error(`npm install ${specs.join(' ')} failed:\n${result.output}`);
  return {
    seconds,
    npmOutput: result.output,
    warnings: installScriptWarnings(result.output),
    ...inspect(join(dir, 'node_modules')),
    diskBytes: diskUsage(join(dir, 'node_modules')),
  };
}

/** A PATH holding only `node` (no system ffmpeg/ffprobe), as a directory of one symlink. */
function nodeOnlyPath(work) {
  const bin = join(work, 'node-only-bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  return bin;
}

/** A 1×1 PNG, to ask the Node entry to probe an image. */
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The app's checks: the light entries import; the Node stack says what to install. */
function appChecks(dir) {
  writeFileSync(join(dir, 'pixel.png'), Buffer.from(PNG_1X1, 'base64'));
  const script = `
const universal = await import('happy-media');
const web = await import('happy-media/web');
const node = await import('happy-media/node');
let probe;
try { await node.probeMedia('pixel.png'); probe = 'no error'; } catch (e) { probe = e.code + ' ' + (e.dependency ?? '') + ': ' + e.message; }
console.log(JSON.stringify({ universal: Object.keys(universal).length, web: Object.keys(web).length, probe }));`;
  const imports = run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
  const bin = run(process.execPath, [join(dir, 'node_modules', '.bin', 'happy-media'), '--help'], {
    cwd: dir,
  });
  const parsed = imports.code === 0 ? JSON.parse(imports.output.trim().split('\n').pop()) : undefined;
  return [
    {
      check: 'imports happy-media and happy-media/web',
      ok: parsed !== undefined && parsed.universal > 0 && parsed.web > 0,
      detail: parsed ? `${parsed.universal} and ${parsed.web} exports` : imports.output.trim(),
    },
    {
      check: 'probeMedia without the media stack: ERR_DEPENDENCY_MISSING naming the package',
      ok: /^ERR_DEPENDENCY_MISSING \S+: .*npm install/.test(parsed?.probe ?? ''),
      detail: parsed?.probe ?? '',
    },
    {
      check: 'the happy-media bin without commander: ERR_DEPENDENCY_MISSING, exit 1',
      ok: bin.code === 1 && /ERR_DEPENDENCY_MISSING: .*commander/.test(bin.output),
      detail: bin.output.trim().split('\n')[0],
    },
  ];
}

/** The CLI user's checks: the demo runs to the end on the bundled ffmpeg/ffprobe. */
function cliChecks(dir, work) {
  // Only what a new user has: HOME (npm's cache, the bundled binaries' private copies) and a PATH with node.
  const env = { PATH: nodeOnlyPath(work), HOME: process.env.HOME ?? work, LANG: 'C.UTF-8' };
  const clean = (argv) =>
    spawnSync(process.execPath, argv, { cwd: dir, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const version = clean([join(dir, 'node_modules', 'happy-media-cli', 'bin.js'), 'probe', '--version']);
  const demo = clean([join(dir, 'node_modules', '.bin', 'happy-media'), 'demo']);
  const demoOut = `${demo.stdout}${demo.stderr}`;
  return [
    {
      check: "happy-media-cli's bin: probe --version uses the bundled ffprobe",
      ok: version.status === 0 && /bundled/.test(version.stdout),
      detail: version.stdout.trim().split('\n').join(' | ') || version.stderr.trim(),
    },
    {
      check: 'happy-media demo on a PATH without ffmpeg: every check held, video included, bundled ffmpeg',
      ok: demo.status === 0 && /^ +bundled +\//m.test(demoOut) && !/skipped/i.test(demoOut),
      detail: demoOut.trim().split('\n').slice(-1)[0] ?? '',
    },
  ];
}

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
/** Decimal megabytes, the unit of the app install's goal. */
const megabytes = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;

/** `du -sk` of `dir` in bytes (blocks on disk, what `du -sh` shows), or undefined where du is missing. */
function diskUsage(dir) {
  const r = spawnSync('du', ['-sk', dir], { encoding: 'utf8' });
  const kib = r.status === 0 ? Number.parseInt(r.stdout, 10) : Number.NaN;
  return Number.isFinite(kib) ? kib * 1024 : undefined;
}

function summary(name, measured, checks) {
  const lines = [
    `${name}: node_modules ${megabytes(measured.bytes)} = ${mb(measured.bytes)} of files (${measured.diskBytes === undefined ? '' : `${mb(measured.diskBytes)} on disk, `}${measured.files} files, ${measured.packages} packages; install ${measured.seconds.toFixed(0)} s)`,
    `  native binaries: ${measured.nativeBinaries.length === 0 ? 'none' : measured.nativeBinaries.map((b) => `${b.path} (${b.kind}, ${mb(b.bytes)})`).join(', ')}`,
    `  packages with install scripts: ${measured.installScripts.length === 0 ? 'none' : measured.installScripts.join(', ')}`,
    `  npm install-script warnings: ${measured.warnings.listed.length === 0 ? 'none' : measured.warnings.listed.join(', ')}${measured.warnings.ownPrepare.length > 0 ? ` (apart: ${measured.warnings.ownPrepare.join(', ')}, listed only for a tarball)` : ''}`,
  ];
  for (const c of checks) lines.push(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.check}: ${c.detail}`);
  return lines.join('\n');
}

const work = mkdtempSync(join(tmpdir(), 'happy-media-install-'));
let failed = false;
try {
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const lib = pack('.', tarballs);
  const cli = pack('./packages/cli', tarballs);

  const app = install(join(work, 'app'), [lib]);
  const appResults = appChecks(join(work, 'app'));
  const goal = [
    {
      check: `node_modules at most ${megabytes(APP_GOAL.maxBytes)}`,
      ok: app.bytes <= APP_GOAL.maxBytes,
      detail: `${megabytes(app.bytes)} (${mb(app.bytes)})`,
    },
    {
      check: 'no native binary',
      ok: app.nativeBinaries.length === APP_GOAL.nativeBinaries,
      detail: `${app.nativeBinaries.length}`,
    },
    {
      check: 'no install-script warning',
      ok: app.warnings.listed.length === APP_GOAL.installScriptWarnings,
      detail: `${app.warnings.listed.length}`,
    },
  ];
  const cliUser = install(join(work, 'cli'), [lib, cli]);
  const cliResults = cliChecks(join(work, 'cli'), work);

  const appAll = [...goal, ...appResults];
  process.stdout.write(
    `${summary('app (npm install happy-media)', app, appAll)}\n\n${summary('CLI user (npm install happy-media-cli)', cliUser, cliResults)}\n`,
  );
  failed = [...appAll, ...cliResults].some((c) => !c.ok);

  const report = {
    schema: 'happy-media-install/1',
    node: process.version,
    npm: run('npm', ['--version']).output.trim(),
    platform: `${process.platform}-${process.arch}`,
    goal: APP_GOAL,
    installs: {
      app: { specs: ['happy-media'], ...app, npmOutput: undefined, checks: appAll },
      cli: { specs: ['happy-media-cli'], ...cliUser, npmOutput: undefined, checks: cliResults },
    },
  };
  const jsonPath = resolve(args.json ?? join(ROOT, '.tmp', 'install', 'report.json'));
  mkdirSync(dirname(jsonPath), { recursive: true });
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(
    `\nJSON: ${jsonPath}\n${failed ? 'install measurement: FAILED' : 'install measurement: every goal held'}\n`,
  );
} finally {
  if (args.keep) process.stdout.write(`kept: ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
