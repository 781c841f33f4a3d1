/**
 * The dataKey variant on the runtime's AES-GCM: node:crypto (Node's runtime), the universal @noble/ciphers
 * one, and the Cipher-API one over a module that is not node:crypto (as react-native-quick-crypto) give
 * identical bytes for fixed nonces, open each other's output and refuse the same tampering; with an
 * asynchronous runtime AES-GCM the synchronous API falls back to noble, with the same bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SyncAesGcm } from '../../../src/core/aes-gcm/aes-gcm.js';
import { cipherModuleAesGcm } from '../../../src/core/aes-gcm/cipher-module.js';
import { nobleAesGcm } from '../../../src/core/aes-gcm/noble.js';
import { webCryptoAesGcm } from '../../../src/core/aes-gcm/webcrypto.js';
import { fromBase64, fromHex, randomBytes, utf8 } from '../../../src/core/bytes.js';
import {
  dataKey,
  decryptDataKey,
  encryptDataKey,
  openMessage,
  sealMessage,
} from '../../../src/core/envelope/index.js';
import { getRuntime, installRuntime } from '../../../src/core/runtime/runtime.js';
import { nodeRuntime } from '../../../src/node/runtime/index.js';
import { nodeAesGcm } from '../../../src/node/runtime/node-aes-gcm.js';
import golden from '../../fixtures/happy-formats.json' with { type: 'json' };
import { asAsync, withoutFastPaths } from '../../helpers/aes-gcm.js';
import { foreignCipherModule } from '../../helpers/cipher-module.js';
import { codeOf } from '../../helpers/errors.js';
import { withRuntime } from '../../helpers/installed.js';

/** The Cipher-API implementation on a module that is not node:crypto itself (as react-native-quick-crypto). */
const foreignAesGcm = cipherModuleAesGcm(foreignCipherModule().module, { name: 'foreign' });
const implementations: SyncAesGcm[] = [nobleAesGcm, nodeAesGcm, foreignAesGcm];

/** Runs `fn` on Node's runtime with `aesGcm` in place of node:crypto, then restores what was installed. */
const using = <T>(aesGcm: SyncAesGcm, fn: () => T): T => withRuntime({ ...nodeRuntime, aesGcm }, fn);

describe('installation', () => {
  it('importing happy-media/node installs node:crypto', () => {
    expect(getRuntime().aesGcm).toBe(nodeAesGcm);
  });
  it('refuses something that is not an AES-GCM, and keeps what was installed', () => {
    expect(codeOf(() => installRuntime({ aesGcm: { name: 'x' } as unknown as SyncAesGcm }))).toBe(
      'ERR_INVALID_ARGUMENT',
    );
    expect(getRuntime().aesGcm).toBe(nodeAesGcm);
  });
  it('with an asynchronous runtime AES-GCM, the synchronous API uses noble: the same record', () => {
    const key = randomBytes(32);
    const nonce = randomBytes(12);
    const plaintext = utf8('{"type":"text","text":"sync over an async runtime"}');
    const byNode = encryptDataKey(plaintext, key, { nonce });
    for (const aesGcm of [webCryptoAesGcm, asAsync(nodeAesGcm)]) {
      const record = withRuntime({ ...nodeRuntime, aesGcm }, () => encryptDataKey(plaintext, key, { nonce }));
      expect(record).toEqual(byNode);
      expect(withRuntime({ ...nodeRuntime, aesGcm }, () => decryptDataKey(byNode, key))).toEqual(plaintext);
    }
  });
});

describe('record assembly', () => {
  it('writes straight into the record where the implementation can (sealInto), else copies seal(): same bytes', () => {
    expect(nodeAesGcm.sealInto).toBeTypeOf('function');
    expect(nobleAesGcm.sealInto).toBeUndefined();
    const key = randomBytes(32);
    const nonce = randomBytes(12);
    const plaintext = utf8('{"type":"text","text":"assembled once"}');
    const viaCopy = using(withoutFastPaths(nodeAesGcm), () => encryptDataKey(plaintext, key, { nonce }));
    expect(using(nodeAesGcm, () => encryptDataKey(plaintext, key, { nonce }))).toEqual(viaCopy);
    expect(viaCopy.length).toBe(1 + 12 + plaintext.length + 16);
  });
  it('refuses an implementation whose seal() returns the wrong length instead of writing a malformed record', () => {
    const short: SyncAesGcm = {
      ...withoutFastPaths(nobleAesGcm),
      name: 'short',
      seal: (k, n, p) => nobleAesGcm.seal(k as Uint8Array, n, p).subarray(1),
    };
    expect(codeOf(() => using(short, () => encryptDataKey(utf8('{}'), randomBytes(32))))).toBe(
      'ERR_INTERNAL',
    );
  });
});

describe('node:crypto and @noble/ciphers', () => {
  it("both reproduce Happy's golden dataKey vector", () => {
    for (const implementation of implementations) {
      const record = using(implementation, () =>
        encryptDataKey(utf8(golden.dataKey.plaintextUtf8), fromHex(golden.inputs.dataKeyHex), {
          nonce: fromHex(golden.dataKey.nonceHex),
        }),
      );
      expect(record).toEqual(fromBase64(golden.dataKey.base64));
    }
  });
  it('produce identical bytes for fixed nonces and open each other (random sizes, views)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 5000 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 12, maxLength: 12 }),
        fc.nat({ max: 15 }),
        (plaintext, key, nonce, offset) => {
          const view = new Uint8Array(plaintext.length + offset);
          view.set(plaintext, offset);
          const input = view.subarray(offset);
          const byNoble = using(nobleAesGcm, () => encryptDataKey(input, key, { nonce }));
          const byNode = using(nodeAesGcm, () => encryptDataKey(input, key, { nonce }));
          expect(byNode).toEqual(byNoble);
          expect(using(foreignAesGcm, () => encryptDataKey(input, key, { nonce }))).toEqual(byNoble);
          expect(using(foreignAesGcm, () => decryptDataKey(byNoble, key))).toEqual(plaintext);
          expect(using(nobleAesGcm, () => decryptDataKey(byNode, key))).toEqual(plaintext);
          expect(using(nodeAesGcm, () => decryptDataKey(byNoble, key))).toEqual(plaintext);
        },
      ),
      { numRuns: 150 },
    );
  });
  it('open each other’s sealed messages', () => {
    const key = dataKey(randomBytes(32));
    const message = {
      id: 'm',
      time: 1,
      role: 'user' as const,
      type: 'text' as const,
      text: 'x'.repeat(70_000),
    };
    const envelope = using(nodeAesGcm, () => sealMessage(message, key));
    expect(using(nobleAesGcm, () => openMessage(envelope, key))).toEqual(message);
  });
  it('both refuse every flipped bit and a wrong key with ERR_DECRYPTION_FAILED', () => {
    const key = randomBytes(32);
    const record = encryptDataKey(utf8('{"secret":"plan"}'), key);
    for (const implementation of implementations) {
      using(implementation, () => {
        expect(codeOf(() => decryptDataKey(record, randomBytes(32)))).toBe('ERR_DECRYPTION_FAILED');
        for (let bit = 8; bit < record.length * 8; bit++) {
          const flipped = record.slice();
          flipped[bit >> 3]! ^= 1 << (bit & 7);
          expect(codeOf(() => decryptDataKey(flipped, key))).toBe('ERR_DECRYPTION_FAILED');
        }
      });
    }
  });
});
