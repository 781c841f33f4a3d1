/**
 * The Node fast path (node:crypto AES-256-GCM) against the universal one (@noble/ciphers): identical
 * bytes for fixed nonces, each opens the other's output, and both refuse the same tampering.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { fromBase64, fromHex, randomBytes, utf8 } from '../../../src/core/bytes.js';
import {
  cipherModuleEnvelopeAesGcm,
  dataKey,
  decryptDataKey,
  type EnvelopeAesGcm,
  encryptDataKey,
  getEnvelopeAesGcm,
  nobleEnvelopeAesGcm,
  openMessage,
  sealMessage,
  setEnvelopeAesGcm,
} from '../../../src/core/envelope/index.js';
import { nodeEnvelopeAesGcm } from '../../../src/node/envelope/index.js';
import golden from '../../fixtures/happy-formats.json' with { type: 'json' };
import { foreignCipherModule } from '../../helpers/cipher-module.js';
import { codeOf } from '../../helpers/errors.js';
import { withInstalled } from '../../helpers/installed.js';

/** The Cipher-API implementation on a module that is not node:crypto itself (as react-native-quick-crypto). */
const foreignEnvelopeAesGcm = cipherModuleEnvelopeAesGcm(foreignCipherModule().module, 'foreign');
const implementations: EnvelopeAesGcm[] = [nobleEnvelopeAesGcm, nodeEnvelopeAesGcm, foreignEnvelopeAesGcm];

/** Runs `fn` with `implementation` installed, then restores what was installed before. */
const using = <T>(implementation: EnvelopeAesGcm, fn: () => T): T =>
  withInstalled(getEnvelopeAesGcm, setEnvelopeAesGcm, implementation, fn);

describe('installation', () => {
  afterEach(() => setEnvelopeAesGcm(nodeEnvelopeAesGcm));
  it('importing happy-media/node installs node:crypto', () => {
    expect(getEnvelopeAesGcm().name).toBe('node');
  });
  it('rejects something that is not an implementation', () => {
    expect(codeOf(() => setEnvelopeAesGcm({ name: 'x' } as unknown as EnvelopeAesGcm))).toBe(
      'ERR_INVALID_ARGUMENT',
    );
    expect(getEnvelopeAesGcm().name).toBe('node');
  });
});

describe('record assembly', () => {
  it('writes straight into the record where the implementation can (sealInto), else copies seal(): same bytes', () => {
    expect(nodeEnvelopeAesGcm.sealInto).toBeTypeOf('function');
    expect(nobleEnvelopeAesGcm.sealInto).toBeUndefined();
    const key = randomBytes(32);
    const nonce = randomBytes(12);
    const plaintext = utf8('{"type":"text","text":"assembled once"}');
    const viaCopy = using(
      { name: 'copy', seal: nodeEnvelopeAesGcm.seal, open: nodeEnvelopeAesGcm.open },
      () => encryptDataKey(plaintext, key, { nonce }),
    );
    expect(using(nodeEnvelopeAesGcm, () => encryptDataKey(plaintext, key, { nonce }))).toEqual(viaCopy);
    expect(viaCopy.length).toBe(1 + 12 + plaintext.length + 16);
  });
  it('refuses an implementation whose seal() returns the wrong length instead of writing a malformed record', () => {
    const short: EnvelopeAesGcm = {
      name: 'short',
      seal: (p, n, k) => nobleEnvelopeAesGcm.seal(p, n, k).subarray(1),
      open: nobleEnvelopeAesGcm.open,
    };
    expect(() => using(short, () => encryptDataKey(utf8('{}'), randomBytes(32)))).toThrow(
      /unexpected ciphertext length/,
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
          const byNoble = using(nobleEnvelopeAesGcm, () => encryptDataKey(input, key, { nonce }));
          const byNode = using(nodeEnvelopeAesGcm, () => encryptDataKey(input, key, { nonce }));
          expect(byNode).toEqual(byNoble);
          expect(using(foreignEnvelopeAesGcm, () => encryptDataKey(input, key, { nonce }))).toEqual(byNoble);
          expect(using(foreignEnvelopeAesGcm, () => decryptDataKey(byNoble, key))).toEqual(plaintext);
          expect(using(nobleEnvelopeAesGcm, () => decryptDataKey(byNode, key))).toEqual(plaintext);
          expect(using(nodeEnvelopeAesGcm, () => decryptDataKey(byNoble, key))).toEqual(plaintext);
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
    const envelope = using(nodeEnvelopeAesGcm, () => sealMessage(message, key));
    expect(using(nobleEnvelopeAesGcm, () => openMessage(envelope, key))).toEqual(message);
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
