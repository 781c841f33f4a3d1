import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { thumbHashToApproximateAspectRatio, thumbHashToAverageRGBA } from 'thumbhash';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromBase64 } from '../../../src/core/bytes.js';
import { thumbhashInputSize } from '../../../src/core/media/thumbhash.js';
import { earlyFrameRgba, ffprobe } from '../../../src/node/media/ffmpeg.js';
import { probeMedia } from '../../../src/node/media/index.js';
import { resolveProbeOptions } from '../../../src/node/media/options.js';
import { ffmpegChildren, sample, samplesDir } from './samples.js';

beforeAll(() => samplesDir());

describe('videos', () => {
  it('H.264 MP4: size, integer duration, and a poster that is not the black first frames', async () => {
    const probe = await probeMedia(sample('h264.mp4'));
    expect(probe).toMatchObject({
      kind: 'video',
      mimeType: 'video/mp4',
      width: 160,
      height: 120,
      durationMs: 4000,
    });
    expect(Number.isInteger(probe.durationMs)).toBe(true);
    const hash = fromBase64(probe.thumbhash!);
    const avg = thumbHashToAverageRGBA(hash);
    // The clip is black for 0.2 s, then red: the poster is red.
    expect(avg.r).toBeGreaterThan(0.7);
    expect(avg.g).toBeLessThan(0.2);
    expect(thumbHashToApproximateAspectRatio(hash)).toBeCloseTo(160 / 120, 0);
  });

  it('rotated MP4 (display matrix 90°) reports the upright size and an upright poster', async () => {
    const probe = await probeMedia(sample('rotated-90.mp4'));
    expect(probe).toMatchObject({ kind: 'video', width: 120, height: 160, durationMs: 4000 });
    expect(thumbHashToApproximateAspectRatio(fromBase64(probe.thumbhash!))).toBeLessThan(1);
  });

  it.each([
    ['vp9.webm', 'video/webm'],
    ['hevc.mkv', 'video/matroska'],
    ['hevc.mov', 'video/quicktime'],
  ])('%s is a %s video of 160x120, 1 s', async (name, mimeType) => {
    const probe = await probeMedia(sample(name));
    expect(probe).toMatchObject({ kind: 'video', mimeType, width: 160, height: 120, durationMs: 1000 });
    expect(probe.thumbhash).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(probe.warning).toBeUndefined();
  });

  it('does not trust a header that lies about the duration: the packets win, with a warning', async () => {
    const probe = await probeMedia(sample('truncated-lying-duration.mkv'));
    expect(probe.kind).toBe('video');
    // The header says 6 s; the data stops near 3 s (the file was cut in half).
    expect(probe.durationMs).toBeGreaterThan(2000);
    expect(probe.durationMs).toBeLessThan(4000);
    expect(probe.warning).toMatch(/claims 6\.000 s/);
  });

  it('the header ffprobe also lists the tail: where the packets end, beside the streams', async () => {
    const options = resolveProbeOptions({});
    const withTail = await ffprobe(sample('h264.mp4'), options, true);
    expect(withTail.streams.some((s) => s.codec_type === 'video')).toBe(true);
    expect(withTail.tailEnd).toBeGreaterThan(3.9);
    expect(withTail.tailEnd).toBeLessThanOrEqual(4.05);
    expect((await ffprobe(sample('h264.mp4'), options)).tailEnd).toBeUndefined();
    // The cut file's tail ends near 3 s although its header claims 6 s.
    const cut = await ffprobe(sample('truncated-lying-duration.mkv'), options, true);
    expect(cut.tailEnd).toBeLessThan(4);
  });

  it('the early poster frame is sized by ffmpeg as thumbhashInputSize sizes the upright video', async () => {
    const frame = await earlyFrameRgba(sample('rotated-90.mp4'), 0, resolveProbeOptions({}));
    expect(frame).toBeDefined();
    expect({ width: frame!.width, height: frame!.height }).toEqual(thumbhashInputSize(120, 160));
    expect(frame!.rgba.length).toBe(frame!.width * frame!.height * 4);
  });

  it('leaves no ffmpeg or ffprobe process behind', async () => {
    await probeMedia(sample('vp9.webm'));
    expect(await ffmpegChildren()).toEqual([]);
  });
});

describe('audio files are files with their audio MIME type and a duration', () => {
  it.each([
    ['audio.mp3', 'audio/mpeg'],
    ['audio.m4a', 'audio/mp4'],
    ['audio.opus', 'audio/ogg'],
  ])('%s', async (name, mimeType) => {
    const probe = await probeMedia(sample(name));
    expect(probe).toMatchObject({ kind: 'file', mimeType, name });
    expect(Number.isInteger(probe.durationMs)).toBe(true);
    // 1.5 s of tone; encoders add priming/padding of a few tens of milliseconds.
    expect(Math.abs(probe.durationMs! - 1500)).toBeLessThan(100);
    expect(probe.thumbhash).toBeUndefined();
  });

  it.each([16, 4096, 70_000])(
    'an MP3 whose ID3v2 tag is followed by %i zero bytes is still audio/mpeg with its true duration',
    async (padding) => {
      // Taggers leave zeros after the tag that its size does not count; file-type then finds no frame
      // right after the tag and gave up (application/octet-stream, no duration), though ffprobe reads it.
      const mp3 = await readFile(sample('audio.mp3'));
      expect(mp3.subarray(0, 3).toString('latin1')).toBe('ID3');
      const tagEnd = 10 + ((mp3[6]! << 21) | (mp3[7]! << 14) | (mp3[8]! << 7) | mp3[9]!);
      const dir = await mkdtemp(join(tmpdir(), 'happy-media-id3-'));
      try {
        const path = join(dir, 'padded.mp3');
        await writeFile(
          path,
          Buffer.concat([mp3.subarray(0, tagEnd), Buffer.alloc(padding), mp3.subarray(tagEnd)]),
        );
        const probe = await probeMedia(path);
        expect(probe).toMatchObject({ kind: 'file', mimeType: 'audio/mpeg', size: mp3.length + padding });
        // The same 1.5 s as the unpadded file (not an estimate over the zeros).
        expect(Math.abs(probe.durationMs! - 1500)).toBeLessThan(100);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('ID3v2 followed only by zeros, or by bytes that are no audio, stays application/octet-stream', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'happy-media-id3-'));
    try {
      const tag = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0]);
      for (const [name, rest] of [
        ['zeros.bin', Buffer.alloc(4096)],
        [
          'noise.bin',
          Buffer.concat([Buffer.alloc(100), Buffer.from('not audio at all, just text\u0001\u0002')]),
        ],
      ] as const) {
        await writeFile(join(dir, name), Buffer.concat([tag, rest]));
        expect(await probeMedia(join(dir, name))).toMatchObject({
          kind: 'file',
          mimeType: 'application/octet-stream',
        });
      }
      expect(await ffmpegChildren()).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('other files', () => {
  it.each([
    ['document.pdf', 'application/pdf'],
    ['archive.zip', 'application/zip'],
    ['notes.txt', 'text/plain'],
    ['data.json', 'application/json'],
  ])('%s is a plain %s file with its size', async (name, mimeType) => {
    const probe = await probeMedia(sample(name));
    const { stat } = await import('node:fs/promises');
    expect(probe).toEqual({ kind: 'file', mimeType, name, size: (await stat(sample(name))).size });
  });
});

describe('duration helpers', () => {
  it('ignores absurd header durations and swaps size for quarter turns only', async () => {
    const { claimedDurationSeconds, displayedSize } = await import('../../../src/node/media/video.js');
    expect(claimedDurationSeconds({ streams: [], format: { duration: '1e300' } })).toBeUndefined();
    expect(claimedDurationSeconds({ streams: [], format: { duration: '-5' } })).toBeUndefined();
    expect(claimedDurationSeconds({ streams: [], format: { duration: 'N/A' } }, { duration: '2.5' })).toBe(
      2.5,
    );
    const stream = (rotation: number) => ({ width: 1920, height: 1080, side_data_list: [{ rotation }] });
    expect(displayedSize(stream(-90))).toEqual({ width: 1080, height: 1920 });
    expect(displayedSize(stream(270))).toEqual({ width: 1080, height: 1920 });
    expect(displayedSize(stream(180))).toEqual({ width: 1920, height: 1080 });
    expect(displayedSize({ width: 640, height: 480, tags: { rotate: '90' } })).toEqual({
      width: 480,
      height: 640,
    });
  });
});
