/**
 * Private photos on the real-world corpus (HAPPY_MEDIA_CORPUS): every JPEG, PNG, WebP, HEIC/HEIF, AVIF,
 * MP4, MOV, M4V and 3GP of `media/` is stripped of its metadata (a plan from random access, and one pass
 * over a stream). Each comes out the same size, decodes to the same pixels (sharp's raw pixels, libheif's
 * for HEIC) or the same frames (ffmpeg's framemd5 of the first video stream) whenever the original
 * decodes, and carries no GPS: no GPS IFD in its EXIF (our parser of sharp's EXIF block), no location in
 * ffprobe's tags. The corpus pictures are also re-encoded with a planted GPS position, camera and owner,
 * and stripped again: none of it survives. One pass over a stream gives the plan's bytes, or refuses
 * with ERR_NOT_SUPPORTED (a file whose metadata it cannot reach), never other bytes.
 */
import { readdir, readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { locateBinary } from '../../src/node/media/ffmpeg-binaries.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';
import { rejectionCodeOf } from '../helpers/errors.js';
import {
  holdsText,
  pictureExifTags,
  shownPixels,
  stripPlanned,
  stripThrough,
  videoFrames,
} from '../helpers/strip-check.js';
import { makeTempDir } from '../helpers/tmp.js';

const PICTURES = new Set(['.jpg', '.png', '.webp', '.apng', '.heic', '.heif', '.avif']);
const VIDEOS = new Set(['.mp4', '.mov', '.m4v', '.3gp']);

async function corpusFiles(): Promise<string[]> {
  if (!hasCorpus) return [];
  const files: string[] = [];
  for (const dir of ['media/file-type', 'media/small']) {
    for (const name of await readdir(corpusPath(dir))) {
      const ext = extname(name).toLowerCase();
      if (PICTURES.has(ext) || VIDEOS.has(ext)) files.push(`${dir}/${name}`);
    }
  }
  return files.sort();
}

const files = await corpusFiles();
const planted = {
  IFD0: { Make: 'PlantedMake', Model: 'PlantedModel', Artist: 'Planted Owner' },
  IFD3: {
    GPSLatitudeRef: 'N',
    GPSLatitude: '48/1 51/1 2964/100',
    GPSLongitudeRef: 'E',
    GPSLongitude: '2/1 17/1 4000/100',
  },
};

/** The decoded result, or undefined when the original itself does not decode. */
async function orNothing<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch {
    return undefined;
  }
}

describe.skipIf(!hasCorpus)('metadata stripping on the real-world corpus', () => {
  it.each(files)('%s: same size, same pixels or frames, no GPS', async (file) => {
    const tmp = await makeTempDir('happy-media-strip-corpus-');
    try {
      const original = new Uint8Array(await readFile(corpusPath(file)));
      const stripped = await stripPlanned(original);
      expect(stripped.length).toBe(original.length);
      const single = await stripThrough(original, 4096).catch((error: unknown) => error);
      if (single instanceof Uint8Array) expect(Buffer.from(single).equals(Buffer.from(stripped))).toBe(true);
      else expect(await rejectionCodeOf(Promise.reject(single))).toBe('ERR_NOT_SUPPORTED');
      const name = file.replaceAll('/', '_');
      if (VIDEOS.has(extname(file).toLowerCase())) {
        const ffmpeg = locateBinary('ffmpeg').path;
        const ffprobe = locateBinary('ffprobe').path;
        const before = await orNothing(() => videoFrames(ffmpeg, ffprobe, original, tmp.dir, `a-${name}`));
        if (before === undefined) return;
        const after = await videoFrames(ffmpeg, ffprobe, stripped, tmp.dir, `b-${name}`);
        expect(after.frames).toBe(before.frames);
        expect(after.tags).not.toMatch(/location|ISO6709/);
        return;
      }
      const pixels = await orNothing(() => shownPixels(original, tmp.dir, `a-${name}`));
      if (pixels !== undefined)
        expect((await shownPixels(stripped, tmp.dir, `b-${name}`)).equals(pixels)).toBe(true);
      const exif = await orNothing(() => pictureExifTags(stripped));
      expect(exif?.tags.gps ?? []).toEqual([]);
    } finally {
      await tmp.cleanup();
    }
  });

  it.each(files.filter((file) => ['.jpg', '.png', '.webp'].includes(extname(file).toLowerCase())))(
    '%s with a planted GPS position, camera and owner: none of it survives, the pixels do',
    async (file) => {
      const source = new Uint8Array(await readFile(corpusPath(file)));
      const format = extname(file).slice(1).replace('jpg', 'jpeg') as 'jpeg' | 'png' | 'webp';
      const withGps = await orNothing(
        async () => new Uint8Array(await sharp(source).withExif(planted).toFormat(format).toBuffer()),
      );
      if (withGps === undefined) return; // the corpus file does not decode (a damaged sample)
      expect((await pictureExifTags(withGps)).tags.gps.length).toBeGreaterThan(0);
      const stripped = await stripPlanned(withGps);
      const { tags } = await pictureExifTags(stripped);
      expect(tags.gps).toEqual([]);
      for (const text of ['PlantedMake', 'PlantedModel', 'Planted Owner'])
        expect(holdsText(stripped, text)).toBe(false);
      const tmp = await makeTempDir('happy-media-strip-planted-');
      try {
        expect(
          (await shownPixels(stripped, tmp.dir, 'b')).equals(await shownPixels(withGps, tmp.dir, 'a')),
        ).toBe(true);
      } finally {
        await tmp.cleanup();
      }
    },
  );
});
