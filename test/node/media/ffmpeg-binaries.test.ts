/**
 * Which ffmpeg/ffprobe run (option → env → PATH → bundled), and that the bundled static builds do
 * everything the package asks of ffmpeg: lavfi test sources, libx264, the demuxer whitelist, a 90°
 * display matrix read back as portrait.
 */
import { execFile } from 'node:child_process';
import { chmod, chown, copyFile, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoSamples, DEMO_VIDEO_SIZE } from '../../../src/cli/demo/index.js';
import { versionLine } from '../../../src/node/media/ffmpeg.js';
import {
  bundledBinary,
  ensureRunnable,
  findOnPath,
  locateBinary,
} from '../../../src/node/media/ffmpeg-binaries.js';
import { ffmpegAvailability, probeMedia } from '../../../src/node/media/index.js';
import { makeTempDir } from '../../helpers/tmp.js';

const run = promisify(execFile);
let tmp: { dir: string; cleanup: () => Promise<void> };
const saved = {
  PATH: process.env.PATH,
  FFMPEG_PATH: process.env.FFMPEG_PATH,
  FFPROBE_PATH: process.env.FFPROBE_PATH,
};

/** Runs `body` with these environment variables (undefined deletes), restoring them afterwards. */
async function withEnv<T>(env: Record<string, string | undefined>, body: () => Promise<T> | T): Promise<T> {
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await body();
  } finally {
    for (const k of Object.keys(env)) {
      const v = saved[k as keyof typeof saved];
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

beforeAll(async () => {
  tmp = await makeTempDir();
});
afterAll(() => tmp.cleanup());

// The platform packages exist for these; elsewhere the optional dependency is simply absent.
const bundledPlatform = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'].includes(
  `${process.platform}-${process.arch}`,
);

describe('resolution order', () => {
  it('option, then FFPROBE_PATH, then the PATH, then the bundled binary', async () => {
    const bin = join(tmp.dir, 'path-bin');
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, 'ffprobe'), '#!/bin/sh\necho fake\n', { mode: 0o700 });
    await withEnv({ PATH: bin, FFPROBE_PATH: '/from/env/ffprobe' }, () => {
      expect(locateBinary('ffprobe', '/from/option')).toEqual({ path: '/from/option', source: 'option' });
      expect(locateBinary('ffprobe')).toEqual({ path: '/from/env/ffprobe', source: 'env' });
    });
    await withEnv({ PATH: `relative-dir:${bin}`, FFPROBE_PATH: undefined }, () => {
      expect(locateBinary('ffprobe')).toEqual({ path: join(bin, 'ffprobe'), source: 'path' });
    });
    // Not executable on the PATH: skipped.
    await chmod(join(bin, 'ffprobe'), 0o600);
    await withEnv({ PATH: bin, FFPROBE_PATH: undefined }, () => {
      expect(findOnPath('ffprobe')).toBeUndefined();
      const located = locateBinary('ffprobe');
      expect(located.source).toBe(bundledPlatform ? 'bundled' : 'missing');
    });
  });

  it.runIf(bundledPlatform)(
    'with nothing on the PATH, ffmpegAvailability names the bundled binaries and their versions',
    async () => {
      const empty = join(tmp.dir, 'empty-bin');
      await mkdir(empty, { recursive: true });
      const tools = await withEnv({ PATH: empty, FFMPEG_PATH: undefined, FFPROBE_PATH: undefined }, () =>
        ffmpegAvailability(),
      );
      for (const [name, t] of Object.entries(tools)) {
        expect(t).toMatchObject({ source: 'bundled', available: true });
        expect(t.path).toMatch(new RegExp(`@${name}-installer/`));
        // The version, not the build URL and copyright the first line goes on with (issue 24, item 9).
        expect(t.version).toMatch(new RegExp(`^${name} version \\S+$`));
        expect(t.version).not.toMatch(/Copyright|https?:/);
      }
    },
  );

  it('versionLine keeps `<tool> version <version>` of the real banners', () => {
    expect(
      versionLine(
        'ffmpeg version N-47683-g0e8eb07980-static https://johnvansickle.com/ffmpeg/  Copyright (c) 2000-2018 the FFmpeg developers\nbuilt with gcc 6.3.0',
      ),
    ).toBe('ffmpeg version N-47683-g0e8eb07980-static');
    expect(
      versionLine('ffprobe version 5.1.9-0+deb12u1 Copyright (c) 2007-2026 the FFmpeg developers\n'),
    ).toBe('ffprobe version 5.1.9-0+deb12u1');
    expect(versionLine('something else entirely\nsecond')).toBe('something else entirely');
  });
});

describe('a bundled binary without its run bit (install scripts skipped)', () => {
  it('owned by us: gets the owner run bit in place', async () => {
    const file = join(tmp.dir, 'owned-ffprobe');
    await copyFile('/bin/true', file);
    await chmod(file, 0o644);
    const cache = join(tmp.dir, 'cache-owned');
    const path = await withEnv({ XDG_CACHE_HOME: cache }, () => ensureRunnable(file, 'ffprobe', 'k'));
    expect(path).toBe(file);
    expect((await stat(file)).mode & 0o777).toBe(0o744);
    await run(path, []);
  });

  it.runIf(process.getuid?.() === 0)('owned by someone else: run from a private 0700 copy', async () => {
    const file = join(tmp.dir, 'foreign-ffprobe');
    await copyFile('/bin/true', file);
    await chmod(file, 0o644);
    await chown(file, 65534, 65534);
    const cache = join(tmp.dir, 'cache-foreign');
    const path = await withEnv({ XDG_CACHE_HOME: cache }, () => ensureRunnable(file, 'ffprobe', 'pkg@1'));
    expect(path).toBe(join(cache, 'happy-media', 'bin', 'pkg@1', 'ffprobe'));
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    expect((await stat(path)).mode & 0o777).toBe(0o700);
    for (const dir of ['happy-media', 'happy-media/bin', 'happy-media/bin/pkg@1']) {
      expect((await stat(join(cache, dir))).mode & 0o777).toBe(0o700);
    }
    await run(path, []);
    // Reused, not copied again.
    const again = await withEnv({ XDG_CACHE_HOME: cache }, () => ensureRunnable(file, 'ffprobe', 'pkg@1'));
    expect(again).toBe(path);
  });
});

describe.runIf(bundledPlatform)('the bundled ffmpeg and ffprobe do everything the package uses', () => {
  const tools = () => ({ ffmpeg: bundledBinary('ffmpeg').path!, ffprobe: bundledBinary('ffprobe').path! });

  it('test samples: lavfi sources, libx264/libx265/libvpx/libwebp/mp3/opus/aac, rotate tag', async () => {
    const out = join(tmp.dir, 'samples');
    await run(process.execPath, [join(import.meta.dirname, '../../../scripts/make-samples.mjs'), out], {
      env: { ...process.env, FFMPEG_PATH: tools().ffmpeg },
      timeout: 120_000,
    });
    const options = { ffmpegPath: tools().ffmpeg, ffprobePath: tools().ffprobe };
    // Probing goes through -protocol_whitelist/-format_whitelist on both tools, and frame extraction.
    expect(await probeMedia(join(out, 'rotated-90.mp4'), options)).toMatchObject({
      kind: 'video',
      width: 120,
      height: 160,
    });
    for (const name of ['h264.mp4', 'vp9.webm', 'hevc.mkv']) {
      const probe = await probeMedia(join(out, name), options);
      expect(probe).toMatchObject({ kind: 'video', width: 160, height: 120 });
      expect(probe.thumbhash).toBeTruthy();
    }
    expect(await probeMedia(join(out, 'audio.opus'), options)).toMatchObject({ kind: 'file' });
    expect((await probeMedia(join(out, 'audio.opus'), options)).durationMs).toBeGreaterThan(1000);
  }, 180_000);

  it('the demo video: H.264 with a 90° display matrix, no fallback needed', async () => {
    const dir = join(tmp.dir, 'demo');
    await mkdir(dir, { recursive: true });
    const made = await createDemoSamples(dir, tools());
    expect(made.notes).toEqual([]);
    const probe = await probeMedia(made.video!, { ffmpegPath: tools().ffmpeg, ffprobePath: tools().ffprobe });
    expect(probe).toMatchObject({
      kind: 'video',
      mimeType: 'video/mp4',
      width: DEMO_VIDEO_SIZE.height,
      height: DEMO_VIDEO_SIZE.width,
    });
  }, 120_000);
});
