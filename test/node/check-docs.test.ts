/**
 * The docs check (scripts/check-docs.mjs): the repository passes it, and each rule catches the drift it
 * is for, on a small made-up repository.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations.
import { checkDocs } from '../../scripts/check-docs.mjs';
import { makeTempDir } from '../helpers/tmp.js';

const check = checkDocs as (root?: string) => string[];

let root: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir: root, cleanup } = await makeTempDir('happy-media-check-docs-'));
});
afterAll(() => cleanup());

/** Writes a made-up repo: package.json plus the given files. */
function repo(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  const all: Record<string, string> = {
    'package.json': JSON.stringify({
      dependencies: { sharp: '1.0.0', zod: '4.0.0' },
      devDependencies: { vitest: '4.0.0' },
      scripts: { build: 'tsc', test: 'vitest run' },
    }),
    'docs/architecture.md':
      '| entry | folder | may import |\n|---|---|---|\n| `x` | `src/` | zod, `node:*`, sharp (images) |\n',
    'src/a.ts': 'export const a = 1;\n',
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('check-docs', () => {
  it('finds nothing wrong in this repository', () => {
    expect(check()).toEqual([]);
  });

  it('passes a made-up repo whose docs agree with it', () => {
    const dir = repo('ok', { 'README.md': 'Run `npm run build`; see [a](src/a.ts) and `src/a.ts`.\n' });
    expect(check(dir)).toEqual([]);
  });

  it('catches a dependency list that names a missing package or omits a real one', () => {
    const dir = repo('deps', {
      'docs/architecture.md':
        '| entry | folder | may import |\n|---|---|---|\n| `x` | `src/` | zod, fluent-ffmpeg |\n',
      'docs/media.md': 'fluent-ffmpeg stays in package.json, unused.\nsharp is not a dependency.\n',
    });
    expect(check(dir)).toEqual([
      'docs/media.md:1: says fluent-ffmpeg is in package.json, but it is not',
      'docs/media.md:2: says sharp is not a dependency, but package.json lists it',
      'docs/architecture.md: the entry table lists fluent-ffmpeg, which is not a dependency',
      'docs/architecture.md: the entry table omits the dependency sharp',
    ]);
  });

  it('accepts a cited folder that .gitignore marks as generated, not a missing source folder', () => {
    const dir = repo('generated', {
      '.gitignore': 'node_modules/\nsamples/generated/\n',
      'README.md': 'Made by the script: `samples/generated/photo.jpg`; not made: `samples/kept/photo.jpg`.\n',
    });
    expect(check(dir)).toEqual(['README.md:1: cites samples/kept/photo.jpg, which does not exist']);
  });

  it('catches `npm run X` for a script package.json does not have', () => {
    const dir = repo('scripts', { 'README.md': 'npm run build && npm run typecheck\n' });
    expect(check(dir)).toEqual(['README.md:1: `npm run typecheck` but package.json has no such script']);
  });

  it('catches cited repo files that do not exist, and bare NAME.md citations', () => {
    const dir = repo('files', {
      'README.md': 'See [gone](docs/gone.md), `src/b.ts`, and MEASURED.md.\n',
      'src/c.ts': '/** As measured (MEASURED.md). */\nexport const c = 1;\n',
    });
    expect(check(dir)).toEqual([
      'README.md:1: link to docs/gone.md, which does not exist',
      'README.md:1: cites src/b.ts, which does not exist',
      'README.md:1: cites MEASURED.md, which is not in the repo (cite ../shared/MEASURED.md if it is the machine notes)',
      'src/c.ts:1: cites MEASURED.md, which is not in the repo (cite ../shared/MEASURED.md if it is the machine notes)',
    ]);
  });
});
