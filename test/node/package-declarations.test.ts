/**
 * The declarations the package ships (scripts/prune-declarations.mjs keeps only those an entry reaches):
 * a consumer importing every `exports` entry by the package's name type-checks against dist/ with
 * declaration checking on (skipLibCheck false), and loads every declaration file dist/ holds, no more.
 * Runs on the build `npm test` makes first (pretest).
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
};

/** The entries with declarations, as a consumer names them: `happy-media`, `happy-media/node`, … */
const entries = Object.entries(manifest.exports)
  .filter(([, target]) => typeof target === 'object' && target !== null && 'types' in target)
  .map(([path]) => (path === '.' ? manifest.name : `${manifest.name}/${path.slice(2)}`));

function declarationFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.d.ts'))
    .map((name) => join(dir, name));
}

// Inside the package (under its git-ignored .tmp), so the package's own name resolves through `exports`.
mkdirSync(join(root, '.tmp'), { recursive: true });
const work = mkdtempSync(join(root, '.tmp', 'package-declarations-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('shipped declarations', () => {
  it('a consumer of every entry type-checks against dist/, which holds exactly the declarations it loads', async () => {
    const dist = join(root, 'dist', 'src');
    expect(existsSync(join(dist, 'index.d.ts')), 'dist/ is built (npm run build)').toBe(true);
    expect(entries).toContain(manifest.name);
    writeFileSync(
      join(work, 'consumer.ts'),
      `${entries.map((entry, index) => `import * as entry${index} from '${entry}';`).join('\n')}\n` +
        `export const entries = [${entries.map((_, index) => `entry${index}`).join(', ')}];\n`,
    );
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023', 'DOM', 'DOM.Iterable'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const project = ['-p', join(work, 'tsconfig.json')];
    const checked = await run(process.execPath, [tsc, ...project], { cwd: work, timeout: 240_000 }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(checked).toBe('');
    const { stdout } = await run(process.execPath, [tsc, ...project, '--listFilesOnly'], {
      cwd: work,
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const loaded = stdout
      .split('\n')
      .filter((line) => line.startsWith(dist))
      .map((line) => relative(dist, line))
      .sort();
    expect(loaded).toEqual(
      declarationFiles(dist)
        .map((file) => relative(dist, file))
        .sort(),
    );
  }, 300_000);
});
