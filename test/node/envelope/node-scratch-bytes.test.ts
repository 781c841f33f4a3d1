/**
 * Scratch arrays (Node's pooled `Buffer`s for the bytes an envelope seal or open drops before returning):
 * the same envelopes as ordinary arrays, every byte of a pooled record written, and nothing pooled ever
 * handed to a caller.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { fromBase64, randomBytes } from '../../../src/core/bytes.js';
import {
  dataKey,
  encryptDataKey,
  encryptJson,
  legacyKey,
  openRaw,
  type SessionKey,
  sealRaw,
} from '../../../src/core/envelope/index.js';
import {
  getScratchBytes,
  plainScratchBytes,
  type ScratchBytes,
  setScratchBytes,
} from '../../../src/core/scratch-bytes.js';
import { nodeBase64Codec } from '../../../src/node/envelope/index.js';
import { nodeScratchBytes } from '../../../src/node/envelope/node-scratch-bytes.js';
import { withInstalled } from '../../helpers/installed.js';

/** Scratch arrays full of 0xa5, as a pool holding other bytes would be: a byte left unwritten shows. */
const dirtyScratchBytes: ScratchBytes = {
  name: 'dirty',
  alloc: (length) => new Uint8Array(length).fill(0xa5),
  utf8: plainScratchBytes.utf8,
};

const using = <T>(scratch: ScratchBytes, fn: () => T): T =>
  withInstalled(getScratchBytes, setScratchBytes, scratch, fn);

/** Owns its whole buffer: not a view into Node's pool, so `.buffer` holds nothing else. */
function ownsItsBuffer(bytes: Uint8Array): boolean {
  return bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength;
}

const secret = randomBytes(32);
const keys: SessionKey[] = [dataKey(secret), legacyKey(secret)];

describe('scratch bytes', () => {
  afterEach(() => setScratchBytes(nodeScratchBytes));

  it('importing happy-media/node installs the pooled implementation', () => {
    expect(getScratchBytes().name).toBe('node-pool');
    // Pooled indeed: a small array is a view into a larger slab.
    expect(nodeScratchBytes.alloc(100).buffer.byteLength).toBeGreaterThan(100);
  });

  it('encode UTF-8 exactly as TextEncoder does, lone surrogates included', () => {
    const texts = ['', 'a', '\ud800', 'x\udc00y', 'é€😀', '\ud83d\ude00\ud83d'];
    // Compared as plain arrays: a Buffer and a Uint8Array of the same bytes are not toEqual.
    const pooled = (text: string) => new Uint8Array(nodeScratchBytes.utf8(text));
    for (const text of texts) expect(pooled(text)).toEqual(plainScratchBytes.utf8(text));
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(pooled(text)).toEqual(plainScratchBytes.utf8(text));
      }),
    );
  });

  it('seal the same envelope from pooled, plain and dirty arrays (fixed nonce), and it opens', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.constantFrom(...keys),
        fc.uint8Array({ minLength: 24, maxLength: 24 }),
        (value, key, nonce24) => {
          const options = { nonce: key.variant === 'legacy' ? nonce24 : nonce24.subarray(0, 12) };
          const envelopes = [nodeScratchBytes, plainScratchBytes, dirtyScratchBytes].map((scratch) =>
            using(scratch, () => sealRaw(value, key, options)),
          );
          expect(envelopes[1]).toEqual(envelopes[0]);
          expect(envelopes[2]).toEqual(envelopes[0]);
          // JSON round trip: what the envelope carries is JSON.stringify's reading of the value.
          expect(openRaw(envelopes[0], key)).toEqual(JSON.parse(JSON.stringify(value)));
        },
      ),
    );
  });

  it('never hands a pooled array to a caller (public encrypt and decode results own their buffers)', () => {
    const record = encryptJson({ t: 'small' }, dataKey(secret));
    expect(ownsItsBuffer(record)).toBe(true);
    expect(ownsItsBuffer(encryptDataKey(new Uint8Array([1, 2, 3]), secret))).toBe(true);
    expect(ownsItsBuffer(fromBase64(sealRaw({ t: 'small' }, dataKey(secret)).c))).toBe(true);
  });

  it('the shared decoder refuses exactly what the copying decoder refuses, and decodes the same bytes', () => {
    const decodeShared = nodeBase64Codec.decodeShared as (text: string) => Uint8Array;
    expect(decodeShared).toBeTypeOf('function');
    for (const text of ['QR==', 'QQ', 'QQ-_', ' QUJD', 'QUJD\n', 'QQ==QUJD']) {
      expect(() => decodeShared(text)).toThrow();
      expect(() => nodeBase64Codec.decode(text)).toThrow();
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = nodeBase64Codec.encode(bytes);
        expect(new Uint8Array(decodeShared(text))).toEqual(bytes);
      }),
    );
  });
});
