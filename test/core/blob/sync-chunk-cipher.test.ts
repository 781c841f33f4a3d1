/**
 * The chunk driver of a synchronous AES-GCM, over the Cipher-API implementation on a module that is not
 * node:crypto itself (plain Uint8Array results, as react-native-quick-crypto) and over node:crypto without
 * its fast paths: identical bytes to the other implementations, each opens the others' blobs, one cipher
 * call per chunk and a batch in one array from the runtime's allocator, tampering fails with nothing
 * released. (The frozen vectors run on each too: vectors.test.ts.)
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { cipherModuleAesGcm, nobleAesGcm, webCryptoAesGcm } from '../../../src/core/aes-gcm/index.js';
import { encryptBlobWithSalt } from '../../../src/core/blob/_testing.js';
import { createChunkCipher } from '../../../src/core/blob/chunk-cipher.js';
import {
  bufferRangeSource,
  decryptBlob,
  encryptBlob,
  openBlobRandomAccess,
  unboundBlobContext,
} from '../../../src/core/blob/index.js';
import { toHex } from '../../../src/core/bytes.js';
import { dataKey, openMessage, sealMessage } from '../../../src/core/envelope/index.js';
import { getRuntime, installRuntime } from '../../../src/core/runtime/runtime.js';
import { nodeRuntime } from '../../../src/node/runtime/index.js';
import { nodeAesGcm } from '../../../src/node/runtime/node-aes-gcm.js';
import { withoutFastPaths } from '../../helpers/aes-gcm.js';
import { foreignCipherModule } from '../../helpers/cipher-module.js';
import { withRuntime } from '../../helpers/installed.js';
import { testBytes } from './blob-test-utils.js';

const key = testBytes(32, 7);

afterEach(() => {
  installRuntime(nodeRuntime);
});

describe('synchronous chunk cipher', () => {
  it('over a foreign Cipher-API module and without fast paths: the same bytes as every other implementation', async () => {
    const foreign = cipherModuleAesGcm(foreignCipherModule().module, { name: 'foreign' });
    const plain = withoutFastPaths(nodeAesGcm);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 70_000 }), fc.integer(), async (size, seed) => {
        const plaintext = testBytes(size, seed);
        const salt = testBytes(24, seed + 1);
        const byForeign = await encryptBlobWithSalt(plaintext, key, salt, {
          context: unboundBlobContext(),
          aesGcm: foreign,
        });
        // Compared as hex: toEqual walks a 70 KB array element by element, seconds per call.
        const expected = toHex(plaintext);
        const sealed = toHex(byForeign);
        for (const other of [nobleAesGcm, webCryptoAesGcm, nodeAesGcm, plain]) {
          const options = { context: unboundBlobContext(), aesGcm: other };
          expect(toHex(await encryptBlobWithSalt(plaintext, key, salt, options)), other.name).toBe(sealed);
          expect(toHex(await decryptBlob(byForeign, key, options)), other.name).toBe(expected);
        }
        expect(
          toHex(await decryptBlob(byForeign, key, { context: unboundBlobContext(), aesGcm: foreign })),
        ).toBe(expected);
      }),
      { numRuns: 12 },
    );
  });

  it('is synchronous: a batch is sealed and opened without a promise', () => {
    const cipher = createChunkCipher(nodeAesGcm, key, testBytes(12, 1));
    expect(cipher).not.toBeInstanceOf(Promise);
    const sealed = cipher.seal(0, [testBytes(10, 2), testBytes(20, 3)]);
    expect(sealed).toBeInstanceOf(Uint8Array);
    const opened = cipher.open(0, [sealed.subarray(0, 26), sealed.subarray(26)]);
    expect(opened).toEqual(new Uint8Array([...testBytes(10, 2), ...testBytes(20, 3)]));
  });

  it('batches: one cipher call per chunk, no more; random access opens only the chunks asked for', async () => {
    const { module, calls } = foreignCipherModule();
    const aesGcm = cipherModuleAesGcm(module, { name: 'counted' });
    const plaintext = testBytes(5 * 16384 + 10, 3);
    const blob = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm });
    expect(calls.cipher).toBe(6);
    const reader = await openBlobRandomAccess(bufferRangeSource(blob), key, {
      context: unboundBlobContext(),
      aesGcm,
    });
    const before = calls.decipher;
    expect(await reader.read(2 * 16384 + 5, 100)).toEqual(plaintext.subarray(2 * 16384 + 5, 2 * 16384 + 105));
    expect(calls.decipher - before).toBe(1);
  });

  it('a flipped byte in any chunk fails with ERR_DECRYPTION_FAILED, and the batch array is wiped', async () => {
    const foreign = cipherModuleAesGcm(foreignCipherModule().module, { name: 'foreign' });
    const blob = await encryptBlob(testBytes(40_000, 9), key, { context: unboundBlobContext() });
    for (const aesGcm of [foreign, withoutFastPaths(nodeAesGcm)]) {
      for (const at of [30, 56, 56 + 16400 + 7, blob.length - 1]) {
        const bad = blob.slice();
        bad[at]! ^= 1;
        await expect(decryptBlob(bad, key, { context: unboundBlobContext(), aesGcm })).rejects.toMatchObject({
          code: 'ERR_DECRYPTION_FAILED',
        });
      }
    }
    // The batch output came from the runtime's allocator: after a failed open it holds zeros only.
    const outputs: Uint8Array[] = [];
    const cipher = withRuntime(
      {
        ...nodeRuntime,
        alloc: {
          ...nodeRuntime.alloc,
          output: (n) => outputs[outputs.push(new Uint8Array(n).fill(0xa5)) - 1]!,
        },
      },
      () => createChunkCipher(nodeAesGcm, key, testBytes(12, 5)),
    );
    const sealed = cipher.seal(0, [testBytes(100, 6), testBytes(100, 7)]);
    const bad = sealed.slice();
    bad[150]! ^= 1;
    expect(() => cipher.open(0, [bad.subarray(0, 116), bad.subarray(116)])).toThrow(
      expect.objectContaining({ code: 'ERR_DECRYPTION_FAILED' }),
    );
    expect(outputs.at(-1)?.every((b) => b === 0)).toBe(true);
  });

  it('takes its batch arrays from the runtime (Node: not zero-filled, each owning its buffer)', async () => {
    const sizes: number[] = [];
    await withRuntime(
      {
        ...nodeRuntime,
        alloc: {
          ...nodeRuntime.alloc,
          output: (n) => {
            sizes.push(n);
            return nodeRuntime.alloc.output(n);
          },
        },
      },
      () => encryptBlob(testBytes(100, 1), key, { context: unboundBlobContext(), aesGcm: nodeAesGcm }),
    );
    expect(sizes).toEqual([116]);
  });
});

describe('an app installing its Cipher-API module (react-native-quick-crypto)', () => {
  it('one installRuntime puts it under blobs and envelopes, the other parts universal', async () => {
    const { module, calls } = foreignCipherModule();
    const aesGcm = cipherModuleAesGcm(module, { name: 'quick-crypto' });
    installRuntime({ aesGcm });
    expect(getRuntime().aesGcm).toBe(aesGcm);
    expect(getRuntime().base64.name).toBe('scure');
    await encryptBlob(testBytes(10, 1), key, { context: unboundBlobContext() });
    expect(calls.cipher).toBe(1);
    const message = { id: 'm', time: 1, role: 'user' as const, type: 'text' as const, text: 'hi' };
    const envelope = sealMessage(message, dataKey(key));
    expect(calls.cipher).toBe(2);
    expect(openMessage(envelope, dataKey(key))).toEqual(message);
    expect(calls.decipher).toBe(1);
  });
});
