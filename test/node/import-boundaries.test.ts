/**
 * The CLI and the benchmarks reach the library only through its public entries (src/index.ts,
 * src/node/index.ts) and the one documented internal entry (src/node/internal.ts), so a renamed or
 * removed export is a type error in them, never a deep import that silently goes stale.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Library modules a CLI or bench file may import: the package's public entries (happy-media,
 * happy-media/node, happy-media/web) and the one internal entry.
 */
const ENTRIES = ['src/index.ts', 'src/node/index.ts', 'src/web/index.ts', 'src/node/internal.ts'];

/** Application code the CLI loads on demand by path (not library). */
const APPLICATION = ['src/node/demo/index.ts', 'bench/index.ts'];

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** Relative import specifiers of a file (static, dynamic, `import type`, `typeof import`). */
function relativeImports(text: string): string[] {
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)];
  return found.map((match) => match[1]!);
}

/** Repo path of a relative `.js` specifier, as its `.ts` source. */
function target(file: string, specifier: string): string {
  return relative(ROOT, resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts');
}

describe('import boundaries', () => {
  it.each([
    ['src/node/cli', 'src/node/cli/'],
    ['bench', 'bench/'],
  ])('%s imports the library only through its public entries or src/node/internal.ts', (dir, own) => {
    const files = tsFiles(dir);
    expect(files.length).toBeGreaterThan(3);
    const strays: string[] = [];
    for (const file of files) {
      for (const specifier of relativeImports(readFileSync(join(ROOT, file), 'utf8'))) {
        const path = target(file, specifier);
        if (path.startsWith(own) || ENTRIES.includes(path) || APPLICATION.includes(path)) continue;
        strays.push(`${file} → ${specifier}`);
      }
    }
    expect(strays).toEqual([]);
  });

  it('the boundary check sees a deep import', () => {
    const file = 'src/node/cli/commands/example.ts';
    const [specifier] = relativeImports("import { encryptFile } from '../../blob/files.js';");
    expect(target(file, specifier!)).toBe('src/node/blob/files.ts');
    expect(ENTRIES).not.toContain(target(file, specifier!));
  });
});
