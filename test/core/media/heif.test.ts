/**
 * The HEIF `meta` reader (universal): items, locations, references and properties read without decoding,
 * the displayed size from `ispe`, `clap` and `irot` in association order, and typed errors for boxes that
 * are cut short or list absurd counts.
 */
import { describe, expect, it } from 'vitest';
import { concatBytes } from '../../../src/core/bytes.js';
import {
  heifDisplaySize,
  heifHasAlpha,
  heifItemsReferring,
  parseHeifMeta,
} from '../../../src/core/media/heif.js';
import { rejectionCodeOf } from '../../helpers/errors.js';

const u8 = (n: number) => new Uint8Array([n]);
const u16 = (n: number) => new Uint8Array([n >> 8, n & 255]);
const u32 = (n: number) => new Uint8Array([n >>> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255]);
const text = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const box = (type: string, ...parts: Uint8Array[]) => {
  const body = concatBytes(...parts);
  return concatBytes(u32(8 + body.length), text(type), body);
};
const full = (type: string, version: number, flags: number, ...parts: Uint8Array[]) =>
  box(type, u8(version), u8(0), u16(flags), ...parts);

/** A meta box: item 1 (hvc1) with the given properties in that order, item 2 its thumbnail, item 3 alpha. */
function meta(properties: Uint8Array[], extra: Uint8Array[] = []): Uint8Array {
  const infe = (id: number, type: string, flags = 0) =>
    full('infe', 2, flags, u16(id), u16(0), text(type), u8(0));
  return full(
    'meta',
    0,
    0,
    full('hdlr', 0, 0, u32(0), text('pict'), u32(0), u32(0), u32(0), u8(0)),
    full('pitm', 0, 0, u16(1)),
    full('iinf', 0, 0, u16(3), infe(1, 'hvc1'), infe(2, 'hvc1'), infe(3, 'hvc1', 1)),
    full(
      'iloc',
      1,
      0,
      u8(0x44), // 4-byte offsets and lengths
      u8(0x40), // 4-byte base offset, no index
      u16(1), // one item
      u16(1), // item 1
      u16(0), // construction method 0: in the file
      u16(0), // this file
      u32(1000), // base offset
      u16(1),
      u32(8),
      u32(20),
    ),
    full('iref', 0, 0, box('thmb', u16(2), u16(1), u16(1)), box('auxl', u16(3), u16(1), u16(1))),
    box(
      'iprp',
      box('ipco', ...properties),
      full(
        'ipma',
        0,
        0,
        u32(1),
        u16(1),
        u8(properties.length),
        ...properties.map((_, i) => u8(0x80 | (i + 1))),
      ),
    ),
    ...extra,
  );
}

const ispe = (w: number, h: number) => full('ispe', 0, 0, u32(w), u32(h));
const irot = (turns: number) => box('irot', u8(turns));
const clap = (w: number, h: number) =>
  box('clap', u32(w), u32(1), u32(h), u32(1), u32(0), u32(1), u32(0), u32(1));

describe('parseHeifMeta', () => {
  it('reads items, locations (with a base offset), references and properties', () => {
    const parsed = parseHeifMeta(meta([ispe(4032, 3024), irot(3)]));
    expect(parsed.primary).toBe(1);
    expect(parsed.items.get(3)).toEqual({ id: 3, type: 'hvc1', hidden: true });
    expect(parsed.locations.get(1)).toEqual({
      method: 0,
      dataReference: 0,
      extents: [{ offset: 1008, length: 20 }],
    });
    expect(heifItemsReferring(parsed, 1, 'thmb')).toEqual([2]);
    expect(parsed.properties.get(1)?.map((p) => [p.box.type, p.essential])).toEqual([
      ['ispe', true],
      ['irot', true],
    ]);
  });

  it.each([
    ['ispe alone', [ispe(4032, 3024)], { width: 4032, height: 3024 }],
    ['a quarter turn swaps', [ispe(4032, 3024), irot(1)], { width: 3024, height: 4032 }],
    ['a half turn does not', [ispe(4032, 3024), irot(2)], { width: 4032, height: 3024 }],
    ['crop, then turn', [ispe(4032, 3024), clap(4000, 3000), irot(3)], { width: 3000, height: 4000 }],
    [
      'turn, then crop (of the turned picture)',
      [ispe(4032, 3024), irot(1), clap(3000, 4000)],
      { width: 3000, height: 4000 },
    ],
  ])('displayed size: %s', (_what, properties, expected) => {
    expect(heifDisplaySize(parseHeifMeta(meta(properties)), 1)).toEqual(expected);
  });

  it('has no displayed size without ispe, or with a crop larger than the picture', () => {
    expect(heifDisplaySize(parseHeifMeta(meta([irot(1)])), 1)).toBeUndefined();
    expect(heifDisplaySize(parseHeifMeta(meta([ispe(100, 100), clap(200, 50)])), 1)).toBeUndefined();
  });

  it('tells an alpha plane from another auxiliary image', () => {
    const parsed = parseHeifMeta(meta([ispe(10, 10)]));
    expect(heifHasAlpha(parsed, 1)).toBe(false);
    const withAlpha = meta([ispe(10, 10), full('auxC', 0, 0, text('urn:mpeg:hevc:2015:auxid:1\0'))]);
    // Associate the auxC (property 2) with item 3, the auxiliary image.
    const patched = parseHeifMeta(withAlpha);
    patched.properties.set(3, [patched.properties.get(1)![1]!]);
    expect(heifHasAlpha(patched, 1)).toBe(true);
  });

  it('refuses a box that is cut short or lists absurd counts with ERR_FORMAT', async () => {
    const good = meta([ispe(10, 10)]);
    expect(await rejectionCodeOf(() => parseHeifMeta(good.subarray(0, 20)))).toBe('ERR_FORMAT');
    const absurd = meta([ispe(10, 10)], [full('iloc', 2, 0, u16(0x4400), u32(0xffffffff))]);
    expect(await rejectionCodeOf(() => parseHeifMeta(absurd))).toBe('ERR_FORMAT');
    const cut = meta([ispe(10, 10)], [full('iinf', 0, 0, u16(1), full('infe', 2, 0, u8(0)))]);
    expect(await rejectionCodeOf(() => parseHeifMeta(cut))).toBe('ERR_FORMAT');
  });
});
