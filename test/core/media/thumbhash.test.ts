import { thumbHashToApproximateAspectRatio, thumbHashToAverageRGBA } from 'thumbhash';
import { describe, expect, it } from 'vitest';
import { fromBase64 } from '../../../src/core/bytes.js';
import { thumbhashFromRgba, thumbhashInputSize } from '../../../src/core/media/index.js';

// Golden figures from the reference encoder (npm thumbhash 0.1.1 == evanw/thumbhash js/thumbhash.js),
// as published in the corpus's thumbhash/rgba_vectors.json; the full set runs in test/conformance.
const GOLDEN = [
  { name: '1x1 opaque red', w: 1, h: 1, rgba: [255, 0, 0, 255], hash: '1fsrB38I9wiIh4hwj3CI+AiIgIAICIgA' },
  { name: '1x1 transparent', w: 1, h: 1, rgba: [0, 0, 0, 0], hash: 'AAiCBQAAAAAAAAAAAAAAAAAAAAAAAAAAAA==' },
  {
    name: '3x3 white',
    w: 3,
    h: 3,
    rgba: new Array(9).fill([255, 255, 255, 255]).flat(),
    hash: 'Pwh+BwB4eAiIiIiHiIiIeIiIAAAAAAAA',
  },
];

describe('thumbhashFromRgba', () => {
  it.each(GOLDEN)('matches the reference encoder: $name', ({ w, h, rgba, hash }) => {
    expect(thumbhashFromRgba(w, h, new Uint8Array(rgba))).toBe(hash);
  });

  it('reads pixels from a view at a non-zero offset', () => {
    const backing = new Uint8Array([9, 9, 9, 255, 0, 0, 255]);
    expect(thumbhashFromRgba(1, 1, backing.subarray(3))).toBe(GOLDEN[0]!.hash);
  });

  it('decodes to the colour and aspect ratio it was given', () => {
    const w = 80;
    const h = 40;
    const rgba = new Uint8Array(w * h * 4);
    for (let i = 0; i < w * h; i++) rgba.set([40, 160, 90, 255], i * 4);
    const hash = fromBase64(thumbhashFromRgba(w, h, rgba));
    const avg = thumbHashToAverageRGBA(hash);
    expect(avg.r * 255).toBeCloseTo(40, -1);
    expect(avg.g * 255).toBeCloseTo(160, -1);
    expect(avg.b * 255).toBeCloseTo(90, -1);
    expect(thumbHashToApproximateAspectRatio(hash)).toBeCloseTo(2, 0);
  });

  it('rejects sizes the encoder cannot take and pixel buffers of the wrong length', () => {
    expect(() => thumbhashFromRgba(101, 1, new Uint8Array(404))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
    expect(() => thumbhashFromRgba(0, 0, new Uint8Array(0))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARGUMENT' }),
    );
    expect(() => thumbhashFromRgba(2, 2, new Uint8Array(15))).toThrow(
      /16-byte value for `rgba` but received 15/,
    );
  });
});

describe('thumbhashInputSize', () => {
  it('fits inside 100x100, keeps the aspect ratio and never enlarges', () => {
    expect(thumbhashInputSize(4000, 3000)).toEqual({ width: 100, height: 75 });
    expect(thumbhashInputSize(3024, 4032)).toEqual({ width: 75, height: 100 });
    expect(thumbhashInputSize(64, 48)).toEqual({ width: 64, height: 48 });
    expect(thumbhashInputSize(1, 1)).toEqual({ width: 1, height: 1 });
    expect(thumbhashInputSize(10000, 1)).toEqual({ width: 100, height: 1 });
  });
});
