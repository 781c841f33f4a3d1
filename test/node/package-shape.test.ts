/**
 * The two packages' manifests agree (docs/architecture.md, "What an app installs"): happy-media depends
 * only on small pure-JS packages and takes the Node media stack as optional peers; happy-media-cli
 * (packages/cli) depends on happy-media at the same version and pins the stack at the versions this
 * repository develops and tests with (its devDependencies), each within happy-media's peer range.
 * Sizes and binaries of real installs: scripts/measure-install.mjs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Manifest {
  name: string;
  version: string;
  bin?: Record<string, string>;
  files?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  devDependencies?: Record<string, string>;
}

const read = (path: string) =>
  JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')) as Manifest;
const library = read('package.json');
const cli = read('packages/cli/package.json');

/** The Node media stack: what happy-media-cli installs beside happy-media. */
const STACK = [
  '@aws-sdk/client-s3',
  '@ffmpeg-installer/ffmpeg',
  '@ffprobe-installer/ffprobe',
  'cli-progress',
  'commander',
  'file-type',
  'libheif-js',
  'sharp',
];

describe('package shape', () => {
  it('happy-media: the stack is optional peers only, never a dependency', () => {
    expect(Object.keys(library.peerDependencies ?? {}).sort()).toEqual(STACK);
    for (const name of STACK) {
      expect(library.peerDependenciesMeta?.[name]?.optional, name).toBe(true);
      expect(library.dependencies?.[name], name).toBeUndefined();
    }
    expect(library.optionalDependencies).toBeUndefined();
  });

  it('happy-media-cli: happy-media at the same version, the stack at the pins this repository tests', () => {
    expect(cli.name).toBe('happy-media-cli');
    expect(cli.version).toBe(library.version);
    expect(cli.bin).toEqual({ 'happy-media': 'bin.js' });
    const installs = { ...cli.dependencies, ...cli.optionalDependencies };
    expect(Object.keys(installs).sort()).toEqual([...STACK, 'happy-media'].sort());
    expect(installs['happy-media']).toBe(library.version);
    for (const name of STACK) {
      expect(installs[name], name).toBe(library.devDependencies?.[name]);
      // Peer ranges are the tested pin and what semver allows above it.
      expect(library.peerDependencies?.[name], name).toBe(`^${installs[name]}`);
    }
    // Per-platform binaries: absent where none exists, as before (and with --omit=optional).
    expect(Object.keys(cli.optionalDependencies ?? {}).sort()).toEqual([
      '@ffmpeg-installer/ffmpeg',
      '@ffprobe-installer/ffprobe',
    ]);
  });

  it('happy-media ships its build and README only: no source maps, sources or docs (an app needs none)', () => {
    expect(library.files).toEqual(['dist/src', '!dist/src/**/*.map', 'README.md']);
  });
});
