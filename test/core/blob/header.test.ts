/**
 * The one way a blob's header is made (blobHeader) and opened (openBlobHeader), shared by the sequential
 * engine, random access and the worker threads: a header made under a key and context opens under the
 * same ones only, and every refusal is the one authentication error, with the derived key wiped.
 */
import { describe, expect, it } from 'vitest';
import { blobHeader, deriveBlobKeys, openBlobHeader } from '../../../src/core/blob/format.js';
import { encryptBlob, unboundBlobContext } from '../../../src/core/blob/index.js';
import { randomBytes } from '../../../src/core/bytes.js';
import { DecryptionError } from '../../../src/core/errors.js';

const key = randomBytes(32);
const context = unboundBlobContext();

describe('blob header', () => {
  it('opens under the key and context it was made with, to the same keys', () => {
    const salt = randomBytes(24);
    const made = deriveBlobKeys(key, salt, context);
    const header = blobHeader(salt, made);
    expect(header.length).toBe(56);
    const opened = openBlobHeader(key, header, context);
    expect(opened.aeadKey).toEqual(made.aeadKey);
    expect(opened.baseNonce).toEqual(made.baseNonce);
  });

  it("is the header the engine writes: a blob's first 56 bytes open under its key", async () => {
    const blob = await encryptBlob(randomBytes(100), key, { context });
    expect(openBlobHeader(key, blob.subarray(0, 56), context).aeadKey).toHaveLength(32);
  });

  it('refuses another key, another context, a flipped bit and a short header with the one error', () => {
    const header = blobHeader(randomBytes(24), deriveBlobKeys(key, randomBytes(24), context));
    const good = blobHeader(new Uint8Array(24), deriveBlobKeys(key, new Uint8Array(24), context));
    const flipped = good.slice();
    flipped[40]! ^= 1;
    for (const [k, h, c] of [
      [key, header, context],
      [randomBytes(32), good, context],
      [key, good, new TextEncoder().encode('another context')],
      [key, flipped, context],
      [key, good.subarray(0, 55), context],
    ] as const) {
      expect(() => openBlobHeader(k, h, c)).toThrow(DecryptionError);
    }
  });
});
