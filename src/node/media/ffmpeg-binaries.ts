/**
 * Which ffmpeg and ffprobe binaries run: the one place that decides (and which system HEIF decoder,
 * {@link heifDecoderBinary}: option → `HEIF_DEC_PATH` → the `PATH`, nothing bundled).
 *
 * Order: an explicit option (`ffmpegPath`/`ffprobePath`) → the `FFMPEG_PATH`/`FFPROBE_PATH` environment
 * variable → a system binary on the `PATH` → the binary bundled through `@ffmpeg-installer/ffmpeg` and
 * `@ffprobe-installer/ffprobe` (static builds, one package per platform; optional peers of happy-media,
 * dependencies of happy-media-cli), so installing the CLI alone gives video support where the system has
 * no ffmpeg. They are resolved when first needed, never at import.
 *
 * **Why the run bit is checked here.** Those platform packages set the executable bit in an install
 * script (`chmod u+x`), and npm blocks or skips dependencies' install scripts unless the project approves
 * them (this project denies them in `allowScripts`). The ffprobe package ships its binary as 0644, so it
 * arrives not executable. Before using a bundled binary we check it: if it cannot be executed and we own
 * it, we add the owner's run bit (what the script would have done); otherwise we copy it into a private
 * cache directory (0700, binary 0700) under `$XDG_CACHE_HOME/happy-media` (default `~/.cache`).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { DiskError } from '../../core/errors.js';
import { isExecutableFile } from '../fs/executable-file.js';
import { PRIVATE_DIR_MODE } from '../fs/private-dir.js';

/** Which tool, for messages. */
export type ToolName = 'ffprobe' | 'ffmpeg';

/**
 * Where the binary in use comes from: the `ffmpegPath`/`ffprobePath` option, the `FFMPEG_PATH`/
 * `FFPROBE_PATH` environment variable, the `PATH`, the bundled npm package, or nowhere (`missing`: the
 * bare tool name is tried and fails with `ERR_FFMPEG_MISSING`).
 */
export type BinarySource = 'option' | 'env' | 'path' | 'bundled' | 'missing';

/** A located binary. */
export interface LocatedBinary {
  /** What to spawn (absolute, except for `option`/`env` values given relative, and `missing`). */
  path: string;
  /** Where it comes from. */
  source: BinarySource;
}

/** The environment variable naming each tool's binary. */
export const BINARY_ENV: Readonly<Record<ToolName, string>> = {
  ffmpeg: 'FFMPEG_PATH',
  ffprobe: 'FFPROBE_PATH',
};

/** The npm package that bundles each tool (an optional peer dependency of happy-media; happy-media-cli brings it). */
export const BUNDLED_PACKAGE: Readonly<Record<ToolName, string>> = {
  ffmpeg: '@ffmpeg-installer/ffmpeg',
  ffprobe: '@ffprobe-installer/ffprobe',
};

const executableName = (name: string) => (process.platform === 'win32' ? `${name}.exe` : name);

/** The first executable `name` (`.exe` added on Windows) in an absolute `PATH` directory (relative entries are ignored). */
export function findOnPath(name: string, pathVariable = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVariable.split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, process.platform === 'win32' ? `${name}.exe` : name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** `$XDG_CACHE_HOME/happy-media/bin` (default `~/.cache`), created 0700 and checked to be ours and private. */
function privateCacheDir(): string {
  const base =
    process.env.XDG_CACHE_HOME && isAbsolute(process.env.XDG_CACHE_HOME)
      ? process.env.XDG_CACHE_HOME
      : join(homedir(), '.cache');
  const dir = join(base, 'happy-media', 'bin');
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  for (const d of [dirname(dir), dir]) {
    const stat = lstatSync(d);
    if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid())) {
      throw new DiskError(`${d} is not a directory owned by the current user`);
    }
    if ((stat.mode & 0o077) !== 0) chmodSync(d, PRIVATE_DIR_MODE);
  }
  return dir;
}

/** A private, executable copy of `source` in the cache (reused while its size matches). */
function privateCopy(source: string, tool: ToolName, cacheKey: string): string {
  const dir = join(privateCacheDir(), cacheKey);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
  const target = join(dir, executableName(tool));
  try {
    const stat = lstatSync(target);
    if (stat.isFile() && stat.size === statSync(source).size && isExecutableFile(target)) return target;
  } catch {
    // Not there yet.
  }
  // Copy under a unique name and rename: parallel processes never run a half-written binary.
  const partial = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    copyFileSync(source, partial);
    chmodSync(partial, PRIVATE_DIR_MODE);
    renameSync(partial, target);
  } finally {
    rmSync(partial, { force: true });
  }
  return target;
}

/**
 * Makes a bundled binary runnable and returns what to spawn: `path` as is when it already is; `path`
 * with the owner's run bit added when we own it (what the package's skipped install script would have
 * done); else a private copy `<cache>/<cacheKey>/<tool>` (directory and file 0700).
 *
 * @throws when the file is missing or the copy cannot be made (errno errors from node:fs), or
 *   {@link DiskError} `ERR_DISK` when the cache directory is not a private directory of this user.
 */
export function ensureRunnable(path: string, tool: ToolName, cacheKey: string): string {
  if (isExecutableFile(path)) return path;
  const stat = statSync(path);
  if (process.getuid && stat.uid === process.getuid()) {
    try {
      chmodSync(path, (stat.mode & 0o7777) | 0o100);
      if (isExecutableFile(path)) return path;
    } catch {
      // A read-only install (e.g. a mounted node_modules): fall through to the private copy.
    }
  }
  return privateCopy(path, tool, cacheKey);
}

const bundledCache = new Map<ToolName, { path?: string; problem?: string }>();

/**
 * The bundled binary for this platform, made runnable; `problem` says why there is none (package not
 * installed: an unsupported platform or `--omit=optional`; or it could not be made runnable).
 * Memoised per process.
 */
export function bundledBinary(tool: ToolName): { path?: string; problem?: string } {
  const cached = bundledCache.get(tool);
  if (cached) return cached;
  const target = `${process.platform}-${process.arch}`;
  const platformPackage = `${dirname(BUNDLED_PACKAGE[tool])}/${target}`;
  let result: { path?: string; problem?: string };
  try {
    const require = createRequire(import.meta.url);
    // Resolved from the meta package, so it is found whether npm hoisted the platform package or not.
    const meta = require.resolve(`${BUNDLED_PACKAGE[tool]}/package.json`);
    const manifestPath = createRequire(meta).resolve(`${platformPackage}/package.json`);
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version?: string };
    const binary = join(dirname(manifestPath), executableName(tool));
    const cacheKey = `${platformPackage.replace('/', '+')}@${manifest.version ?? 'unknown'}`;
    result = { path: ensureRunnable(binary, tool, cacheKey) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    result = {
      problem:
        code === 'MODULE_NOT_FOUND'
          ? `${platformPackage} is not installed (${BUNDLED_PACKAGE[tool]} is an optional peer of happy-media that happy-media-cli brings; none for this platform, or installed with --omit=optional)`
          : `the bundled ${tool} (${platformPackage}) could not be made executable: ${(error as Error).message}`,
    };
  }
  bundledCache.set(tool, result);
  return result;
}

/**
 * Decides which binary to run for `tool`: `explicit` (an option) → the environment variable → the
 * `PATH` → the bundled package. Never throws; an unusable choice fails when spawned
 * (`ERR_FFMPEG_MISSING`).
 *
 * @example
 * ```ts
 * locateBinary('ffprobe'); // { path: '/usr/bin/ffprobe', source: 'path' }
 * ```
 */
export function locateBinary(tool: ToolName, explicit?: string): LocatedBinary {
  if (explicit !== undefined) return { path: explicit, source: 'option' };
  const fromEnv = process.env[BINARY_ENV[tool]];
  if (fromEnv) return { path: fromEnv, source: 'env' };
  const onPath = findOnPath(tool);
  if (onPath) return { path: onPath, source: 'path' };
  const bundled = bundledBinary(tool).path;
  if (bundled) return { path: bundled, source: 'bundled' };
  return { path: tool, source: 'missing' };
}

/** The environment variable naming the system HEIF decoder. */
export const HEIF_DEC_ENV = 'HEIF_DEC_PATH';

/**
 * The system HEIF decoder to use, or undefined for none: `explicit` (a path, or `false` for none) →
 * `HEIF_DEC_PATH` → `heif-dec` or `heif-convert` on the `PATH`.
 *
 * @example
 * ```ts
 * heifDecoderBinary(); // '/usr/bin/heif-convert' on Debian 12 with libheif-examples
 * ```
 */
export function heifDecoderBinary(explicit?: string | false): string | undefined {
  if (explicit === false) return undefined;
  if (explicit !== undefined) return explicit;
  const fromEnv = process.env[HEIF_DEC_ENV];
  if (fromEnv) return fromEnv;
  return findOnPath('heif-dec') ?? findOnPath('heif-convert');
}
