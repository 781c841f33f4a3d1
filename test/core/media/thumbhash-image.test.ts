/**
 * The universal `thumbhashFromImage` (pure-JS JPEG and PNG decoding) on small pictures generated here,
 * against the Node path (sharp) on the same files: the same hash within one quantisation step, every
 * EXIF orientation, every PNG colour type, shrinking of larger pictures, and the typed errors.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { fromBase64 } from '../../../src/core/bytes.js';
import { thumbhashFromImage } from '../../../src/core/media/thumbhash-image.js';
import { thumbhashFromImage as thumbhashWithSharp } from '../../../src/node/media/index.js';
import fixtures from '../../fixtures/thumbhash-images.json' with { type: 'json' };
import { rejectionCodeOf } from '../../helpers/errors.js';
import { thumbhashSteps } from '../../helpers/thumbhash-steps.js';

/** A picture with structure in every direction and colour: a diagonal gradient with a bright disc. */
function scene(width: number, height: number, alpha = false): Uint8Array {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      const inDisc = (x - width * 0.3) ** 2 + (y - height * 0.35) ** 2 < (Math.min(width, height) * 0.2) ** 2;
      rgba[o] = inDisc ? 250 : Math.round((255 * x) / width);
      rgba[o + 1] = inDisc ? 220 : Math.round((255 * y) / height);
      rgba[o + 2] = inDisc ? 40 : 160;
      rgba[o + 3] = alpha ? Math.round(255 * (1 - x / width)) : 255;
    }
  }
  return rgba;
}

function raw(width: number, height: number, alpha = false) {
  return sharp(scene(width, height, alpha), { raw: { width, height, channels: 4 } });
}

async function expectSameAsSharp(bytes: Uint8Array): Promise<void> {
  const ours = await thumbhashFromImage(bytes);
  const reference = await thumbhashWithSharp(bytes);
  expect(thumbhashSteps(ours, reference), `${ours} vs ${reference}`).toBeLessThanOrEqual(1);
}

/** A PNG chunk with its CRC-32 (to add what the encoders here do not write, such as tRNS). */
function chunk(type: string, data: Uint8Array): Uint8Array {
  const body = new Uint8Array([...type].map((c) => c.charCodeAt(0)).concat([...data]));
  let crc = 0xffffffff;
  for (const byte of body) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  crc = (crc ^ 0xffffffff) >>> 0;
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(body, 4);
  view.setUint32(8 + data.length, crc);
  return out;
}

/** Inserts `extra` before the first IDAT chunk of `png`. */
function insertBeforeIdat(png: Uint8Array, extra: Uint8Array): Uint8Array {
  const text = new TextDecoder('latin1').decode(png);
  const at = text.indexOf('IDAT') - 4;
  return new Uint8Array([...png.subarray(0, at), ...extra, ...png.subarray(at)]);
}

describe('thumbhashFromImage (universal)', () => {
  it.each([
    ['JPEG 4:2:0', () => raw(100, 75).jpeg({ quality: 90 })],
    ['JPEG 4:4:4', () => raw(75, 100).jpeg({ quality: 95, chromaSubsampling: '4:4:4' })],
    ['progressive JPEG', () => raw(100, 60).jpeg({ quality: 80, progressive: true })],
    ['grey JPEG', () => raw(80, 80).greyscale().jpeg()],
    ['PNG RGBA with an alpha gradient', () => raw(64, 48, true).png()],
    ['PNG RGB', () => raw(100, 100).removeAlpha().png()],
    ['PNG grey', () => raw(90, 30).greyscale().png()],
    ['PNG grey + alpha', () => raw(30, 90, true).greyscale().png()],
    ['PNG 16-bit', () => raw(50, 50).png().toColourspace('rgb16')],
    ['PNG palette', () => raw(100, 75).png({ palette: true })],
    ['PNG palette with alpha', () => raw(60, 60, true).png({ palette: true })],
    ['PNG interlaced', () => raw(100, 75).png({ progressive: true })],
    ['PNG 1-bit grey', () => raw(40, 40).greyscale().threshold(128).png({ palette: true, colours: 2 })],
  ])('%s: the Node path’s hash within one step', async (_name, make) => {
    await expectSameAsSharp(new Uint8Array(await make().toBuffer()));
  });

  it.each(fixtures.images)(
    'frozen fixture $name (also run under Hermes): same hash, sharp within one step',
    async ({ base64, hash }) => {
      const bytes = fromBase64(base64);
      expect(await thumbhashFromImage(bytes)).toBe(hash);
      expect(thumbhashSteps(hash, await thumbhashWithSharp(bytes))).toBeLessThanOrEqual(1);
    },
  );

  it('decodes interlaced images of 1 and 4 bits per sample (Adam7 below a byte)', async () => {
    const oneBit = raw(37, 29)
      .greyscale()
      .threshold(128)
      .png({ palette: true, colours: 2, progressive: true });
    const fourBit = raw(41, 23).png({ palette: true, colours: 16, progressive: true });
    await expectSameAsSharp(new Uint8Array(await oneBit.toBuffer()));
    await expectSameAsSharp(new Uint8Array(await fourBit.toBuffer()));
  });

  it('inflates no more than the header’s size, whatever the image data holds', async () => {
    // A 1×1 RGB PNG whose IDAT inflates to 1 MiB: only the first row is read.
    const { zlibSync } = await import('fflate');
    const ihdr = new Uint8Array([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
    const rows = new Uint8Array(1 << 20);
    rows.set([0, 10, 20, 30]);
    const png = new Uint8Array([
      0x89,
      0x50,
      0x4e,
      0x47,
      0x0d,
      0x0a,
      0x1a,
      0x0a,
      ...chunk('IHDR', ihdr),
      ...chunk('IDAT', zlibSync(rows)),
      ...chunk('IEND', new Uint8Array(0)),
    ]);
    expect(await thumbhashFromImage(png)).toBe(
      await thumbhashFromImage(
        new Uint8Array(
          await sharp(new Uint8Array([10, 20, 30]), { raw: { width: 1, height: 1, channels: 3 } })
            .png()
            .toBuffer(),
        ),
      ),
    );
  });

  it('stops inflating at the header’s size: the data past it is never inflated', async () => {
    // A 1×1 RGB PNG whose IDAT would inflate to 64 MiB, cut off three quarters in: inflating past the
    // first row would reach the cut and fail (fflate's one-shot inflate did, after decoding all of it).
    const { zlibSync } = await import('fflate');
    const rows = new Uint8Array(64 << 20);
    rows.set([0, 10, 20, 30]);
    const whole = zlibSync(rows, { level: 9 });
    const cut = whole.subarray(0, Math.floor(whole.length * 0.75));
    const png = (data: Uint8Array) =>
      new Uint8Array([
        ...[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
        ...chunk('IHDR', new Uint8Array([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0])),
        ...chunk('IDAT', data),
        ...chunk('IEND', new Uint8Array(0)),
      ]);
    const expected = await thumbhashWithSharp(
      await sharp(new Uint8Array([10, 20, 30]), { raw: { width: 1, height: 1, channels: 3 } })
        .png()
        .toBuffer(),
    );
    expect(thumbhashSteps(await thumbhashFromImage(png(cut)), expected)).toBe(0);
    expect(thumbhashSteps(await thumbhashFromImage(png(whole)), expected)).toBe(0);
    // Data that ends before the picture does is still refused.
    const twoRows = png(zlibSync(new Uint8Array([0, 1, 2, 3])));
    twoRows[16 + 7] = 2; // IHDR height 2 (its CRC is not checked, as sharp does not)
    expect(await rejectionCodeOf(thumbhashFromImage(twoRows))).toBe('ERR_PROBE_FAILED');
  });

  it.each([2, 3, 4, 5, 6, 7, 8])('applies EXIF orientation %i as sharp does', async (orientation) => {
    const jpeg = new Uint8Array(
      await raw(100, 60).jpeg({ quality: 95 }).withMetadata({ orientation }).toBuffer(),
    );
    const ours = await thumbhashFromImage(jpeg);
    expect(thumbhashSteps(ours, await thumbhashWithSharp(jpeg))).toBeLessThanOrEqual(1);
    // Ignoring the tag would give another picture: not within one step of the oriented one.
    const unrotated = await thumbhashFromImage(
      new Uint8Array(await raw(100, 60).jpeg({ quality: 95 }).toBuffer()),
    );
    expect(thumbhashSteps(ours, unrotated)).toBeGreaterThan(1);
  });

  it('applies a key colour (tRNS) of a truecolour PNG as transparency', async () => {
    const plain = new Uint8Array(
      await sharp(scene(40, 40), { raw: { width: 40, height: 40, channels: 4 } })
        .removeAlpha()
        .png()
        .toBuffer(),
    );
    // The disc's colour becomes transparent.
    const keyed = insertBeforeIdat(plain, chunk('tRNS', new Uint8Array([0, 250, 0, 220, 0, 40])));
    await expectSameAsSharp(keyed);
    expect(thumbhashSteps(await thumbhashFromImage(keyed), await thumbhashFromImage(plain))).toBe(
      Number.POSITIVE_INFINITY, // one has alpha, the other not
    );
  });

  it('shrinks a larger picture to ≤ 100 px by area averaging, as sharp’s resize within one step', async () => {
    await expectSameAsSharp(new Uint8Array(await raw(640, 427).jpeg({ quality: 90 }).toBuffer()));
    await expectSameAsSharp(new Uint8Array(await raw(333, 1000, true).png().toBuffer()));
  });

  it('reads a view at a non-zero offset', async () => {
    const png = new Uint8Array(await raw(20, 20).png().toBuffer());
    const padded = new Uint8Array(png.length + 3);
    padded.set(png, 3);
    expect(await thumbhashFromImage(padded.subarray(3))).toBe(await thumbhashFromImage(png));
  });

  it('refuses other formats by name with ERR_PROBE_FAILED', async () => {
    for (const [format, make] of [
      ['WebP', () => raw(20, 20).webp()],
      ['GIF', () => raw(20, 20).gif()],
      ['TIFF', () => raw(20, 20).tiff()],
      ['AVIF', () => raw(20, 20).avif()],
    ] as const) {
      const bytes = new Uint8Array(await make().toBuffer());
      await expect(thumbhashFromImage(bytes)).rejects.toMatchObject({
        code: 'ERR_PROBE_FAILED',
        message: expect.stringContaining(`received ${format}`),
      });
    }
    const heic = new Uint8Array([0, 0, 0, 24, ...new TextEncoder().encode('ftypheic'), 0, 0, 0, 0]);
    await expect(thumbhashFromImage(heic)).rejects.toMatchObject({
      code: 'ERR_PROBE_FAILED',
      message: expect.stringContaining('HEIC'),
    });
    expect(await rejectionCodeOf(thumbhashFromImage(new TextEncoder().encode('hello')))).toBe(
      'ERR_PROBE_FAILED',
    );
    expect(await rejectionCodeOf(thumbhashFromImage(new Uint8Array(0)))).toBe('ERR_PROBE_FAILED');
  });

  it('refuses damaged pictures with ERR_PROBE_FAILED', async () => {
    const jpeg = new Uint8Array(await raw(100, 75).jpeg().toBuffer());
    const png = new Uint8Array(await raw(100, 75).png().toBuffer());
    const badDepth = png.slice();
    badDepth[24] = 3; // no colour type has 3-bit samples
    for (const bytes of [
      jpeg.subarray(0, 40),
      png.subarray(0, 30),
      png.subarray(0, png.length / 2),
      badDepth,
    ]) {
      expect(await rejectionCodeOf(thumbhashFromImage(bytes))).toBe('ERR_PROBE_FAILED');
    }
    // A palette image without its palette.
    const palette = new Uint8Array(await raw(8, 8).png({ palette: true }).toBuffer());
    const at = new TextDecoder('latin1').decode(palette).indexOf('PLTE') - 4;
    const length = new DataView(palette.buffer, palette.byteOffset).getUint32(at);
    const noPalette = new Uint8Array([...palette.subarray(0, at), ...palette.subarray(at + 12 + length)]);
    expect(await rejectionCodeOf(thumbhashFromImage(noPalette))).toBe('ERR_PROBE_FAILED');
  });

  it('checks the pixel limit from the header, before decoding anything', async () => {
    const big = new Uint8Array(await raw(300, 200).png().toBuffer());
    expect(await rejectionCodeOf(thumbhashFromImage(big, { maxInputPixels: 300 * 200 - 1 }))).toBe(
      'ERR_LIMIT_EXCEEDED',
    );
    // A header that claims 5000 × 5000 with no pixel data: the limit, not a decoding error.
    const claim = new Uint8Array(await raw(10, 10).jpeg().toBuffer());
    const sof = claim.findIndex((b, i) => b === 0xff && claim[i + 1] === 0xc0);
    claim.set([5000 >> 8, 5000 & 255, 5000 >> 8, 5000 & 255], sof + 5);
    expect(await rejectionCodeOf(thumbhashFromImage(claim.subarray(0, sof + 20)))).toBe('ERR_LIMIT_EXCEEDED');
    expect(await thumbhashFromImage(big, { maxInputPixels: 300 * 200 })).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });

  it('refuses a non-byte argument and a bad limit with ERR_INVALID_ARGUMENT', async () => {
    expect(await rejectionCodeOf(thumbhashFromImage('photo.jpg' as unknown as Uint8Array))).toBe(
      'ERR_INVALID_ARGUMENT',
    );
    const png = new Uint8Array(await raw(4, 4).png().toBuffer());
    expect(await rejectionCodeOf(thumbhashFromImage(png, { maxInputPixels: -1 }))).toBe(
      'ERR_INVALID_ARGUMENT',
    );
  });
});
