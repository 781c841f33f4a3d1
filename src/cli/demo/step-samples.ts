/**
 * Demo step 1: generate the sample media (photo, rotated phone video when ffmpeg is there, PDF).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { ffmpegAvailability, readSentFile } from '../../node/index.js';
import type { DemoItem } from './demo-state.js';
import { kib } from './describe.js';
import type { DemoRecorder } from './report.js';
import { createDemoSamples, type DemoSamples, type DemoTools } from './samples.js';

/** SHA-256 (hex) of the bytes `sendMedia` sends for a file. */
async function sentSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  const reader = (await readSentFile(path)).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return hash.digest('hex');
    hash.update(value);
  }
}

/**
 * Makes the samples in `samplesDir` and returns them as pipeline items with the SHA-256 of what is sent, or
 * `undefined` when the step failed. Without ffmpeg the video is skipped (reported with how to install it)
 * so the rest of the demo still runs.
 */
export async function makeSamples(rec: DemoRecorder, samplesDir: string): Promise<DemoItem[] | undefined> {
  const samples = await rec.step('Generate sample media', async (s): Promise<DemoSamples> => {
    const tools = await ffmpegAvailability();
    let video: DemoTools | undefined;
    if (tools.ffmpeg.available && tools.ffprobe.available) {
      video = { ffmpeg: tools.ffmpeg.path, ffprobe: tools.ffprobe.path };
      for (const t of [tools.ffmpeg, tools.ffprobe]) s.info(`${t.source.padEnd(8)} ${t.path}: ${t.version}`);
    } else
      s.skip(
        `the rotated phone video needs ffmpeg/ffprobe (install happy-media-cli, which brings them, apt-get install ffmpeg, or set FFMPEG_PATH/FFPROBE_PATH): ${tools.ffmpeg.error ?? tools.ffprobe.error ?? ''}`,
      );
    const made = await createDemoSamples(samplesDir, video);
    for (const note of made.notes) s.info(`note: ${note}`);
    for (const path of [made.photo, made.video, made.pdf]) {
      if (path) s.info(`${basename(path).padEnd(18)} ${kib((await stat(path)).size)}`);
    }
    return made;
  });
  if (!samples) return undefined;
  // Hashed outside the step, as before the split: a hashing error fails the run, not a numbered step.
  // What playback must give back is what is sent: the sample with its metadata neutralised (the video's
  // encoder tag and times; sendMedia's default), the same size.
  const items: DemoItem[] = [];
  for (const [label, path] of [
    ['photo', samples.photo],
    ['video', samples.video],
    ['PDF', samples.pdf],
  ] as const) {
    if (path) items.push({ label, path, sha256: await sentSha256(path) });
  }
  return items;
}
