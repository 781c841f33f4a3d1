/**
 * HEIC/HEIF/AVIF photos of the real-world corpus (HAPPY_MEDIA_CORPUS) that carry a thumbnail item: the
 * probe takes their ThumbHash from the thumbnail and their size from the primary item's properties,
 * without decoding the picture. The quality bound: the hash is within one quantisation step of the one
 * the whole picture decoded by libheif gives (what the probe gave before), field by field, and the size
 * is the decoded size. Every corpus HEIF is checked for which path it takes, so a file that should use
 * its thumbnail and stops doing so fails here.
 */
import { open } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { heifDisplaySize } from '../../src/core/media/heif.js';
import { decodeHeicFile } from '../../src/node/media/heic.js';
import { chooseHeifThumbnail, readHeifLayout } from '../../src/node/media/heif-thumbnail.js';
import { thumbhashFromPixels } from '../../src/node/media/image.js';
import { probeMedia } from '../../src/node/media/index.js';
import { corpusPath, hasCorpus } from '../helpers/corpus.js';
import { thumbhashSteps } from '../helpers/thumbhash-steps.js';

/** Every HEIF still of the corpus, and whether it has a thumbnail item the probe can use. */
const HEIF_FILES: [string, boolean][] = [
  ['media/file-type/fixture-heic.heic', true], // an iPhone photo: 48 tiles, irot, 320×240 thumbnail
  ['media/file-type/fixture-mif1.heic', true], // 1440×960 with a 240×160 thumbnail
  ['media/small/heif.heif', false], // 64×64, no thumbnail
  ['media/file-type/fixture-yuv420-8bit.avif', false],
];

describe.skipIf(!hasCorpus)('HEIF thumbnails on the real-world corpus', () => {
  it.each(HEIF_FILES)('%s (thumbnail used: %s)', async (file, usesThumbnail) => {
    const path = corpusPath(file);
    const handle = await open(path, 'r');
    let uses = false;
    try {
      const layout = await readHeifLayout(handle, (await handle.stat()).size);
      const primary = layout?.meta.primary;
      const shown = layout && primary !== undefined ? heifDisplaySize(layout.meta, primary) : undefined;
      uses =
        layout !== undefined && shown !== undefined && chooseHeifThumbnail(layout.meta, shown) !== undefined;
    } finally {
      await handle.close();
    }
    expect(uses).toBe(usesThumbnail);
    if (!usesThumbnail) return;
    const probe = await probeMedia(path, { heifDecPath: false });
    const decoded = await decodeHeicFile(path, { maxBytes: 1 << 30, maxPixels: 1 << 30 });
    const full = await thumbhashFromPixels(decoded.width, decoded.height, decoded.rgba);
    expect({ width: probe.width, height: probe.height }).toEqual({
      width: decoded.width,
      height: decoded.height,
    });
    expect(thumbhashSteps(probe.thumbhash!, full), `${probe.thumbhash} vs ${full}`).toBeLessThanOrEqual(1);
  });
});
