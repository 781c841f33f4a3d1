/**
 * The demo's sample media, made on the spot so the demo needs nothing but the package (and ffmpeg for
 * the video): a photo (sharp), a phone-style video recorded sideways (H.264 with a 90° display matrix,
 * as phones write it), and a small PDF.
 *
 * @module
 */
import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { minimalPdf } from './pdf.js';

const execFileAsync = promisify(execFile);

/** Width and height of the demo photo, and of the video as encoded (before rotation). */
export const DEMO_PHOTO_SIZE = { width: 1200, height: 900 } as const;
/** The video as stored: landscape pixels with a 90° display matrix, so it displays as 360×640 (portrait). */
export const DEMO_VIDEO_SIZE = { width: 640, height: 360, durationMs: 2000, rotation: 90 } as const;

/** Paths of the generated samples. */
export interface DemoSamples {
  /** `photo.jpg`. */
  photo: string;
  /** `phone-video.mp4`, absent when ffmpeg is missing. */
  video?: string;
  /** `crash-report.pdf`. */
  pdf: string;
}

/** A photo-like JPEG: a gradient sky, a sun and a label, so its thumbhash is not flat. */
async function makePhoto(path: string): Promise<void> {
  const { width, height } = DEMO_PHOTO_SIZE;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#2b6cb0"/><stop offset="0.7" stop-color="#f6ad55"/><stop offset="1" stop-color="#276749"/>
  </linearGradient></defs>
  <rect width="100%" height="100%" fill="url(#sky)"/>
  <circle cx="${width * 0.72}" cy="${height * 0.35}" r="${height * 0.12}" fill="#fefcbf"/>
  <text x="40" y="${height - 40}" font-family="sans-serif" font-size="48" fill="#fff">happy-media demo</text>
</svg>`;
  await sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toFile(path);
}

/** A 2 s H.264 clip, then remuxed with `rotate=90` (ffmpeg 5.1 writes it as the display matrix). */
async function makeRotatedVideo(path: string, ffmpegPath: string, scratch: string): Promise<void> {
  const { width, height, durationMs, rotation } = DEMO_VIDEO_SIZE;
  const raw = join(scratch, 'landscape.mp4');
  const common = ['-hide_banner', '-v', 'error', '-y', '-nostdin'];
  await execFileAsync(
    ffmpegPath,
    [
      ...common,
      '-f',
      'lavfi',
      '-i',
      `testsrc2=size=${width}x${height}:rate=25`,
      '-t',
      String(durationMs / 1000),
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      '-f',
      'mp4',
      raw,
    ],
    { timeout: 60_000 },
  );
  try {
    await execFileAsync(
      ffmpegPath,
      [
        ...common,
        '-i',
        raw,
        '-c',
        'copy',
        '-metadata:s:v:0',
        `rotate=${rotation}`,
        '-movflags',
        '+faststart',
        '-f',
        'mp4',
        path,
      ],
      { timeout: 60_000 },
    );
  } finally {
    await rm(raw, { force: true });
  }
}

/**
 * Writes the samples into `dir`. The video is made only when `ffmpegPath` is given (ffmpeg was found).
 *
 * @throws when sharp or ffmpeg fails (the caller reports the step as failed).
 */
export async function createDemoSamples(dir: string, ffmpegPath?: string): Promise<DemoSamples> {
  const photo = join(dir, 'photo.jpg');
  const pdf = join(dir, 'crash-report.pdf');
  await makePhoto(photo);
  await writeFile(pdf, minimalPdf('happy-media demo: crash report'), { mode: 0o600 });
  if (!ffmpegPath) return { photo, pdf };
  const video = join(dir, 'phone-video.mp4');
  await makeRotatedVideo(video, ffmpegPath, dir);
  return { photo, video, pdf };
}
