/**
 * The AES-256-GCM seam's implementations side by side: pure JS (noble), WebCrypto (asynchronous), the
 * Cipher-API one over node:crypto (`nodeAesGcm`) and over a module that is not node:crypto (as
 * react-native-quick-crypto). Identical bytes for fixed nonces, each opens the others' output, the same
 * refusal for every tampering, the fast paths equal the plain calls, and a blob's chunk cipher keeps its
 * key when the engine wipes the derived one. (The Wycheproof vectors run through each in test/conformance.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CipherModule } from '../../../src/core/aes-gcm/cipher-module.js';
import { expoCryptoAesGcm } from '../../../src/core/aes-gcm/expo-crypto.js';
import {
  type AesGcm,
  assertAesGcm,
  cipherModuleAesGcm,
  nobleAesGcm,
  webCryptoAesGcm,
} from '../../../src/core/aes-gcm/index.js';
import { createChunkCipher } from '../../../src/core/blob/chunk-cipher.js';
import { nodeAesGcm } from '../../../src/node/runtime/node-aes-gcm.js';
import { foreignCipherModule } from '../../helpers/cipher-module.js';
import { codeOf, rejectionCodeOf } from '../../helpers/errors.js';
import { loadExpoCryptoAes } from '../../helpers/expo-crypto.js';

const foreign = cipherModuleAesGcm(foreignCipherModule().module, { name: 'foreign' });
// expo-crypto's own web AES (its ExpoCryptoAES.web.js over crypto.subtle, with a two-function `expo` stand-in).
const expo = expoCryptoAesGcm(await loadExpoCryptoAes());
const IMPLEMENTATIONS: AesGcm[] = [nobleAesGcm, webCryptoAesGcm, nodeAesGcm, foreign, expo];

/** Runs one call of either mode and returns its result (awaited only for an asynchronous one). */
async function seal(aes: AesGcm, key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array) {
  if (aes.mode === 'sync') return aes.seal(aes.importKey(key), nonce, plaintext);
  return aes.seal(await aes.importKey(key), nonce, plaintext);
}
async function open(aes: AesGcm, key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array) {
  if (aes.mode === 'sync') return aes.open(aes.importKey(key), nonce, sealed);
  return aes.open(await aes.importKey(key), nonce, sealed);
}

/** `bytes` as a view at a non-zero offset of a larger buffer. */
function offsetView(bytes: Uint8Array, offset: number): Uint8Array {
  const big = new Uint8Array(bytes.length + offset + 3).fill(0xa5);
  big.set(bytes, offset);
  return big.subarray(offset, offset + bytes.length);
}

describe('every implementation', () => {
  it('gives the same bytes for a fixed nonce and opens every other one’s output (random sizes, views)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 40_000 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 12, maxLength: 12 }),
        fc.nat({ max: 15 }),
        async (plaintext, key, nonce, offset) => {
          const input = offsetView(plaintext, offset);
          const reference = await seal(nobleAesGcm, key, nonce, plaintext);
          expect(reference.length).toBe(plaintext.length + 16);
          for (const aes of IMPLEMENTATIONS) {
            const sealed = await seal(aes, key, offsetView(nonce, offset), input);
            expect(sealed, aes.name).toEqual(reference);
            expect(sealed.buffer === input.buffer, aes.name).toBe(false);
            expect(await open(aes, key, nonce, offsetView(reference, offset)), aes.name).toEqual(plaintext);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuses a flipped bit anywhere, a wrong key, a wrong nonce and a cut tag with ERR_DECRYPTION_FAILED', async () => {
    const key = new Uint8Array(32).fill(7);
    const nonce = new Uint8Array(12).fill(9);
    const plaintext = new TextEncoder().encode('{"secret":"plan"}');
    const sealed = await seal(nobleAesGcm, key, nonce, plaintext);
    for (const aes of IMPLEMENTATIONS) {
      const refused = (k: Uint8Array, n: Uint8Array, s: Uint8Array) =>
        rejectionCodeOf(() => open(aes, k, n, s));
      for (let bit = 0; bit < sealed.length * 8; bit += 5) {
        const flipped = sealed.slice();
        flipped[bit >> 3]! ^= 1 << (bit & 7);
        expect(await refused(key, nonce, flipped), `${aes.name} bit ${bit}`).toBe('ERR_DECRYPTION_FAILED');
      }
      expect(await refused(new Uint8Array(32), nonce, sealed), aes.name).toBe('ERR_DECRYPTION_FAILED');
      expect(await refused(key, new Uint8Array(12), sealed), aes.name).toBe('ERR_DECRYPTION_FAILED');
      expect(await refused(key, nonce, sealed.subarray(0, 15)), aes.name).toBe('ERR_DECRYPTION_FAILED');
      expect(await refused(key, nonce, sealed.subarray(0, sealed.length - 1)), aes.name).toBe(
        'ERR_DECRYPTION_FAILED',
      );
    }
  });

  it('a blob chunk cipher prepares its key from a copy: wiping the derived key after it changes nothing', async () => {
    const baseNonce = new Uint8Array(12).fill(1);
    const plaintext = new Uint8Array(100).fill(2);
    const reference = await seal(nobleAesGcm, new Uint8Array(32).fill(3), baseNonce, plaintext);
    for (const aes of IMPLEMENTATIONS) {
      const bytes = new Uint8Array(32).fill(3);
      const cipher = await createChunkCipher(aes, bytes, baseNonce);
      bytes.fill(0);
      expect(await cipher.seal(0, [plaintext]), aes.name).toEqual(reference);
    }
  });

  it('names its mode: synchronous ones return values, asynchronous ones promises', async () => {
    for (const aes of IMPLEMENTATIONS) {
      const key = await aes.importKey(new Uint8Array(32));
      const result = aes.seal(key as never, new Uint8Array(12), new Uint8Array(3));
      expect(result instanceof Promise, aes.name).toBe(aes.mode === 'async');
      await result;
    }
    expect(IMPLEMENTATIONS.map((aes) => [aes.name, aes.mode])).toEqual([
      ['noble', 'sync'],
      ['webcrypto', 'async'],
      ['node', 'sync'],
      ['foreign', 'sync'],
      ['expo-crypto', 'async'],
    ]);
  });
});

describe('the Cipher-API fast paths', () => {
  it('sealInto/openInto write exactly the bytes seal/open return, where they are told, and nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.nat({ max: 40 }), (plaintext, at) => {
        const key = nodeAesGcm.importKey(new Uint8Array(32).fill(5));
        const nonce = new Uint8Array(12).fill(6);
        const sealed = nodeAesGcm.seal(key, nonce, plaintext);
        const out = new Uint8Array(at + sealed.length + 7).fill(0xa5);
        nodeAesGcm.sealInto?.(key, nonce, plaintext, out, at);
        expect(out.subarray(at, at + sealed.length)).toEqual(sealed);
        expect(out.subarray(0, at).every((b) => b === 0xa5)).toBe(true);
        expect(out.subarray(at + sealed.length).every((b) => b === 0xa5)).toBe(true);
        const opened = new Uint8Array(at + plaintext.length + 7).fill(0xa5);
        nodeAesGcm.openInto?.(key, nonce, sealed, opened, at);
        expect(opened.subarray(at, at + plaintext.length)).toEqual(plaintext);
        expect(opened.subarray(at + plaintext.length).every((b) => b === 0xa5)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('openInto refuses a bad tag with ERR_DECRYPTION_FAILED and writes nothing of the chunk', () => {
    const key = foreign.importKey(new Uint8Array(32));
    const sealed = foreign.seal(key, new Uint8Array(12), new Uint8Array(64).fill(1));
    sealed[70]! ^= 1;
    const out = new Uint8Array(64).fill(0xa5);
    expect(codeOf(() => foreign.openInto?.(key, new Uint8Array(12), sealed, out, 0))).toBe(
      'ERR_DECRYPTION_FAILED',
    );
    // The body is decrypted before the tag is checked, but it reaches `out` only after: a random-access
    // read opens chunks straight into the caller's array.
    expect(out.every((b) => b === 0xa5)).toBe(true);
    expect(codeOf(() => foreign.openInto?.(key, new Uint8Array(12), sealed.subarray(0, 10), out, 0))).toBe(
      'ERR_DECRYPTION_FAILED',
    );
  });

  it('refuses a module whose cipher returns fewer bytes than it was given (no stale bytes in the output)', () => {
    const { module } = foreignCipherModule();
    const short: CipherModule = {
      ...module,
      createCipheriv(...args) {
        const c = module.createCipheriv(...args);
        return { ...c, update: (data) => c.update(data).subarray(1) };
      },
    };
    const aes = cipherModuleAesGcm(short);
    expect(
      codeOf(() => aes.seal(aes.importKey(new Uint8Array(32)), new Uint8Array(12), new Uint8Array(10))),
    ).toBe('ERR_INTERNAL');
  });

  it('refuses a module without the Cipher API and an empty name', () => {
    expect(codeOf(() => cipherModuleAesGcm({} as CipherModule))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => cipherModuleAesGcm(null as unknown as CipherModule))).toBe('ERR_INVALID_ARGUMENT');
    const { module } = foreignCipherModule();
    expect(codeOf(() => cipherModuleAesGcm(module, { name: '' }))).toBe('ERR_INVALID_ARGUMENT');
    expect(cipherModuleAesGcm(module).name).toBe('node-crypto');
  });
});

describe('assertAesGcm', () => {
  it('accepts the built-in ones and refuses what lacks a name, a mode or a method', () => {
    for (const aes of IMPLEMENTATIONS) expect(assertAesGcm(aes, 'aes')).toBe(aes);
    for (const bad of [
      null,
      'noble',
      { ...nobleAesGcm, mode: 'maybe' },
      { ...nobleAesGcm, name: 1 },
      { ...nobleAesGcm, importKey: undefined },
      { ...nobleAesGcm, seal: undefined },
      { ...nobleAesGcm, open: undefined },
    ]) {
      expect(codeOf(() => assertAesGcm(bad, 'aes'))).toBe('ERR_INVALID_ARGUMENT');
    }
  });
});
