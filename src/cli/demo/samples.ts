/**
 * The demo's sample media, made on the spot so the demo needs nothing but the package (ffmpeg for the
 * video comes from the system or the bundled optional dependency): a photo (sharp), a phone-style video
 * recorded sideways (H.264 with a 90° display matrix, as phones write it), and a small PDF.
 *
 * @module
 */
import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { childEnvironment } from '../../node/index.js';
import { importOptional } from '../../node/optional-dependency.js';
import { minimalPdf } from './pdf.js';

const execFileAsync = promisify(execFile);

/** What the demo reads of ffprobe's first stream: the rotation a video is displayed with. */
interface FfprobeStream {
  tags?: Record<string, string>;
  side_data_list?: { side_data_type?: string; rotation?: number }[];
}

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
  /** What the video had to do without (an ffmpeg feature missing, and what was used instead). */
  notes: string[];
}

/** The ffmpeg and ffprobe binaries the video is made and checked with. */
export interface DemoTools {
  ffmpeg: string;
  ffprobe: string;
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
  const sharp = (await importOptional('sharp', 'making the demo photo', () => import('sharp'))).default;
  await sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toFile(path);
}

const COMMON = ['-hide_banner', '-v', 'error', '-y', '-nostdin'];
const FFMPEG_TIMEOUT_MS = 60_000;

function lastLine(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr?.trim();
  return stderr ? (stderr.split('\n').pop() ?? '') : error instanceof Error ? error.message : String(error);
}

/**
 * A 2 s landscape clip. H.264 (libx264) first; an ffmpeg built without libx264 or the `testsrc2` source
 * (older than 3.1) falls back to its built-in MPEG-4 Part 2 encoder and `testsrc`, with a note.
 */
async function encodeClip(ffmpegPath: string, out: string, notes: string[]): Promise<void> {
  const { width, height, durationMs } = DEMO_VIDEO_SIZE;
  const attempts = [
    { source: 'testsrc2', codec: ['-c:v', 'libx264', '-preset', 'ultrafast'] },
    { source: 'testsrc', codec: ['-c:v', 'mpeg4', '-q:v', '5'] },
  ];
  for (const [i, { source, codec }] of attempts.entries()) {
    try {
      await execFileAsync(
        ffmpegPath,
        [
          ...COMMON,
          '-f',
          'lavfi',
          '-i',
          `${source}=size=${width}x${height}:rate=25`,
          '-t',
          String(durationMs / 1000),
          ...codec,
          '-pix_fmt',
          'yuv420p',
          '-f',
          'mp4',
          out,
        ],
        { timeout: FFMPEG_TIMEOUT_MS, env: childEnvironment() },
      );
      return;
    } catch (error) {
      if (i === attempts.length - 1) throw error;
      notes.push(
        `${ffmpegPath} could not encode H.264 from ${source} (${lastLine(error)}): the video is MPEG-4 Part 2 instead`,
      );
    }
  }
}

/** The display-matrix rotation ffprobe reads from the file's first video stream (0 when none). */
async function storedRotation(ffprobePath: string, path: string): Promise<number> {
  const { stdout } = await execFileAsync(
    ffprobePath,
    ['-v', 'error', '-select_streams', 'v:0', '-print_format', 'json', '-show_streams', `file:${path}`],
    { timeout: FFMPEG_TIMEOUT_MS, env: childEnvironment() },
  );
  const stream = (JSON.parse(stdout) as { streams?: FfprobeStream[] }).streams?.[0];
  const matrix = stream?.side_data_list?.find((d) => d.side_data_type === 'Display Matrix');
  return Number(matrix?.rotation ?? stream?.tags?.rotate ?? 0);
}

/**
 * Copies the clip into `path` with a 90° display matrix. ffmpeg up to 6.0 writes the matrix from the
 * `rotate` stream tag; newer ones ignore that tag and take `-display_rotation` (an input option) instead,
 * so the result is checked with ffprobe and the second way is tried when the first left no rotation.
 */
async function remuxRotated(tools: DemoTools, raw: string, path: string, notes: string[]): Promise<void> {
  const { rotation } = DEMO_VIDEO_SIZE;
  const out = ['-c', 'copy', '-movflags', '+faststart', '-f', 'mp4', path];
  await execFileAsync(tools.ffmpeg, [...COMMON, '-i', raw, '-metadata:s:v:0', `rotate=${rotation}`, ...out], {
    timeout: FFMPEG_TIMEOUT_MS,
    env: childEnvironment(),
  });
  if (Math.abs(await storedRotation(tools.ffprobe, path)) === rotation) return;
  // -display_rotation is counter-clockwise; the rotate tag was clockwise.
  await execFileAsync(
    tools.ffmpeg,
    [...COMMON, '-display_rotation:v:0', String(-rotation), '-i', raw, ...out],
    { timeout: FFMPEG_TIMEOUT_MS, env: childEnvironment() },
  );
  if (Math.abs(await storedRotation(tools.ffprobe, path)) !== rotation) {
    notes.push(`${tools.ffmpeg} wrote no display matrix: the video is stored upright, not sideways`);
  }
}

/** A 2 s clip stored landscape with a 90° display matrix, as phones record it. */
async function makeRotatedVideo(
  path: string,
  tools: DemoTools,
  scratch: string,
  notes: string[],
): Promise<void> {
  const raw = join(scratch, 'landscape.mp4');
  try {
    await encodeClip(tools.ffmpeg, raw, notes);
    await remuxRotated(tools, raw, path, notes);
  } finally {
    await rm(raw, { force: true });
  }
}

/**
 * Writes the samples into `dir`. The video is made only when `tools` is given (ffmpeg and ffprobe were
 * found); what it had to do without is in `notes`.
 *
 * @throws when sharp or ffmpeg fails (the caller reports the step as failed).
 */
export async function createDemoSamples(dir: string, tools?: DemoTools): Promise<DemoSamples> {
  const photo = join(dir, 'photo.jpg');
  const pdf = join(dir, 'crash-report.pdf');
  const notes: string[] = [];
  await makePhoto(photo);
  await writeFile(pdf, minimalPdf('happy-media demo: crash report'), { mode: 0o600 });
  if (!tools) return { photo, pdf, notes };
  const video = join(dir, 'phone-video.mp4');
  await makeRotatedVideo(video, tools, dir, notes);
  return { photo, video, pdf, notes };
}
