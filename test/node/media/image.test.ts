import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { thumbHashToApproximateAspectRatio, thumbHashToAverageRGBA, thumbHashToRGBA } from 'thumbhash';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64 } from '../../../src/core/bytes.js';
import { probeMedia, thumbhashFromImage } from '../../../src/node/media/index.js';
import { makeTempDir } from '../../helpers/tmp.js';
import { sample, samplesDir } from './samples.js';

const RED = [220, 30, 30];
const GREEN = [30, 200, 30];
const BLUE = [30, 30, 220];
const YELLOW = [230, 230, 40];
// The samples store one landscape picture (red TL, green TR, blue BL, yellow BR) tagged with EXIF
// orientation 1-8; this is the colour a viewer shows at the top-left corner for each.
const TOP_LEFT_SHOWN = {
  1: RED,
  2: GREEN,
  3: YELLOW,
  4: BLUE,
  5: RED,
  6: BLUE,
  7: YELLOW,
  8: GREEN,
} as const;

function nearest(pixel: number[]): number[] {
  const palette = [RED, GREEN, BLUE, YELLOW];
  const dist = (c: number[]) => c.reduce((s, v, i) => s + (v - pixel[i]!) ** 2, 0);
  return palette.reduce((a, b) => (dist(a) <= dist(b) ? a : b));
}

/** Average colour (0-255) and alpha (0-1) of an image, computed by sharp independently of our pipeline. */
async function imageAverage(path: string) {
  const { data, info } = await sharp(path)
    .toColourspace('srgb')
    .ensureAlpha()
    .raw({ depth: 'uchar' })
    .toBuffer({
      resolveWithObject: true,
    });
  const sum = [0, 0, 0, 0];
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3]! / 255;
    for (let c = 0; c < 3; c++) sum[c]! += data[i + c]! * a;
    sum[3]! += a;
  }
  const n = info.width * info.height;
  return { r: sum[0]! / sum[3]!, g: sum[1]! / sum[3]!, b: sum[2]! / sum[3]!, a: sum[3]! / n };
}

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  await samplesDir();
  tmp = await makeTempDir();
});
afterAll(() => tmp.cleanup());

describe('photos: size after EXIF orientation, pixels oriented the same way', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8] as const)('orientation %i', async (o) => {
    const probe = await probeMedia(sample(`jpeg-orientation-${o}.jpg`));
    expect(probe.kind).toBe('photo');
    expect(probe.mimeType).toBe('image/jpeg');
    expect([probe.width, probe.height]).toEqual(o >= 5 ? [32, 48] : [48, 32]);
    const hash = fromBase64(probe.thumbhash!);
    expect(thumbHashToApproximateAspectRatio(hash)).toBeCloseTo(probe.width! / probe.height!, 0);
    const { w, rgba } = thumbHashToRGBA(hash);
    // Sample inside the top-left quadrant of the decoded placeholder.
    const x = Math.floor(w / 8);
    const y = Math.floor(rgba.length / 4 / w / 8);
    const at = (y * w + x) * 4;
    expect(nearest([rgba[at]!, rgba[at + 1]!, rgba[at + 2]!])).toEqual(TOP_LEFT_SHOWN[o]);
  });
});

describe('photos: the placeholder looks like the picture', () => {
  it.each([
    ['png-alpha.png', 64, 64],
    ['png-16bit.png', 64, 32],
    ['jpeg-cmyk.jpg', 64, 40],
    ['image.avif', 60, 40],
    ['image.tiff', 60, 40],
    ['image.webp', 60, 40],
    ['jpeg-orientation-1.jpg', 48, 32],
  ])('%s: size, average colour, alpha and aspect ratio', async (name, width, height) => {
    const probe = await probeMedia(sample(name));
    expect(probe).toMatchObject({ kind: 'photo', width, height });
    const hash = fromBase64(probe.thumbhash!);
    const avg = thumbHashToAverageRGBA(hash);
    const truth = await imageAverage(sample(name));
    // ThumbHash keeps the average colour to within a few quantisation steps.
    expect(Math.abs(avg.r * 255 - truth.r)).toBeLessThan(24);
    expect(Math.abs(avg.g * 255 - truth.g)).toBeLessThan(24);
    expect(Math.abs(avg.b * 255 - truth.b)).toBeLessThan(24);
    expect(Math.abs(avg.a - truth.a)).toBeLessThan(0.1);
    expect(thumbHashToApproximateAspectRatio(hash)).toBeCloseTo(width / height, 0);
  });

  it('keeps alpha: the half-transparent PNG decodes half transparent', async () => {
    const probe = await probeMedia(sample('png-alpha.png'));
    expect(thumbHashToAverageRGBA(fromBase64(probe.thumbhash!)).a).toBeCloseTo(0.5, 1);
  });

  it('takes the first frame and one frame size of animated GIF and WebP', async () => {
    for (const name of ['animated.gif', 'animated.webp']) {
      const probe = await probeMedia(sample(name));
      expect(probe).toMatchObject({ kind: 'photo', width: 64, height: 48 });
      const first = await sharp(sample(name), { pages: 1 }).ensureAlpha().raw().toBuffer();
      const expected = await thumbhashFromImage(
        await sharp(first, { raw: { width: 64, height: 48, channels: 4 } })
          .png()
          .toBuffer(),
      );
      expect(probe.thumbhash).toBe(expected);
    }
  });

  it('thumbhashFromImage agrees with probeMedia for a path and for a buffer', async () => {
    const path = sample('image.webp');
    const probe = await probeMedia(path);
    expect(await thumbhashFromImage(path)).toBe(probe.thumbhash);
    expect(await thumbhashFromImage(new Uint8Array(await readFile(path)))).toBe(probe.thumbhash);
  });

  it('decodes formats sharp cannot (BMP) through ffmpeg', async () => {
    const probe = await probeMedia(sample('image.bmp'));
    expect(probe).toMatchObject({ kind: 'photo', mimeType: 'image/bmp', width: 40, height: 30 });
    expect(probe.thumbhash).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });
});

describe('SVG', () => {
  it('is a photo with its declared size', async () => {
    const probe = await probeMedia(sample('image.svg'));
    expect(probe).toMatchObject({ kind: 'photo', mimeType: 'image/svg+xml', width: 120, height: 60 });
  });

  it('never loads referenced files (relative or file://) or URLs', async () => {
    await sharp({ create: { width: 40, height: 40, channels: 3, background: '#ff0000' } })
      .png()
      .toFile(join(tmp.dir, 'red.png'));
    const svg = (href: string) =>
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40">` +
      `<rect width="40" height="40" fill="#0000ff"/><image width="40" height="40" xlink:href="${href}"/></svg>`;
    for (const [i, href] of [
      'red.png',
      `file://${join(tmp.dir, 'red.png')}`,
      'http://127.0.0.1:9/red.png',
    ].entries()) {
      const path = join(tmp.dir, `ref-${i}.svg`);
      await writeFile(path, svg(href));
      const probe = await probeMedia(path);
      expect(probe.kind).toBe('photo');
      const avg = thumbHashToAverageRGBA(fromBase64(probe.thumbhash!));
      // Still the blue rectangle: the red picture was not read.
      expect(avg.b).toBeGreaterThan(0.7);
      expect(avg.r).toBeLessThan(0.3);
    }
  });

  it('refuses entity expansion bombs: a file with a warning, quickly', async () => {
    const levels = ['<!ENTITY a "aaaaaaaaaa">'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      levels.push(`<!ENTITY ${String.fromCharCode(97 + i)} "${`&${prev};`.repeat(10)}">`);
    }
    const path = join(tmp.dir, 'bomb.svg');
    await writeFile(
      path,
      `<?xml version="1.0"?><!DOCTYPE s [${levels.join('')}]><svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><text>&i;</text></svg>`,
    );
    const probe = await probeMedia(path);
    expect(probe.kind).toBe('file');
    expect(probe.mimeType).toBe('image/svg+xml');
    expect(probe.warning).toMatch(/ERR_PROBE_FAILED/);
  });

  it('sends an SVG above maxSvgBytes as a file with a limit warning', async () => {
    const probe = await probeMedia(sample('image.svg'), { maxSvgBytes: 100 });
    expect(probe.kind).toBe('file');
    expect(probe.warning).toMatch(/ERR_LIMIT_EXCEEDED.*maxSvgBytes/);
  });
});

describe('undecodable or oversized images degrade to a file with a warning', () => {
  it('a PNG cut in half', async () => {
    const probe = await probeMedia(sample('truncated.png'));
    expect(probe).toMatchObject({ kind: 'file', mimeType: 'image/png', name: 'truncated.png' });
    expect(probe.warning).toMatch(/ERR_PROBE_FAILED/);
    expect(probe.thumbhash).toBeUndefined();
    expect(probe.width).toBeUndefined();
  });

  it('an image above maxInputPixels', async () => {
    const probe = await probeMedia(sample('jpeg-orientation-1.jpg'), { maxInputPixels: 48 * 32 - 1 });
    expect(probe.kind).toBe('file');
    expect(probe.warning).toMatch(/ERR_LIMIT_EXCEEDED: expected at most 1535 pixels \(maxInputPixels\)/);
    const atLimit = await probeMedia(sample('jpeg-orientation-1.jpg'), { maxInputPixels: 48 * 32 });
    expect(atLimit.kind).toBe('photo');
  });

  it('thumbhashFromImage refuses a generated PNG over a small maxInputPixels from its header', async () => {
    const png = await sharp({
      create: { width: 20, height: 10, channels: 3, background: { r: 200, g: 30, b: 30 } },
    })
      .png()
      .toBuffer();
    const error = await thumbhashFromImage(new Uint8Array(png), { maxInputPixels: 199 }).catch((e) => e);
    expect(error).toMatchObject({ code: 'ERR_LIMIT_EXCEEDED', name: 'LimitError' });
    expect(error.message).toMatch(/at most 199 pixels \(maxInputPixels\).* 20×10/);
    // Our own check, not sharp's wording: no sharp error behind it.
    expect(error.cause).toBeUndefined();
    expect(await thumbhashFromImage(new Uint8Array(png), { maxInputPixels: 200 })).toMatch(
      /^[A-Za-z0-9+/]+=*$/,
    );
  });

  it('thumbhashFromImage throws typed errors instead', async () => {
    await expect(thumbhashFromImage(sample('truncated.png'))).rejects.toMatchObject({
      code: 'ERR_PROBE_FAILED',
    });
    await expect(thumbhashFromImage(new Uint8Array([1, 2, 3]))).rejects.toMatchObject({
      code: 'ERR_PROBE_FAILED',
    });
  });
});
