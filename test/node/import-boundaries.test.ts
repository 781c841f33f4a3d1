/**
 * The CLI and its demo (src/cli) reach the library only through its public entries (src/index.ts and its
 * specialist subpaths, src/node/index.ts, src/web/index.ts), as any application does, and no library file
 * reaches back into src/cli; the benchmark
 * program only through the package's names (`happy-media`, `happy-media/<subpath>`, `happy-media/node`,
 * `happy-media/web`), so a renamed or removed export
 * is a type error in them, never a deep import that silently goes stale. The library itself reaches
 * neither the benchmarks nor a dev-only package.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Library modules a CLI file may import: the package's public entries (happy-media, its specialist
 * subpaths, happy-media/node, happy-media/web), the module of the root's `errors` namespace, and the one
 * loader of optional packages (tiny, so the CLI's top-level `--help` can load commander through it
 * without loading the Node entry).
 */
const ENTRIES = [
  'src/index.ts',
  'src/envelope.ts',
  'src/blob.ts',
  'src/happy.ts',
  'src/mappers.ts',
  'src/storage.ts',
  'src/errors.ts',
  'src/node/index.ts',
  'src/web/index.ts',
  'src/node/optional-dependency.ts',
];

/** The names the benchmark program imports the library by (package.json `exports`). */
const PACKAGE_ENTRIES = [
  'happy-media',
  'happy-media/envelope',
  'happy-media/blob',
  'happy-media/happy',
  'happy-media/mappers',
  'happy-media/storage',
  'happy-media/node',
  'happy-media/web',
  'happy-media/expo',
];

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/**
 * The code of a file without its comments and its double-quoted and template strings (import specifiers
 * are single-quoted here): TSDoc examples and error messages show imports of the app's own modules
 * (`import * as FileSystem from 'expo-file-system'`) that the file itself never makes.
 */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
    .replace(/`(?:[^`\\]|\\.)*`/g, '``');
}

/** Relative import specifiers of a file (static, dynamic, `import type`, `typeof import`). */
function relativeImports(text: string): string[] {
  const found = [...code(text).matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)];
  return found.map((match) => match[1]!);
}

/** Bare (package) specifiers of a file: `happy-media/node`, `sharp`, `@aws-sdk/client-s3/x`. */
function bareImports(text: string): string[] {
  const found = [...code(text).matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'([^'.][^']*)'/g)];
  return found.map((match) => match[1]!).filter((specifier) => !specifier.startsWith('node:'));
}

/** The npm package a bare specifier names (`@scope/name` or `name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Repo path of a relative `.js` specifier, as its `.ts` source. */
function target(file: string, specifier: string): string {
  return relative(ROOT, resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts');
}

describe('import boundaries', () => {
  it('src/cli (the CLI and its demo) imports the library only through its public entries', () => {
    const files = tsFiles('src/cli');
    expect(files.filter((file) => file.startsWith('src/cli/demo/')).length).toBeGreaterThan(3);
    const strays: string[] = [];
    for (const file of files) {
      for (const specifier of relativeImports(readFileSync(join(ROOT, file), 'utf8'))) {
        const path = target(file, specifier);
        if (path.startsWith('src/cli/') || ENTRIES.includes(path)) continue;
        strays.push(`${file} → ${specifier}`);
      }
    }
    expect(strays).toEqual([]);
  });

  it('no library file imports src/cli', () => {
    const files = tsFiles('src').filter((file) => !file.startsWith('src/cli/'));
    expect(files.length).toBeGreaterThan(100);
    const strays: string[] = [];
    for (const file of files) {
      for (const specifier of relativeImports(readFileSync(join(ROOT, file), 'utf8'))) {
        if (target(file, specifier).startsWith('src/cli/')) strays.push(`${file} → ${specifier}`);
      }
    }
    expect(strays).toEqual([]);
  });

  it('bench imports the library only by the package names, and nothing outside bench/ by path', () => {
    const files = tsFiles('bench').filter((file) => !file.startsWith('bench/dist/'));
    expect(files.length).toBeGreaterThan(3);
    const strays: string[] = [];
    let byName = 0;
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const specifier of relativeImports(text)) {
        if (!target(file, specifier).startsWith('bench/')) strays.push(`${file} → ${specifier}`);
      }
      for (const specifier of bareImports(text)) {
        if (packageOf(specifier) !== 'happy-media') continue;
        if (PACKAGE_ENTRIES.includes(specifier)) byName++;
        else strays.push(`${file} → ${specifier}`);
      }
    }
    expect(strays).toEqual([]);
    expect(byName).toBeGreaterThan(3);
  });

  it('src imports neither the benchmarks nor a dev-only package', () => {
    // The Node media stack is in devDependencies too (for this repository's tests), but it is a peer.
    const peers = new Set(Object.keys(manifest.peerDependencies ?? {}));
    const devOnly = new Set(Object.keys(manifest.devDependencies ?? {}).filter((name) => !peers.has(name)));
    expect(devOnly.has('esbuild')).toBe(true);
    const strays: string[] = [];
    for (const file of tsFiles('src')) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const specifier of relativeImports(text)) {
        if (!target(file, specifier).startsWith('src/')) strays.push(`${file} → ${specifier}`);
      }
      for (const specifier of bareImports(text)) {
        if (devOnly.has(packageOf(specifier))) strays.push(`${file} → ${specifier} (dev dependency)`);
      }
    }
    expect(strays).toEqual([]);
  });

  it('the boundary check sees a deep import', () => {
    const file = 'src/cli/commands/example.ts';
    const [specifier] = relativeImports("import { encryptFile } from '../../node/blob/files.js';");
    expect(target(file, specifier!)).toBe('src/node/blob/files.ts');
    expect(ENTRIES).not.toContain(target(file, specifier!));
  });

  it('the dependency check sees bare, scoped, deep and dynamic imports', () => {
    const text =
      "import a from 'esbuild';\nconst b = await import('@babel/core');\nimport 'sharp/lib/x';\nimport c from './own.js';";
    expect(bareImports(text).map(packageOf)).toEqual(['esbuild', '@babel/core', 'sharp']);
  });
});
