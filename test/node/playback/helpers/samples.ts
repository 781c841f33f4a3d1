/** Small media samples for playback tests, generated (never committed): a PNG with sharp, an MP4 with ffmpeg. */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { locateBinary } from '../../../../src/node/media/ffmpeg-binaries.js';

const run = promisify(execFile);

/** A `width`×`height` PNG gradient. */
export async function makePng(width: number, height: number): Promise<Uint8Array> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      pixels[i] = (x * 255) / width;
      pixels[i + 1] = (y * 255) / height;
      pixels[i + 2] = 128;
    }
  }
  return new Uint8Array(
    await sharp(pixels, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer(),
  );
}

/** True when ffmpeg can be run (the system's or the bundled one). */
export async function hasFfmpeg(): Promise<boolean> {
  try {
    await run(locateBinary('ffmpeg').path, ['-version'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * A 320×240 H.264 MP4 (faststart, a keyframe every second), written to `dir`. `bitrate` (e.g. `1500k`)
 * makes it big enough for seeking tests; testsrc otherwise compresses to a few kB per second.
 */
export async function makeMp4(dir: string, seconds = 2, bitrate?: string): Promise<Uint8Array> {
  const out = join(dir, `sample-${seconds}s${bitrate ? `-${bitrate}` : ''}.mp4`);
  const rate = bitrate
    ? ['-b:v', bitrate, '-maxrate', bitrate, '-bufsize', bitrate, '-x264-params', 'nal-hrd=cbr']
    : [];
  await run(
    locateBinary('ffmpeg').path,
    [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=320x240:rate=10',
      '-t',
      String(seconds),
      '-pix_fmt',
      'yuv420p',
      '-c:v',
      'libx264',
      '-g',
      '10',
      ...rate,
      '-movflags',
      '+faststart',
      out,
    ],
    { timeout: 60_000 },
  );
  return new Uint8Array(await readFile(out));
}

/** Deterministic pseudo-random bytes (xorshift), so failures reproduce. */
export function pseudoRandomBytes(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Byte equality without vitest's element-wise deep diff (which takes seconds on MiB arrays). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a.length === b.length &&
    Buffer.compare(
      Buffer.from(a.buffer, a.byteOffset, a.length),
      Buffer.from(b.buffer, b.byteOffset, b.length),
    ) === 0
  );
}
