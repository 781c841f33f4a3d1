/**
 * HEIC/HEIF whose primary item is a derived image (issue 24, item 6a): a `grid` or `iovl` overlay of
 * four HEVC tiles, built here (`heif-builder.ts`, tiles encoded by ffmpeg's libx265). Whatever the
 * tiles' hidden flag and wherever the primary item sits in the item list, the probe reports the whole
 * picture's size and hashes the whole picture. Before, tiles not marked hidden came first among libheif's
 * top-level images and a 960×640 photo was reported as 480×320 with one red tile's hash.
 */

import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { thumbHashToAverageRGBA } from 'thumbhash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64 } from '../../../src/core/bytes.js';
import { heifDecoderBinary, locateBinary } from '../../../src/node/media/ffmpeg-binaries.js';
import { decodeHeicFile } from '../../../src/node/media/heic.js';
import { thumbhashFromPixels } from '../../../src/node/media/image.js';
import { probeMedia } from '../../../src/node/media/index.js';
import { thumbhashSteps } from '../../helpers/thumbhash-steps.js';
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

/** The average colour of a ThumbHash, channels 0–1. */
function averageOf(thumbhash: string) {
  return thumbHashToAverageRGBA(fromBase64(thumbhash, 'thumbhash'));
}

/** The ThumbHash of the whole picture decoded by libheif (WebAssembly), the probe's reference. */
async function fullDecodeHash(path: string): Promise<string> {
  const decoded = await decodeHeicFile(path, { maxBytes: 1 << 30, maxPixels: 1 << 30 });
  return thumbhashFromPixels(decoded.width, decoded.height, decoded.rgba);
}

async function built(name: string, options: Partial<DerivedHeifOptions>): Promise<string> {
  const path = join(tmp.dir, `${name}.heic`);
  const layout: DerivedHeifOptions = { kind: 'grid', hiddenTiles: true, primary: 'first', ...options };
  await writeFile(path, await buildDerivedHeif(locateBinary('ffmpeg').path, tmp.dir, layout));
  return path;
}

describe('HEIF with a thumbnail item: the ThumbHash from the thumbnail, the size from the properties', () => {
  it('hashes the thumbnail, not the picture (a red thumbnail beside four colours gives a red hash)', async () => {
    const path = await built('red-thumbnail', { thumbnail: { width: 240, height: 160, colour: 'red' } });
    const probe = await probeMedia(path, { heifDecPath: false });
    expect(probe).toMatchObject({ kind: 'photo', width: DERIVED_SIZE.width, height: DERIVED_SIZE.height });
    const { r, g, b } = averageOf(probe.thumbhash!);
    expect(r).toBeGreaterThan(0.8);
    expect(Math.max(g, b)).toBeLessThan(0.2);
  });

  it.each([1, 3] as const)(
    'a picture turned %i quarter(s): the size is swapped and the hash is the full decode’s within one step',
    async (rotation) => {
      const path = await built(`turned-${rotation}`, { rotation, thumbnail: { width: 240, height: 160 } });
      const probe = await probeMedia(path, { heifDecPath: false });
      expect(probe).toMatchObject({ width: DERIVED_SIZE.height, height: DERIVED_SIZE.width });
      expect(thumbhashSteps(probe.thumbhash!, await fullDecodeHash(path))).toBeLessThanOrEqual(1);
    },
  );

  it.each([
    ['of another shape', { width: 200, height: 200, colour: 'red' }],
    ['smaller than the ThumbHash input', { width: 60, height: 40, colour: 'red' }],
  ])('does not use a thumbnail %s: the picture is decoded', async (_what, thumbnail) => {
    const path = await built(`unused-${thumbnail.width}`, { thumbnail });
    const probe = await probeMedia(path, { heifDecPath: false });
    expect(probe).toMatchObject({ width: DERIVED_SIZE.width, height: DERIVED_SIZE.height });
    expect(probe.thumbhash).toBe(await fullDecodeHash(path));
  });
});

describe('HEIF without a thumbnail: the system decoder (heif-dec) when there is one', () => {
  /** A stand-in heif-dec: runs `body` with the input as $3 and the output as $4 (`-q 90 IN OUT`). */
  async function fakeDecoder(name: string, body: string): Promise<string> {
    const path = join(tmp.dir, name);
    await writeFile(path, `#!/bin/sh\n${body}\n`);
    await chmod(path, 0o700);
    return path;
  }

  it('uses it for a picture of a megapixel or more, and falls back to WebAssembly when it fails', async () => {
    const path = await built('big', { scale: 2 });
    const reference = await fullDecodeHash(path);
    // A decoder that writes a red picture: its output is what the probe hashed.
    const red = join(tmp.dir, 'red.jpg');
    const sharp = (await import('sharp')).default;
    await sharp({ create: { width: 1920, height: 1280, channels: 3, background: 'red' } })
      .jpeg()
      .toFile(red);
    const writesRed = await fakeDecoder('writes-red', `cp "${red}" "$4"`);
    const viaFake = await probeMedia(path, { heifDecPath: writesRed });
    expect(averageOf(viaFake.thumbhash!).r).toBeGreaterThan(0.8);
    // One that fails, one that writes nothing, one that crashes: the WebAssembly decoder's result.
    for (const body of ['exit 1', 'exit 0', 'kill -SEGV $$']) {
      const broken = await fakeDecoder(`broken-${body.length}`, body);
      const probe = await probeMedia(path, { heifDecPath: broken });
      expect(probe).toMatchObject({ kind: 'photo', width: 1920, height: 1280, thumbhash: reference });
    }
  });

  it.skipIf(heifDecoderBinary() === undefined)(
    'the system’s own heif-dec gives the WebAssembly decode’s hash within one step',
    async () => {
      const path = await built('big-real', { scale: 2 });
      const probe = await probeMedia(path);
      expect(probe).toMatchObject({ kind: 'photo', width: 1920, height: 1280 });
      expect(thumbhashSteps(probe.thumbhash!, await fullDecodeHash(path))).toBeLessThanOrEqual(1);
    },
  );
});
