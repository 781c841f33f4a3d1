/**
 * The generated media samples (scripts/make-samples.mjs), made on first use; safe from parallel test
 * files (the script builds in a temp directory and renames it into place).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../../../', import.meta.url));
/** Where the samples are. */
export const SAMPLES_DIR = join(root, 'samples', 'generated');

let ready: Promise<string> | undefined;

/** Generates the samples if needed and returns their directory. */
export function samplesDir(): Promise<string> {
  ready ??= promisify(execFile)(process.execPath, [join(root, 'scripts', 'make-samples.mjs'), SAMPLES_DIR], {
    timeout: 120_000,
  }).then(() => SAMPLES_DIR);
  return ready;
}

/** Path of one sample (call after {@link samplesDir}). */
export function sample(name: string): string {
  return join(SAMPLES_DIR, name);
}

/** Names of the child processes of this process that are ffmpeg or ffprobe (should be none when idle). */
export async function ffmpegChildren(): Promise<string[]> {
  try {
    const { stdout } = await promisify(execFile)('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)]);
    return stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /ffmpeg|ffprobe|sleep|fake-/.test(l));
  } catch (error) {
    // ps exits 1 when there is no child at all.
    if ((error as { code?: number }).code === 1) return [];
    throw error;
  }
}
