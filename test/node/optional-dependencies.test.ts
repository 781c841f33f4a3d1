/**
 * The Node media stack is optional (optional peer dependencies of happy-media, see docs/architecture.md):
 * the built Node entry imports with every one of those packages missing, and a call that needs one
 * rejects with ERR_DEPENDENCY_MISSING naming it and how to install it; so does the bin without commander.
 * Run against dist/ in a child process whose module resolution hides the packages (a resolve hook that
 * answers as Node does for a package that is not installed). scripts/measure-install.mjs checks the same
 * on a real install of the packed tarball.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMissingPackage, missingDependency } from '../../src/node/optional-dependency.js';
import { CLI_BIN, PACKAGE_BIN, runNodeProgram } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/tmp.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const manifest = (await import('../../package.json', { with: { type: 'json' } })).default as {
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const PEERS = Object.keys(manifest.peerDependencies);

let tmp: { dir: string; cleanup: () => Promise<void> };
let hook: string;
beforeAll(async () => {
  tmp = await makeTempDir('happy-media-optional-');
  const resolveHook = join(tmp.dir, 'hide-peers.mjs');
  await writeFile(
    resolveHook,
    `const HIDDEN = new Set(${JSON.stringify(PEERS)});
export async function resolve(specifier, context, next) {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  if (HIDDEN.has(name)) {
    const error = new Error(\`Cannot find package '\${name}' imported from \${context.parentURL}\`);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}
`,
  );
  hook = join(tmp.dir, 'register.mjs');
  await writeFile(
    hook,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(resolveHook).href)});\n`,
  );
}, 60_000);
afterAll(async () => {
  await tmp.cleanup();
});

/** Runs `source` (an ES module) with the peers hidden; its last stdout line parsed as JSON. */
async function withPeersHidden(source: string): Promise<unknown> {
  const script = join(tmp.dir, `case-${Math.random().toString(36).slice(2)}.mjs`);
  await writeFile(script, source);
  const r = await runNodeProgram(script, [], { cwd: ROOT, nodeOptions: ['--import', hook] });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

const NODE_ENTRY = pathToFileURL(join(ROOT, 'dist/src/node/index.js')).href;

describe('the Node media stack is optional', () => {
  it('every package of the stack is an optional peer dependency', () => {
    expect(PEERS.length).toBeGreaterThan(0);
    for (const name of PEERS) expect(manifest.peerDependenciesMeta[name]?.optional, name).toBe(true);
  });

  it('happy-media/node imports with none of them installed', async () => {
    const result = await withPeersHidden(
      `const node = await import(${JSON.stringify(NODE_ENTRY)});\nconsole.log(JSON.stringify(Object.keys(node).length));\n`,
    );
    // The root's names and Node's own (test/node/public-exports.test.ts pins them).
    expect(result).toBeGreaterThan(70);
  });

  it('a call that needs one rejects with ERR_DEPENDENCY_MISSING naming it and how to install it', async () => {
    const png = join(tmp.dir, 'pixel.png');
    await writeFile(
      png,
      Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
        'base64',
      ),
    );
    const result = (await withPeersHidden(
      `const { probeMedia, S3BlobStore, errors: { MissingDependencyError } } = await import(${JSON.stringify(NODE_ENTRY)});
const outcome = async (run) => { try { await run(); return 'no error'; } catch (e) {
  return { typed: e instanceof MissingDependencyError, code: e.code, dependency: e.dependency, message: e.message }; } };
const probe = await outcome(() => probeMedia(${JSON.stringify(png)}));
const s3 = await outcome(() => new S3BlobStore({ bucket: 'media-test', endpoint: 'http://127.0.0.1:9', region: 'x' }).head('media/abc'));
console.log(JSON.stringify({ probe, s3 }));
`,
    )) as Record<string, { typed: boolean; code: string; dependency: string; message: string }>;
    expect(result.probe).toMatchObject({
      typed: true,
      code: 'ERR_DEPENDENCY_MISSING',
      dependency: 'file-type',
    });
    expect(result.probe!.message).toContain(
      `npm install "file-type@${manifest.peerDependencies['file-type']}"`,
    );
    expect(result.probe!.message).toContain('happy-media-cli');
    expect(result.s3).toMatchObject({
      typed: true,
      code: 'ERR_DEPENDENCY_MISSING',
      dependency: '@aws-sdk/client-s3',
    });
  });

  // The one-file CLI keeps every peer outside it, so it answers the same.
  it.each([
    ['happy-media', PACKAGE_BIN],
    ['one-file (happy-media-cli)', CLI_BIN],
  ])('the %s bin without commander: one ERR_DEPENDENCY_MISSING line, exit 1', async (_name, bin) => {
    const r = await runNodeProgram(bin, ['--help'], { cwd: ROOT, nodeOptions: ['--import', hook] });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toMatch(
      /^happy-media: ERR_DEPENDENCY_MISSING: the happy-media command line needs the package commander, which is not installed: .*happy-media-cli/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('isMissingPackage / missingDependency', () => {
  const notFound = (name: string) =>
    Object.assign(new Error(`Cannot find package '${name}' imported from /app/x.js`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });

  it('matches the package itself and its subpaths, not a package of a longer name or another error', () => {
    expect(isMissingPackage(notFound('sharp'), 'sharp')).toBe(true);
    expect(isMissingPackage(notFound('@aws-sdk/client-s3'), '@aws-sdk/client-s3')).toBe(true);
    expect(
      isMissingPackage(
        Object.assign(new Error("Cannot find module '@ffprobe-installer/ffprobe/package.json'"), {
          code: 'MODULE_NOT_FOUND',
        }),
        '@ffprobe-installer/ffprobe',
      ),
    ).toBe(true);
    // A package the optional one needs in turn is its own install's problem, reported as it is.
    expect(isMissingPackage(notFound('sharp-extra'), 'sharp')).toBe(false);
    expect(isMissingPackage(notFound('detect-libc'), 'sharp')).toBe(false);
    expect(isMissingPackage(new Error("Cannot find package 'sharp'"), 'sharp')).toBe(false);
    expect(isMissingPackage(undefined, 'sharp')).toBe(false);
  });

  it('names the declared peer range; a name we do not declare gets the bare name', () => {
    const error = missingDependency('sharp', 'reading images');
    expect(error.code).toBe('ERR_DEPENDENCY_MISSING');
    expect(error.dependency).toBe('sharp');
    expect(error.message).toBe(
      `reading images needs the package sharp, which is not installed: add it beside happy-media (npm install "sharp@${manifest.peerDependencies.sharp}"), or install happy-media-cli, which brings the whole Node media stack`,
    );
    expect(missingDependency('left-pad', 'padding').message).toContain('(npm install "left-pad")');
  });
});
