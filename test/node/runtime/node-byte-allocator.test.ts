/**
 * Node's arrays: scratch arrays (pooled `Buffer`s for the bytes an envelope seal or open drops before
 * returning) give the same envelopes as ordinary arrays, every byte of a pooled record is written, and
 * nothing pooled is ever handed to a caller; output arrays own their buffer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
import { type ByteAllocator, plainByteAllocator } from '../../../src/core/runtime/byte-allocator.js';
import { getRuntime } from '../../../src/core/runtime/runtime.js';
import { nodeRuntime } from '../../../src/node/runtime/index.js';
import { nodeBase64Codec } from '../../../src/node/runtime/node-base64.js';
import { nodeByteAllocator } from '../../../src/node/runtime/node-byte-allocator.js';
import { withRuntime } from '../../helpers/installed.js';

/** Arrays full of 0xa5, as a pool holding other bytes would be: a byte left unwritten shows. */
const dirtyByteAllocator: ByteAllocator = {
  name: 'dirty',
  output: (length) => new Uint8Array(length).fill(0xa5),
  scratch: (length) => new Uint8Array(length).fill(0xa5),
  utf8: plainByteAllocator.utf8,
};

/** Node's runtime with another allocator. */
const using = <T>(alloc: ByteAllocator, fn: () => T): T => withRuntime({ ...nodeRuntime, alloc }, fn);

/** Owns its whole buffer: not a view into Node's pool, so `.buffer` holds nothing else. */
function ownsItsBuffer(bytes: Uint8Array): boolean {
  return bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength;
}

const secret = randomBytes(32);
const keys: SessionKey[] = [dataKey(secret), legacyKey(secret)];

describe('Node arrays', () => {
  it('importing happy-media/node installs them: scratch arrays pooled, output arrays owning their buffer', () => {
    expect(getRuntime().alloc).toBe(nodeByteAllocator);
    // Pooled indeed: a small array is a view into a larger slab.
    expect(nodeByteAllocator.scratch(100).buffer.byteLength).toBeGreaterThan(100);
    const output = nodeByteAllocator.output(100);
    expect(ownsItsBuffer(output)).toBe(true);
    // A plain Uint8Array, so that slice() copies as callers expect (a Buffer's slice() would not).
    expect(Object.getPrototypeOf(output)).toBe(Uint8Array.prototype);
  });

  it('encode UTF-8 exactly as TextEncoder does, lone surrogates included', () => {
    const texts = ['', 'a', '\ud800', 'x\udc00y', 'é€😀', '\ud83d\ude00\ud83d'];
    // Compared as plain arrays: a Buffer and a Uint8Array of the same bytes are not toEqual.
    const pooled = (text: string) => new Uint8Array(nodeByteAllocator.utf8(text));
    for (const text of texts) expect(pooled(text)).toEqual(plainByteAllocator.utf8(text));
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(pooled(text)).toEqual(plainByteAllocator.utf8(text));
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
          const envelopes = [nodeByteAllocator, plainByteAllocator, dirtyByteAllocator].map((alloc) =>
            using(alloc, () => sealRaw(value, key, options)),
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
