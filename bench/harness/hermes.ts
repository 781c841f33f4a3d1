/**
 * Running the universal entry under the Hermes VM as a React Native app does: bundled with esbuild,
 * lowered as Metro's Babel preset lowers what Hermes 0.12 lacks (classes, private fields, async
 * generators, for-await), run by the `hermes` binary of `hermes-engine-cli` (dev dependency) with only
 * the globals of bench/hermes/app-globals.ts. Used by test/hermes and the `hermes` bench suite.
 *
 * @module
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (this file runs from `bench/harness` or `dist/bench/harness`). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'src', 'index.ts'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package root not found');
    dir = up;
  }
  return dir;
}

/** Path of the Hermes VM for this platform, or undefined when hermes-engine-cli is not installed here. */
export function hermesBinary(): string | undefined {
  const folder = { linux: 'linux64-bin', darwin: 'osx-bin', win32: 'win64-bin' }[process.platform as string];
  if (folder === undefined || process.arch !== 'x64') return undefined;
  try {
    const pkg = createRequire(join(packageRoot(), 'package.json')).resolve('hermes-engine-cli/package.json');
    const bin = join(dirname(pkg), folder, process.platform === 'win32' ? 'hermes.exe' : 'hermes');
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Bundles `entry` (a TypeScript file) after the app globals into one script Hermes 0.12 parses.
 *
 * esbuild lowers syntax newer than ES2017 except what Hermes has natively (BigInt; async functions
 * become generators, as Metro does); Babel's class transform then removes `class`, which Hermes 0.12
 * cannot parse and esbuild cannot lower.
 */
export async function bundleForHermes(entry: string, outFile: string): Promise<void> {
  const esbuild = await import('esbuild');
  const babel = await import('@babel/core');
  const root = packageRoot();
  const built = await esbuild.build({
    stdin: {
      contents: `import ${JSON.stringify(join(root, 'bench', 'hermes', 'app-globals.ts'))};\nimport ${JSON.stringify(entry)};\n`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'browser',
    mainFields: ['react-native', 'browser', 'module', 'main'],
    conditions: ['react-native', 'browser', 'import', 'default'],
    format: 'iife',
    target: 'es2017',
    supported: { bigint: true, 'async-await': false },
    write: false,
    logLevel: 'silent',
  });
  const lowered = await babel.transformAsync(built.outputFiles[0]!.text, {
    babelrc: false,
    configFile: false,
    compact: true,
    sourceType: 'script',
    plugins: [(await import('@babel/plugin-transform-classes')).default],
  });
  if (!lowered?.code) throw new Error('Babel produced no output for the Hermes bundle');
  await writeFile(outFile, lowered.code);
}

/** Output of one Hermes run. */
export interface HermesRun {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** Runs `script` in the Hermes VM, compiled with `-O` as a release app's bytecode is (argument array, timeout, output limit). */
export function runHermes(binary: string, script: string, timeoutMs = 300_000): Promise<HermesRun> {
  return new Promise((resolve) => {
    execFile(
      binary,
      ['-w', '-O', script],
      { timeout: timeoutMs, maxBuffer: 8 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (((error as { code?: unknown }).code as number | null) ?? 1) : 0;
        resolve({
          stdout: String(stdout),
          stderr: String(stderr),
          code: typeof code === 'number' ? code : 1,
        });
      },
    );
  });
}
