import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffmpegAvailability, probeMedia } from '../../../src/node/media/index.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { ffmpegChildren, sample, samplesDir } from './samples.js';

let tmp: { dir: string; cleanup: () => Promise<void> };

/** An executable stand-in for ffprobe/ffmpeg that misbehaves in the given way. */
async function fakeTool(name: string, body: string): Promise<string> {
  const path = join(tmp.dir, `fake-${name}`);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o700);
  return path;
}

beforeAll(async () => {
  await samplesDir();
  tmp = await makeTempDir();
});
afterAll(() => tmp.cleanup());

describe('hostile file names are just names', () => {
  it.each(['-i', ';rm -rf nothing;$(touch pwned).mp4', 'http:evil.mp4'])(
    'a video named %j probes normally and runs nothing',
    async (name) => {
      const path = join(tmp.dir, name);
      await copyFile(sample('vp9.webm'), path);
      const probe = await probeMedia(path);
      expect(probe).toMatchObject({ kind: 'video', name, width: 160, height: 120 });
      const { existsSync } = await import('node:fs');
      expect(existsSync(join(tmp.dir, 'pwned'))).toBe(false);
    },
  );
});

describe('misbehaving children are killed and reported; nothing is left running', () => {
  it('a hung ffprobe: killed at probeTimeoutMs, the video degrades to a file with ERR_PROBE_TIMEOUT', async () => {
    const hung = await fakeTool('hung', 'exec sleep 30');
    const started = Date.now();
    const probe = await probeMedia(sample('h264.mp4'), { ffprobePath: hung, probeTimeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(probe).toMatchObject({ kind: 'file', mimeType: 'video/mp4' });
    expect(probe.warning).toMatch(/ERR_PROBE_TIMEOUT/);
    expect(await ffmpegChildren()).toEqual([]);
  });

  it('a failing ffprobe is reported with its last stderr lines, the input path replaced by <input>', async () => {
    const path = join(tmp.dir, 'not-really.mp4');
    await writeFile(path, new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d]));
    const probe = await probeMedia(path);
    expect(probe).toMatchObject({ kind: 'file', mimeType: 'video/mp4' });
    expect(probe.warning).toMatch(/ERR_PROBE_FAILED: ffprobe exited with status 1: .*<input>/);
    expect(probe.warning).not.toContain(tmp.dir);
  });

  it('a crashing ffprobe (SIGSEGV) is reported as ERR_PROBE_FAILED', async () => {
    const crash = await fakeTool('crash', 'kill -SEGV $$');
    const probe = await probeMedia(sample('h264.mp4'), { ffprobePath: crash });
    expect(probe.kind).toBe('file');
    expect(probe.warning).toMatch(/ERR_PROBE_FAILED.*crashed \(SIGSEGV\)/);
    expect(await ffmpegChildren()).toEqual([]);
  });

  it('an ffprobe that floods stdout is killed at maxProbeOutputBytes', async () => {
    const flood = await fakeTool('flood', 'exec yes');
    const probe = await probeMedia(sample('h264.mp4'), {
      ffprobePath: flood,
      maxProbeOutputBytes: 64 * 1024,
    });
    expect(probe.kind).toBe('file');
    expect(probe.warning).toMatch(/ERR_LIMIT_EXCEEDED.*maxProbeOutputBytes/);
    expect(await ffmpegChildren()).toEqual([]);
  });

  it('a hung ffmpeg (poster frame) is killed too', async () => {
    const hung = await fakeTool('hung-ffmpeg', 'exec sleep 30');
    const probe = await probeMedia(sample('vp9.webm'), { ffmpegPath: hung, probeTimeoutMs: 2_000 });
    expect(probe.kind).toBe('file');
    expect(probe.warning).toMatch(/ERR_PROBE_TIMEOUT/);
    expect(await ffmpegChildren()).toEqual([]);
  });

  it('a dark first frame is kept when the later poster frame fails (e.g. over the memory limit)', async () => {
    // h264.mp4 fades in from black (160×120 → a 100×75 thumbhash frame): the first frame, decoded beside
    // ffprobe as PAM, is black; the second try at half the duration is what a memory limit can refuse.
    const header = 'P7\\nWIDTH 100\\nHEIGHT 75\\nDEPTH 4\\nMAXVAL 255\\nTUPLTYPE RGB_ALPHA\\nENDHDR\\n';
    const ffmpeg = await fakeTool(
      'dark-then-fail',
      `case "$*" in *pam*) printf '${header}'; head -c 30000 /dev/zero ;; *) echo 'Cannot allocate memory' >&2; exit 1 ;; esac`,
    );
    const probe = await probeMedia(sample('h264.mp4'), { ffmpegPath: ffmpeg });
    expect(probe).toMatchObject({ kind: 'video', width: 160, height: 120 });
    expect(probe.thumbhash).toEqual(expect.any(String));
    expect(await ffmpegChildren()).toEqual([]);
  });

  it('probeTimeoutMs of 2^31 ms or more waits instead of killing the tool at once (issue 24, item 7)', async () => {
    // A timer cannot wait that long: it fired after 1 ms, and every video became a file with ERR_PROBE_TIMEOUT.
    for (const probeTimeoutMs of [2 ** 31, 2 ** 45]) {
      const probe = await probeMedia(sample('vp9.webm'), { probeTimeoutMs });
      expect(probe).toMatchObject({ kind: 'video', width: 160, height: 120 });
    }
    await expect(probeMedia(sample('vp9.webm'), { probeTimeoutMs: 1.5 })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
  });

  it('an abort kills the child and rejects with ERR_ABORTED', async () => {
    const hung = await fakeTool('hung-abort', 'exec sleep 30');
    const controller = new AbortController();
    const pending = probeMedia(sample('h264.mp4'), { ffprobePath: hung, signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    expect(await ffmpegChildren()).toEqual([]);
  });
});

describe('a tiny file cannot make ffprobe/ffmpeg allocate gigabytes (maxToolMemoryBytes)', () => {
  /** A BMP header claiming `width`×`height` 24-bit pixels, followed by two bytes of pixel data. */
  function tinyBmp(width: number, height: number): Buffer {
    const info = Buffer.alloc(40);
    info.writeUInt32LE(40, 0);
    info.writeInt32LE(width, 4);
    info.writeInt32LE(height, 8);
    info.writeUInt16LE(1, 12);
    info.writeUInt16LE(24, 14);
    const header = Buffer.alloc(14);
    header.write('BM', 0, 'latin1');
    header.writeUInt32LE(14 + 40 + 2, 2);
    header.writeUInt32LE(14 + 40, 10);
    return Buffer.concat([header, info, Buffer.from([0, 0])]);
  }

  it('a 56-byte BMP claiming 16000×16000 (within the pixel limit) stops at the memory limit', async () => {
    const path = join(tmp.dir, 'tiny.bmp');
    await writeFile(path, tinyBmp(16000, 16000));
    // 768 MB of pixels: ffprobe and ffmpeg each grew to ~0.8 GB before failing on the missing data.
    const probe = await probeMedia(path);
    expect(probe).toMatchObject({ kind: 'file', mimeType: 'image/bmp', size: 56 });
    expect(probe.warning).toMatch(
      /ERR_LIMIT_EXCEEDED: ff(probe|mpeg) needed more than its 671088640 bytes of memory \(maxToolMemoryBytes\)/,
    );
    expect(await ffmpegChildren()).toEqual([]);
  });

  it('the limit is an option: a real BMP decodes under the default and fails under a tiny one', async () => {
    expect((await probeMedia(sample('image.bmp'))).kind).toBe('photo');
    const starved = await probeMedia(sample('image.bmp'), { maxToolMemoryBytes: 1024 * 1024 });
    expect(starved.kind).toBe('file');
    expect(starved.warning).toMatch(/ERR_LIMIT_EXCEEDED.*maxToolMemoryBytes|ERR_PROBE_FAILED/);
    await expect(probeMedia(sample('image.bmp'), { maxToolMemoryBytes: 0 })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
  });
});

describe('without ffmpeg', () => {
  const missing = { ffprobePath: '/nonexistent/ffprobe', ffmpegPath: '/nonexistent/ffmpeg' };

  it('video probing fails with one clear ERR_FFMPEG_MISSING error', async () => {
    const error = await probeMedia(sample('h264.mp4'), missing).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_FFMPEG_MISSING' });
    expect((error as Error).message).toMatch(/apt-get install ffmpeg/);
    expect((error as Error).message).toMatch(/FFPROBE_PATH/);
    expect((error as Error).message).toMatch(/FFMPEG_PATH/);
  });

  it('honours FFPROBE_PATH from the environment', async () => {
    const before = process.env.FFPROBE_PATH;
    process.env.FFPROBE_PATH = '/nonexistent/from-env/ffprobe';
    try {
      const error = await probeMedia(sample('h264.mp4')).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'ERR_FFMPEG_MISSING' });
      expect((error as Error).message).toContain('/nonexistent/from-env/ffprobe');
    } finally {
      if (before === undefined) delete process.env.FFPROBE_PATH;
      else process.env.FFPROBE_PATH = before;
    }
  });

  it('photo and file probing still work; audio loses only its duration', async () => {
    expect((await probeMedia(sample('png-alpha.png'), missing)).kind).toBe('photo');
    expect(await probeMedia(sample('document.pdf'), missing)).toMatchObject({ kind: 'file' });
    const audio = await probeMedia(sample('audio.mp3'), missing);
    expect(audio).toMatchObject({ kind: 'file', mimeType: 'audio/mpeg' });
    expect(audio.durationMs).toBeUndefined();
    expect(audio.warning).toMatch(/ERR_FFMPEG_MISSING/);
  });

  it('ffmpegAvailability reports both tools', async () => {
    const absent = await ffmpegAvailability(missing);
    expect(absent.ffprobe).toMatchObject({ available: false, path: '/nonexistent/ffprobe' });
    expect(absent.ffmpeg.available).toBe(false);
    const present = await ffmpegAvailability();
    expect(present.ffprobe.available).toBe(true);
    expect(present.ffprobe.version).toMatch(/^ffprobe version/);
    expect(present.ffmpeg.version).toMatch(/^ffmpeg version/);
  });
});

describe('unreadable input is an error, not a file', () => {
  it('a missing path is ERR_UNREADABLE_INPUT', async () => {
    await expect(probeMedia(join(tmp.dir, 'no-such-file.jpg'))).rejects.toMatchObject({
      code: 'ERR_UNREADABLE_INPUT',
    });
  });

  it('a directory is ERR_UNREADABLE_INPUT', async () => {
    await mkdir(join(tmp.dir, 'a-dir.jpg'));
    await expect(probeMedia(join(tmp.dir, 'a-dir.jpg'))).rejects.toMatchObject({
      code: 'ERR_UNREADABLE_INPUT',
    });
  });

  it('a named pipe is ERR_UNREADABLE_INPUT, without blocking on it', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const fifo = join(tmp.dir, 'pipe.mp4');
    await promisify(execFile)('mkfifo', [fifo]);
    await expect(probeMedia(fifo)).rejects.toMatchObject({
      code: 'ERR_UNREADABLE_INPUT',
      message: expect.stringMatching(/not a regular file/),
    });
  });

  it('bad options are ERR_INVALID_ARGUMENT', async () => {
    await expect(probeMedia(sample('notes.txt'), { probeTimeoutMs: 0 })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
    await expect(probeMedia(sample('notes.txt'), { maxInputPixels: -1 })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
  });

  it('an empty file is an empty octet-stream file', async () => {
    const path = join(tmp.dir, 'empty.bin');
    await writeFile(path, new Uint8Array(0));
    expect(await probeMedia(path)).toEqual({
      kind: 'file',
      mimeType: 'application/octet-stream',
      size: 0,
      name: 'empty.bin',
    });
  });
});
