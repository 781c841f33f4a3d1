/**
 * Conformance of media probing against the external corpus (HAPPY_MEDIA_CORPUS, see ../shared/corpus/MANIFEST.md):
 * - media/index.csv: every file gets the expected MIME type, kind and displayed size (and duration and
 *   ThumbHash where the CSV has them), with the deliberate differences listed below;
 * - corrupt/**: every hostile file finishes within the timeout with a valid result or a typed error,
 *   no crash, no hang, no child process left;
 * - thumbhash/: our encoder equals the reference on the same RGBA, and our image pipeline reproduces the
 *   reference hashes of the sample images.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { thumbHashToAverageRGBA } from 'thumbhash';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromBase64 } from '../../src/core/bytes.js';
import { HappyMediaError } from '../../src/core/errors.js';
import { thumbhashFromRgba, thumbhashInputSize } from '../../src/core/media/index.js';
import { type MediaProbe, probeMedia, thumbhashFromImage } from '../../src/node/media/index.js';
import { runCli } from '../helpers/cli.js';
import { corpusPath, hasCorpus, readCorpusCsv, readCorpusJson } from '../helpers/corpus.js';
import { ffmpegChildren } from '../node/media/samples.js';

/**
 * Where our MIME type differs from file-type's on purpose (docs/media.md, "MIME names"), and what we
 * give where file-type gives nothing and the CSV has no extension-based expectation.
 */
const DELIBERATE_MIME: Record<string, string> = {
  // One container, one name: M4V and M4A are MP4 (registered names, what players use).
  'file-type/fixture-2.m4v': 'video/mp4',
  'file-type/fixture.m4v': 'video/mp4',
  'file-type/fixture.m4a': 'audio/mp4',
  // Parameters are dropped: `audio/ogg; codecs=opus` → `audio/ogg`.
  'file-type/fixture.opus': 'audio/ogg',
  // An MP4 with only an audio stream is audio.
  'small/mp4-with-audio.mp4': 'audio/mp4',
  // An ID3v2 tag whose size is 10 bytes short: file-type finds no frame after it, ffprobe reads the MP3
  // behind it (the probe asks ffprobe when sniffing gives up on ID3-prefixed data).
  'file-type/fixture-bad-offset-10.mp3': 'audio/mpeg',
  // No magic recognised: binary → octet-stream, UTF-8 text → text/plain.
  'file-type/fixture-corrupt.mkv': 'application/octet-stream',
  'file-type/fixture-corrupt.png': 'application/octet-stream',
  'file-type/fixture-json.webp': 'text/plain',
};

/** Videos ffprobe can describe but whose only frame ffmpeg cannot decode: sent as files with a warning. */
const UNDECODABLE_VIDEOS = new Set(['small/AudioVideoInterleave.avi', 'small/WindowsMediaVideo.wmv']);

/** Container headers that lie about the duration (truncated downloads): the packets win. */
const LYING_DURATION = new Set(['file-type/fixture2.mkv']);

const SHARP_TYPES = new Set([
  'image/jpeg',
  'image/png',
  'image/apng',
  'image/gif',
  'image/webp',
  'image/tiff',
]);

function expectedMime(row: Record<string, string>): string | undefined {
  if (DELIBERATE_MIME[row.file!]) return DELIBERATE_MIME[row.file!];
  if (row.filetype_mime) return row.filetype_mime;
  return /by extension (\S+)/.exec(row.notes ?? '')?.[1];
}

/** The shape invariants every result must satisfy. */
function expectValidProbe(probe: MediaProbe): void {
  expect(['photo', 'video', 'file']).toContain(probe.kind);
  expect(probe.mimeType).toMatch(/^[a-z]+\/[a-z0-9][a-z0-9.+-]*$/);
  expect(Number.isSafeInteger(probe.size)).toBe(true);
  expect(probe.name.length).toBeGreaterThan(0);
  for (const key of ['width', 'height', 'durationMs'] as const) {
    if (probe[key] !== undefined) expect(Number.isSafeInteger(probe[key]) && probe[key]! >= 0).toBe(true);
  }
  if (probe.kind === 'photo' || probe.kind === 'video') {
    expect(probe.width).toBeGreaterThan(0);
    expect(probe.height).toBeGreaterThan(0);
    expect(fromBase64(probe.thumbhash!).length).toBeGreaterThanOrEqual(5);
  }
  if (probe.kind === 'video') expect(probe.durationMs).toBeDefined();
  if (probe.kind === 'file') expect(probe.thumbhash).toBeUndefined();
}

describe.skipIf(!hasCorpus)('media/index.csv: MIME, kind, size, duration, thumbhash', () => {
  let rows: Record<string, string>[] = [];
  beforeAll(async () => {
    rows = await readCorpusCsv('media', 'index.csv');
  });

  it('lists the corpus files', () => {
    expect(rows.length).toBeGreaterThan(90);
  });

  it('every file gets the expected MIME type, kind and displayed size', async () => {
    const mismatches: string[] = [];
    for (const row of rows) {
      const file = row.file!;
      const probe = await probeMedia(corpusPath('media', file), { probeTimeoutMs: 20_000 });
      expectValidProbe(probe);
      const check = (what: string, got: unknown, want: unknown) => {
        if (got !== want)
          mismatches.push(`${file}: ${what} ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
      };
      check('size', probe.size, Number(row.size));
      const mime = expectedMime(row);
      if (mime) check('mimeType', probe.mimeType, mime);

      const sharpW = Number(row.sharp_width);
      const sharpH = Number(row.sharp_height);
      const ffW = Number(row.ffprobe_width);
      const ffH = Number(row.ffprobe_height);
      if (probe.mimeType.startsWith('image/')) {
        const sharpOk = (row.sharp_decode ?? '').startsWith('OK');
        const heif = ['image/heic', 'image/heif'].includes(probe.mimeType) && sharpW > 0;
        if (sharpOk || heif) {
          const swap = Number(row.sharp_orientation) >= 5;
          check('kind', probe.kind, 'photo');
          check('width', probe.width, swap ? sharpH : sharpW);
          check('height', probe.height, swap ? sharpW : sharpH);
          // Where the corpus author's pipeline shrank to the same size as ours, the hash must be equal.
          const decodedAt = /^OK (\d+)x(\d+)/.exec(row.sharp_decode ?? '');
          const ours = thumbhashInputSize(probe.width ?? 0, probe.height ?? 0);
          if (decodedAt && Number(decodedAt[1]) === ours.width && Number(decodedAt[2]) === ours.height) {
            check('thumbhash', probe.thumbhash, row.thumbhash_author_pipeline);
          }
        } else if (SHARP_TYPES.has(probe.mimeType) || !(ffW > 0 && ffH > 0)) {
          check('kind', probe.kind, 'file');
          if (!probe.warning) mismatches.push(`${file}: an undecodable image carries no warning`);
        } else {
          // Formats sharp cannot read (BMP, ICO, PSD, JPEG XL, JPEG 2000, image sequences): ffmpeg.
          check('kind', probe.kind, 'photo');
          check('width', probe.width, ffW);
          check('height', probe.height, ffH);
        }
      } else if (probe.mimeType.startsWith('video/') && row.ffprobe_video_codec && ffW > 0 && ffH > 0) {
        if (UNDECODABLE_VIDEOS.has(file)) {
          check('kind', probe.kind, 'file');
          continue;
        }
        const quarter = Math.abs(Math.round(Number(row.ffprobe_rotation || 0) / 90)) % 2 === 1;
        check('kind', probe.kind, 'video');
        check('width', probe.width, quarter ? ffH : ffW);
        check('height', probe.height, quarter ? ffW : ffH);
        const claimedMs = Math.round(Number(row.ffprobe_duration_s) * 1000);
        if (LYING_DURATION.has(file)) {
          if (!(probe.durationMs! < claimedMs / 10 && probe.warning)) {
            mismatches.push(
              `${file}: lying duration ${claimedMs} ms taken as ${probe.durationMs} ms without warning`,
            );
          }
        } else if (row.ffprobe_duration_s && Math.abs(probe.durationMs! - claimedMs) > 1) {
          mismatches.push(`${file}: durationMs ${probe.durationMs} ≠ ${claimedMs}`);
        }
      } else {
        check('kind', probe.kind, 'file');
        if (probe.mimeType.startsWith('audio/') && row.ffprobe_duration_s) {
          const claimedMs = Math.round(Number(row.ffprobe_duration_s) * 1000);
          if (Math.abs((probe.durationMs ?? -1000) - claimedMs) > 1) {
            mismatches.push(`${file}: audio durationMs ${probe.durationMs} ≠ ${claimedMs}`);
          }
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(await ffmpegChildren()).toEqual([]);
  }, 600_000);
});

describe.skipIf(!hasCorpus)('corrupt/**: hostile files end in a valid result or a typed error', () => {
  it('every file, within the timeout, with no child left running', async () => {
    const root = hasCorpus ? corpusPath('corrupt') : '';
    const files = (await readdir(root, { recursive: true, withFileTypes: true }))
      .filter((d) => d.isFile())
      .map((d) => join(d.parentPath, d.name));
    expect(files.length).toBeGreaterThan(150);
    const timeoutMs = 10_000;
    const problems: string[] = [];
    const kinds: Record<string, number> = { photo: 0, video: 0, file: 0, error: 0 };
    for (const path of files) {
      const name = relative(root, path);
      const started = Date.now();
      try {
        const probe = await probeMedia(path, { probeTimeoutMs: timeoutMs });
        expectValidProbe(probe);
        kinds[probe.kind]!++;
      } catch (error) {
        kinds.error!++;
        if (!(error instanceof HappyMediaError)) problems.push(`${name}: untyped ${String(error)}`);
      }
      // Each child is bounded by the timeout; a probe runs at most four of them in a row.
      if (Date.now() - started > 4 * timeoutMs + 5_000)
        problems.push(`${name}: took ${Date.now() - started} ms`);
      const children = await ffmpegChildren();
      if (children.length > 0) problems.push(`${name}: left ${children.join(', ')}`);
    }
    expect(problems).toEqual([]);
    // The derived huge-dimension PNG and zero-byte input must not become photos.
    expect((await probeMedia(join(root, 'derived-truncated', 'png.ihdr-huge-dims.png'))).kind).toBe('file');
    expect((await probeMedia(join(root, 'derived-truncated', 'zero-bytes.bin'))).kind).toBe('file');
    expect(kinds.photo).toBeGreaterThan(20);
  }, 900_000);

  it('valid PngSuite edge cases decode as photos of their true size', async () => {
    const rows = (await readCorpusCsv('corrupt', 'index.csv')).filter((r) =>
      r.file!.startsWith('pngsuite/valid-edge/'),
    );
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) {
      const probe = await probeMedia(corpusPath('corrupt', row.file!));
      const [w, h] = /png (\d+)x(\d+)/.exec(row.sharp_metadata!)!.slice(1).map(Number);
      expect({ file: row.file, kind: probe.kind, width: probe.width, height: probe.height }).toEqual({
        file: row.file,
        kind: 'photo',
        width: w,
        height: h,
      });
    }
  });
});

describe.skipIf(!hasCorpus)('the probe CLI on hostile HEIF/AVIF', () => {
  it('prints exactly one JSON object per file on stdout (decoder chatter never reaches it)', async () => {
    const files = [
      'mp4parse/corrupt/transformation-before-ispe.avif',
      'mp4parse/corrupt/no-pixi.avif',
      'mp4parse/valid/valid-alpha.avif',
      'derived-truncated/png.ihdr-huge-dims.png',
    ].map((f) => corpusPath('corrupt', f));
    const r = await runCli(['probe', ...files, corpusPath('media', 'small', 'heif.heif')]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(files.length + 1);
    const parsed = lines.map((l) => JSON.parse(l) as MediaProbe);
    for (const p of parsed) expectValidProbe(p);
    expect(parsed.at(-1)).toMatchObject({ kind: 'photo', mimeType: 'image/heic', width: 64, height: 64 });
  });
});

interface RgbaVector {
  name: string;
  w: number;
  h: number;
  rgbaBase64: string;
  expectedHashBase64: string;
}
interface ImageVector {
  image: string;
  rgbaFile: string;
  width: number;
  height: number;
  expectedHashBase64: string;
  averageRGBA: { r: number; g: number; b: number; a: number };
}

describe.skipIf(!hasCorpus)('thumbhash vectors', () => {
  it('rgba_vectors.json: equal to the reference encoder on the same RGBA', async () => {
    const { vectors, errorCases } = await readCorpusJson<{
      vectors: RgbaVector[];
      errorCases: { w: number; h: number; throws: boolean }[];
    }>('thumbhash', 'rgba_vectors.json');
    expect(vectors.length).toBeGreaterThan(10);
    for (const v of vectors) {
      expect({ name: v.name, hash: thumbhashFromRgba(v.w, v.h, fromBase64(v.rgbaBase64)) }).toEqual({
        name: v.name,
        hash: v.expectedHashBase64,
      });
    }
    for (const e of errorCases) {
      // The reference throws above 100 px; we also refuse an empty image (deliberate: no picture, no hash).
      expect(() => thumbhashFromRgba(e.w, e.h, new Uint8Array(e.w * e.h * 4))).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
      );
    }
  });

  it('image_vectors.json: the reference RGBA hashes as published, and our image pipeline reproduces it', async () => {
    const { vectors } = await readCorpusJson<{ vectors: ImageVector[] }>('thumbhash', 'image_vectors.json');
    expect(vectors.length).toBeGreaterThanOrEqual(10);
    for (const v of vectors) {
      const rgba = new Uint8Array(await readFile(corpusPath('thumbhash', v.rgbaFile)));
      expect(thumbhashFromRgba(v.width, v.height, rgba)).toBe(v.expectedHashBase64);
      const image = corpusPath('thumbhash', v.image);
      const ours = await thumbhashFromImage(image);
      expect({ image: v.image, hash: ours }).toEqual({ image: v.image, hash: v.expectedHashBase64 });
      const avg = thumbHashToAverageRGBA(fromBase64(ours));
      expect(avg.r).toBeCloseTo(v.averageRGBA.r, 2);
      expect(avg.a).toBeCloseTo(v.averageRGBA.a, 2);
      const probe = await probeMedia(image);
      expect(probe.kind).toBe('photo');
      expect(probe.thumbhash).toBe(v.expectedHashBase64);
      expect(Math.sign(probe.width! - probe.height!)).toBe(Math.sign(v.width - v.height));
    }
  });
});
