/**
 * Conformance of the universal `thumbhashFromImage` (pure-JS JPEG/PNG decoding, src/core/media) against
 * the external corpus (HAPPY_MEDIA_CORPUS, see ../shared/corpus/MANIFEST.md):
 * - thumbhash/image_vectors.json: the reference hashes of the sample pictures (sharp's RGBA after EXIF
 *   orientation, the reference encoder), within the ThumbHash's own rounding (one quantisation step);
 * - PngSuite's valid files and the JPEG/PNG files of media/index.csv: the same hash as the Node path
 *   (sharp) within one step;
 * - hostile JPEGs and PNGs (PngSuite's broken files, jpeg-decoder's crash tests, image-png's bug fixes):
 *   a hash or a typed error, never another exception.
 */
import { readdir, readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { HappyMediaError } from '../../src/core/errors.js';
import { thumbhashFromRgba } from '../../src/core/media/thumbhash.js';
import { thumbhashFromImage } from '../../src/core/media/thumbhash-image.js';
import { thumbhashFromImage as thumbhashWithSharp } from '../../src/node/media/index.js';
import { corpusPath, hasCorpus, readCorpusCsv, readCorpusJson } from '../helpers/corpus.js';
import { thumbhashSteps } from '../helpers/thumbhash-steps.js';

interface ImageVector {
  image: string;
  width: number;
  height: number;
  exifOrientation: number;
  expectedHashBase64: string;
}

/**
 * The Node path's steps with the embedded ICC profile ignored: sharp converts a profiled picture to sRGB
 * (e.g. an iPhone's Display P3), the universal decoders read the samples as sRGB (docs/media.md).
 */
async function sharpHashIgnoringIcc(bytes: Uint8Array): Promise<string> {
  const { data, info } = await sharp(bytes, { ignoreIcc: true, failOn: 'error' })
    .autoOrient()
    .resize({ width: 100, height: 100, fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  return thumbhashFromRgba(info.width, info.height, data);
}

async function filesIn(...parts: string[]): Promise<string[]> {
  const dir = corpusPath(...parts);
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.(png|jpe?g)$/i.test(e.name))
    .map((e) => `${e.parentPath}/${e.name}`)
    .sort();
}

describe.skipIf(!hasCorpus)('universal thumbhashFromImage on the corpus', () => {
  it('reproduces the reference hashes of the sample pictures within one step (EXIF orientation applied)', async () => {
    const { vectors } = await readCorpusJson<{ vectors: ImageVector[] }>('thumbhash', 'image_vectors.json');
    expect(vectors.length).toBeGreaterThanOrEqual(10);
    const results = [];
    for (const v of vectors) {
      const ours = await thumbhashFromImage(new Uint8Array(await readFile(corpusPath('thumbhash', v.image))));
      results.push({ image: v.image, steps: thumbhashSteps(ours, v.expectedHashBase64) });
    }
    expect(results.filter((r) => r.steps > 1)).toEqual([]);
    // The rotated one (orientation 6) really was turned: a wrong turn changes the layout (Infinity).
    expect(vectors.some((v) => v.exifOrientation !== 1)).toBe(true);
  });

  it('gives the Node path’s hash within one step for every valid PngSuite file and every corpus JPEG/PNG', async () => {
    const files = [
      ...(await filesIn('corrupt', 'pngsuite', 'valid-edge')),
      ...(await readCorpusCsv('media', 'index.csv'))
        .filter((row) => row.filetype_mime === 'image/png' || row.filetype_mime === 'image/jpeg')
        .filter((row) => !row.sharp_decode?.startsWith('ERR'))
        .map((row) => corpusPath('media', row.file!)),
    ];
    expect(files.length).toBeGreaterThanOrEqual(25);
    const results = [];
    const refused: string[] = [];
    const profiled: string[] = [];
    for (const file of files) {
      const bytes = new Uint8Array(await readFile(file));
      let sharpHash: string;
      try {
        sharpHash = await thumbhashWithSharp(bytes);
      } catch {
        continue; // sharp refuses it too (e.g. a truncated file): nothing to compare
      }
      let ours: string;
      try {
        ours = await thumbhashFromImage(bytes, { maxInputPixels: 50_000_000 });
      } catch (error) {
        // The kinds refused by name (src/core/media/jpeg.ts, png.ts), pinned below.
        expect(error).toMatchObject({ code: 'ERR_PROBE_FAILED' });
        const kind = /arithmetic-coded|lossless|hierarchical/.exec((error as Error).message)?.[0];
        refused.push(`${file.slice(file.lastIndexOf('/') + 1)}: ${kind}`);
        continue;
      }
      const name = file.slice(file.indexOf('corpus/'));
      if ((await sharp(bytes).metadata()).hasProfile) {
        // Colour management is the one step the universal path leaves out: compare the same samples.
        profiled.push(name);
        sharpHash = await sharpHashIgnoringIcc(bytes);
      }
      results.push({ file: name, steps: thumbhashSteps(ours, sharpHash) });
    }
    expect(results.length).toBeGreaterThanOrEqual(25);
    expect(results.filter((r) => r.steps > 1)).toEqual([]);
    expect(refused).toEqual(['jpeg.jpg: arithmetic-coded']);
    expect(profiled).toEqual(['corpus/media/file-type/fixture.jpg']);
  });

  it('hostile JPEGs and PNGs give a hash or a typed error, never another exception', async () => {
    const files = [
      ...(await filesIn('corrupt', 'pngsuite', 'broken')),
      ...(await filesIn('corrupt', 'jpeg-decoder')),
      ...(await filesIn('corrupt', 'image-png-bugfixes')),
      ...(await filesIn('corrupt', 'derived-truncated')),
    ];
    expect(files.length).toBeGreaterThanOrEqual(30);
    const untyped: string[] = [];
    for (const file of files) {
      try {
        await thumbhashFromImage(new Uint8Array(await readFile(file)));
      } catch (error) {
        if (
          !(error instanceof HappyMediaError) ||
          !['ERR_PROBE_FAILED', 'ERR_LIMIT_EXCEEDED'].includes(error.code)
        ) {
          untyped.push(`${file}: ${String(error)}`);
        }
      }
    }
    expect(untyped).toEqual([]);
  });
});
