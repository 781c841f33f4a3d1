/**
 * Generated benchmark inputs (a 12 MP JPEG, 1080p H.264 clips), cached in `.tmp/bench-inputs` so a
 * second run does not pay for them. Generated with sharp and ffmpeg; a file appears under its final name
 * only when complete (temp + rename), so an interrupted run never leaves a half input in the cache.
 *
 * @module
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { SkipSuite } from './context.js';

const run = promisify(execFile);

/** ffmpeg/ffprobe executables (env `FFMPEG_PATH`/`FFPROBE_PATH`, else from PATH). */
export const FFMPEG = process.env.FFMPEG_PATH ?? 'ffmpeg';
/** See {@link FFMPEG}. */
export const FFPROBE = process.env.FFPROBE_PATH ?? 'ffprobe';

/** True when both ffmpeg and ffprobe start. */
export async function hasFfmpeg(): Promise<boolean> {
  try {
    await run(FFMPEG, ['-version'], { timeout: 10_000 });
    await run(FFPROBE, ['-version'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** Throws {@link SkipSuite} when ffmpeg is missing. */
export async function requireFfmpeg(): Promise<void> {
  if (!(await hasFfmpeg())) {
    throw new SkipSuite('ffmpeg/ffprobe not found (apt-get install ffmpeg, or set FFMPEG_PATH/FFPROBE_PATH)');
  }
}

async function cached(path: string, make: (tmp: string) => Promise<void>): Promise<string> {
  if (existsSync(path)) return path;
  const tmp = `${path}.partial-${process.pid}`;
  try {
    await make(tmp);
    await rename(tmp, path);
  } finally {
    await rm(tmp, { force: true });
  }
  return path;
}

/** A 4000×3000 (12 MP) JPEG of noisy gradients (photo-like entropy). */
export async function photo12mp(dir: string): Promise<string> {
  return cached(join(dir, 'photo-12mp.jpg'), async (tmp) => {
    const { default: sharp } = await import('sharp');
    const width = 4000;
    const height = 3000;
    await sharp({
      create: {
        width,
        height,
        channels: 3,
        background: { r: 90, g: 140, b: 200 },
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .blur(2)
      .jpeg({ quality: 88 })
      .toFile(`${tmp}.jpg`);
    await rename(`${tmp}.jpg`, tmp);
  });
}

/** libheif's decoder on the PATH (`heif-dec`, or `heif-convert` before libheif 1.17), if any. */
export function heifDecoderOnPath(): string | undefined {
  for (const name of ['heif-dec', 'heif-convert']) {
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

/** libheif's encoder (Debian: libheif-examples), which writes HEIC with or without a thumbnail item. */
export const HEIF_ENC = process.env.HEIF_ENC_PATH ?? 'heif-enc';

/** True when {@link HEIF_ENC} starts. */
export async function hasHeifEnc(): Promise<boolean> {
  try {
    await run(HEIF_ENC, ['--list-encoders'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * The 12 MP JPEG ({@link photo12mp}) as a HEIC of the same pixel size (quality 80), with a 320 px
 * thumbnail item as phones write one, or without. heif-enc takes ~20 s for each; cached.
 */
export async function heic12mp(dir: string, thumbnail: boolean): Promise<string> {
  const jpeg = await photo12mp(dir);
  const name = `photo-12mp-${thumbnail ? 'thumbnail' : 'no-thumbnail'}.heic`;
  return cached(join(dir, name), async (tmp) => {
    const out = `${tmp}.heic`;
    await run(HEIF_ENC, ['-q', '80', ...(thumbnail ? ['-t', '320'] : []), '-o', out, jpeg], {
      timeout: 300_000,
    });
    await rename(out, tmp);
  });
}

/**
 * Encodes `seconds` of ffmpeg's 1080p30 test pattern as H.264 MP4 (ultrafast, faststart) into `tmp`;
 * `quality` goes before the pixel format (e.g. `-qp 0` for lossless).
 */
async function testPattern1080p(
  tmp: string,
  seconds: number,
  quality: string[],
  timeout: number,
): Promise<void> {
  await run(
    FFMPEG,
    [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=1920x1080:rate=30',
      '-t',
      String(seconds),
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      ...quality,
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      tmp,
    ],
    { timeout },
  );
}

/** A 1080p H.264 MP4, 5 s at 30 fps (~10 MB): the probe input. */
export async function video1080p(dir: string): Promise<string> {
  return cached(join(dir, 'video-1080p-5s.mp4'), (tmp) => testPattern1080p(tmp, 5, [], 120_000));
}

/** A 1080p lossless H.264 MP4 of about 100 MB (24 s): the send input. */
export async function video100mb(dir: string): Promise<string> {
  return cached(join(dir, 'video-1080p-100mb.mp4'), (tmp) =>
    testPattern1080p(tmp, 24, ['-qp', '0'], 300_000),
  );
}
