/**
 * HEIC/HEIF whose primary item is a derived image (issue 24, item 6a): a `grid` or `iovl` overlay of
 * four HEVC tiles, built here (`heif-builder.ts`, tiles encoded by ffmpeg's libx265). Whatever the
 * tiles' hidden flag and wherever the primary item sits in the item list, the probe reports the whole
 * picture's size and hashes the whole picture. Before, tiles not marked hidden came first among libheif's
 * top-level images and a 960×640 photo was reported as 480×320 with one red tile's hash.
 */

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { thumbHashToAverageRGBA } from 'thumbhash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64 } from '../../../src/core/bytes.js';
import { locateBinary } from '../../../src/node/media/ffmpeg-binaries.js';
import { probeMedia } from '../../../src/node/media/index.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { buildDerivedHeif, DERIVED_SIZE, type DerivedHeifOptions } from './heif-builder.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTempDir('happy-media-heic-');
});
afterAll(() => tmp.cleanup());

const layouts: DerivedHeifOptions[] = [];
for (const kind of ['grid', 'iovl'] as const) {
  for (const hiddenTiles of [true, false]) {
    for (const primary of ['first', 'last'] as const) layouts.push({ kind, hiddenTiles, primary });
  }
}

describe('HEIF with a derived primary image', () => {
  it.each(layouts)(
    '$kind primary ($primary in the item list), tiles hidden: $hiddenTiles → the whole 960×640 picture',
    async (layout) => {
      const path = join(tmp.dir, `${layout.kind}-${layout.hiddenTiles}-${layout.primary}.heic`);
      await writeFile(path, await buildDerivedHeif(locateBinary('ffmpeg').path, tmp.dir, layout));
      const probe = await probeMedia(path);
      expect(probe).toMatchObject({
        kind: 'photo',
        mimeType: 'image/heic',
        width: DERIVED_SIZE.width,
        height: DERIVED_SIZE.height,
      });
      const hash = fromBase64(probe.thumbhash!, 'thumbhash');
      // Red, green, blue and white tiles average to a light grey; a single tile would be pure red.
      const { r, g, b } = thumbHashToAverageRGBA(hash);
      for (const channel of [r, g, b]) expect(Math.abs(channel - 0.5)).toBeLessThan(0.15);
    },
    60_000,
  );
});
