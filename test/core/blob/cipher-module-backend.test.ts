/**
 * The Cipher-API backend (`cipherModuleBlobBackend`) on a module that is not node:crypto itself (plain
 * Uint8Array results, as react-native-quick-crypto), against the pure-JS and WebCrypto backends: identical
 * bytes, each opens the others' blobs, tampering fails with nothing released. Also the registry rules for
 * custom names and the automatic choice. (The frozen vectors run on it too: vectors.test.ts.)
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { encryptBlobWithSalt } from '../../../src/core/blob/_testing.js';
import {
  type BlobBackend,
  bufferRangeSource,
  cipherModuleBlobBackend,
  decryptBlob,
  encryptBlob,
  getBlobBackend,
  openBlobRandomAccess,
  registerBlobBackend,
} from '../../../src/core/blob/index.js';
import type { CipherModule } from '../../../src/core/crypto/cipher-module.js';
import { installCipherModule } from '../../../src/core/crypto/index.js';
import { getEnvelopeAesGcm, setEnvelopeAesGcm } from '../../../src/core/envelope/index.js';
import { nodeBlobBackend } from '../../../src/node/blob/index.js';
import { nodeEnvelopeAesGcm } from '../../../src/node/envelope/index.js';
import { foreignCipherModule } from '../../helpers/cipher-module.js';
import { codeOf } from '../../helpers/errors.js';
import { testBytes } from './blob-test-utils.js';

const key = testBytes(32, 7);

afterEach(() => {
  registerBlobBackend(nodeBlobBackend);
  setEnvelopeAesGcm(nodeEnvelopeAesGcm);
});

describe('cipherModuleBlobBackend', () => {
  it('is byte-identical to noble and webcrypto and opens their blobs (random sizes)', async () => {
    const { module } = foreignCipherModule();
    registerBlobBackend(cipherModuleBlobBackend(module, { name: 'foreign' }), { preferred: false });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 70_000 }), fc.integer(), async (size, seed) => {
        const plaintext = testBytes(size, seed);
        const salt = testBytes(24, seed + 1);
        const byForeign = await encryptBlobWithSalt(plaintext, key, salt, { backend: 'foreign' });
        for (const other of ['noble', 'webcrypto', 'node']) {
          expect(await encryptBlobWithSalt(plaintext, key, salt, { backend: other })).toEqual(byForeign);
          expect(await decryptBlob(byForeign, key, { backend: other })).toEqual(plaintext);
        }
        expect(await decryptBlob(byForeign, key, { backend: 'foreign' })).toEqual(plaintext);
      }),
      { numRuns: 12 },
    );
  });

  it('batches: one call per chunk, no more; random access reads only the chunks asked for', async () => {
    const { module, calls } = foreignCipherModule();
    const backend = cipherModuleBlobBackend(module, { name: 'counted' });
    registerBlobBackend(backend, { preferred: false });
    const plaintext = testBytes(5 * 16384 + 10, 3);
    const blob = await encryptBlob(plaintext, key, { backend: 'counted' });
    expect(calls.cipher).toBe(6);
    const reader = await openBlobRandomAccess(bufferRangeSource(blob), key, { backend: 'counted' });
    const before = calls.decipher;
    expect(await reader.read(2 * 16384 + 5, 100)).toEqual(plaintext.subarray(2 * 16384 + 5, 2 * 16384 + 105));
    expect(calls.decipher - before).toBe(1);
  });

  it('a flipped byte in any chunk fails with ERR_DECRYPTION_FAILED', async () => {
    const { module } = foreignCipherModule();
    registerBlobBackend(cipherModuleBlobBackend(module, { name: 'foreign' }), { preferred: false });
    const blob = await encryptBlob(testBytes(40_000, 9), key);
    for (const at of [30, 56, 56 + 16400 + 7, blob.length - 1]) {
      const bad = blob.slice();
      bad[at]! ^= 1;
      await expect(decryptBlob(bad, key, { backend: 'foreign' })).rejects.toMatchObject({
        code: 'ERR_DECRYPTION_FAILED',
      });
    }
  });

  it('uses the allocator it was given for batch output', async () => {
    const { module } = foreignCipherModule();
    const sizes: number[] = [];
    const backend = cipherModuleBlobBackend(module, {
      name: 'alloc',
      allocate: (n) => {
        sizes.push(n);
        return new Uint8Array(n);
      },
    });
    registerBlobBackend(backend, { preferred: false });
    await encryptBlob(testBytes(100, 1), key, { backend: 'alloc' });
    expect(sizes).toEqual([116]);
  });

  it('rejects a module without the Cipher API and bad names', () => {
    expect(codeOf(() => cipherModuleBlobBackend({} as CipherModule))).toBe('ERR_INVALID_ARGUMENT');
    const { module } = foreignCipherModule();
    expect(codeOf(() => cipherModuleBlobBackend(module, { name: '../x' }))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => cipherModuleBlobBackend(module, { name: '' }))).toBe('ERR_INVALID_ARGUMENT');
    expect(cipherModuleBlobBackend(module).name).toBe('node-crypto');
  });
});

describe('registry: custom names and the automatic choice', () => {
  it('a registered native backend becomes the automatic choice; preferred: false keeps the old one', () => {
    const { module } = foreignCipherModule();
    expect(getBlobBackend().name).toBe('node');
    registerBlobBackend(cipherModuleBlobBackend(module, { name: 'quick-crypto' }), { preferred: false });
    expect(getBlobBackend().name).toBe('node');
    expect(getBlobBackend('quick-crypto').name).toBe('quick-crypto');
    registerBlobBackend(cipherModuleBlobBackend(module, { name: 'quick-crypto' }));
    expect(getBlobBackend().name).toBe('quick-crypto');
    const noble = getBlobBackend('noble');
    registerBlobBackend(noble);
    expect(getBlobBackend().name).toBe('quick-crypto');
  });

  it('refuses names outside letters, digits, . _ -', () => {
    const backend = getBlobBackend('noble');
    for (const name of ['', 'a b', 'x/y', 'é', 'a'.repeat(65)]) {
      expect(codeOf(() => registerBlobBackend({ ...backend, name } as BlobBackend))).toBe(
        'ERR_INVALID_ARGUMENT',
      );
    }
    expect(codeOf(() => getBlobBackend('never-registered'))).toBe('ERR_INVALID_ARGUMENT');
  });

  it('installCipherModule sets both the blob backend and the envelope AES-GCM', () => {
    const { module, calls } = foreignCipherModule();
    const backend = installCipherModule(module, { name: 'quick-crypto' });
    expect(backend.name).toBe('quick-crypto');
    expect(getBlobBackend()).toBe(backend);
    expect(getEnvelopeAesGcm().name).toBe('quick-crypto');
    const sealed = getEnvelopeAesGcm().seal(testBytes(10, 1), testBytes(12, 2), key);
    expect(calls.cipher).toBe(1);
    expect(nodeEnvelopeAesGcm.open(sealed, testBytes(12, 2), key)).toEqual(testBytes(10, 1));
  });
});
