/**
 * Node's native base64 codec against the universal strict one (@scure/base): the same text for every
 * input, the same bytes back, and the same texts refused (Node's own decoder is lenient; ours must not be).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBase64 } from '../../../src/core/bytes.js';
import { type Base64Codec, scureBase64Codec } from '../../../src/core/runtime/base64-codec.js';
import { getRuntime } from '../../../src/core/runtime/runtime.js';
import '../../../src/node/runtime/index.js';
import { nodeBase64Codec } from '../../../src/node/runtime/node-base64.js';
import { codeOf } from '../../helpers/errors.js';

const codecs: Base64Codec[] = [scureBase64Codec, nodeBase64Codec];

/** Texts Node's `Buffer.from(text, 'base64')` would decode but that are not canonical standard base64. */
const REFUSED = [
  'QR==', // non-zero bits after the last character
  'QUJ=', // same, one padding character
  'QQ', // missing padding
  'QQ=', // short padding
  'QQ===', // extra padding
  'QUJD\n', // trailing newline
  ' QUJD', // leading space
  'QU JD', // inner space
  'QUJD====',
  'QQ-_', // URL-safe alphabet
  'QQ==QUJD', // padding in the middle
  'QUJD!',
  'QUJ\u00e9',
];

describe('base64 codecs', () => {
  it('importing happy-media/node installs the native codec', () => {
    expect(getRuntime().base64).toBe(nodeBase64Codec);
  });

  it('encode the same text and decode it back to the same bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(7), (bytes, offset) => {
        // A view at a non-zero offset, as callers pass subarrays.
        const padded = new Uint8Array(offset + bytes.length);
        padded.set(bytes, offset);
        const view = padded.subarray(offset);
        const texts = codecs.map((codec) => codec.encode(view));
        expect(texts[1]).toBe(texts[0]);
        for (const codec of codecs) expect(codec.decode(texts[0] as string)).toEqual(bytes);
      }),
    );
  });

  it.each(REFUSED)('both refuse %j', (text) => {
    for (const codec of codecs) expect(() => codec.decode(text), codec.name).toThrow();
    expect(codeOf(() => fromBase64(text, 'c'))).toBe('ERR_FORMAT');
  });

  it('a small decoded result owns its whole buffer (not a view into a shared pool)', () => {
    const bytes = nodeBase64Codec.decode('QUJD');
    expect(Array.from(bytes)).toEqual([65, 66, 67]);
    expect(bytes.buffer.byteLength).toBe(3);
  });
});
