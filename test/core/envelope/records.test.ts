/**
 * Byte-level behaviour of each layout: round trips, the error family of every kind of bad input, views at
 * non-zero offsets, and that keys never reach an error message.
 */
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { fromHex, randomBytes, toBase64, toHex, utf8 } from '../../../src/core/bytes.js';
import {
  boxDataKey,
  boxForPublicKey,
  contentKeyPair,
  createDataKey,
  DATA_KEY_BUNDLE_BYTES,
  DATA_KEY_OVERHEAD_BYTES,
  dataKey,
  dataKeyCiphertextSize,
  decryptDataKey,
  decryptJson,
  decryptLegacy,
  encryptDataKey,
  encryptJson,
  encryptLegacy,
  LEGACY_OVERHEAD_BYTES,
  legacyCiphertextSize,
  legacyKey,
  openBoxForPublicKey,
  openDataKeyBundle,
  sessionKey,
} from '../../../src/core/envelope/index.js';
import { decryptV1Blob, encryptV1Blob } from '../../../src/core/happy/index.js';
import { codeOf } from '../../helpers/errors.js';

/** Copies `bytes` into the middle of a bigger buffer, so the view has a non-zero byteOffset. */
function offsetView(bytes: Uint8Array, offset = 7): Uint8Array {
  const backing = new Uint8Array(bytes.length + offset + 5).fill(0xee);
  backing.set(bytes, offset);
  const view = backing.subarray(offset, offset + bytes.length);
  expect(view.byteOffset).toBe(offset);
  return view;
}

const key = fromHex('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
const otherKey = fromHex('ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');

const variants = [
  { name: 'legacy', encrypt: encryptLegacy, decrypt: decryptLegacy, overhead: LEGACY_OVERHEAD_BYTES },
  { name: 'dataKey', encrypt: encryptDataKey, decrypt: decryptDataKey, overhead: DATA_KEY_OVERHEAD_BYTES },
  { name: 'v1 blob', encrypt: encryptV1Blob, decrypt: decryptV1Blob, overhead: LEGACY_OVERHEAD_BYTES },
] as const;

describe.each(variants)('$name record', ({ encrypt, decrypt, overhead }) => {
  it('round-trips empty and non-empty plaintexts with the documented overhead', () => {
    for (const size of [0, 1, 17, 1000]) {
      const plaintext = randomBytes(size);
      const record = encrypt(plaintext, key);
      expect(record.length).toBe(size + overhead);
      expect(decrypt(record, key)).toEqual(plaintext);
    }
  });
  it('draws a fresh nonce each time', () => {
    const plaintext = utf8('same');
    expect(toHex(encrypt(plaintext, key))).not.toBe(toHex(encrypt(plaintext, key)));
  });
  it('works on views at non-zero offsets, in and out', () => {
    const plaintext = randomBytes(100);
    const record = encrypt(offsetView(plaintext), offsetView(key));
    expect(decrypt(offsetView(record), offsetView(key))).toEqual(plaintext);
  });
  it('rejects a wrong key, a flipped bit anywhere and a truncation as ERR_DECRYPTION_FAILED', () => {
    const record = encrypt(utf8('{"a":1}'), key);
    expect(codeOf(() => decrypt(record, otherKey))).toBe('ERR_DECRYPTION_FAILED');
    // Every byte past the version byte is authenticated (the dataKey version byte is a format error).
    const first = overhead === DATA_KEY_OVERHEAD_BYTES ? 1 : 0;
    for (let i = first; i < record.length; i++) {
      const flipped = record.slice();
      flipped[i]! ^= 0x01 << (i % 8);
      expect(codeOf(() => decrypt(flipped, key))).toBe('ERR_DECRYPTION_FAILED');
    }
    expect(codeOf(() => decrypt(record.subarray(0, record.length - 1), key))).toBe('ERR_DECRYPTION_FAILED');
    expect(codeOf(() => decrypt(record.subarray(0, overhead), key))).toBe('ERR_DECRYPTION_FAILED');
  });
  it('rejects records shorter than the overhead as ERR_FORMAT', () => {
    const record = encrypt(utf8('x'), key);
    expect(codeOf(() => decrypt(record.subarray(0, overhead - 1), key))).toBe('ERR_FORMAT');
    expect(codeOf(() => decrypt(new Uint8Array(0), key))).toBe('ERR_FORMAT');
  });
  it('rejects keys and nonces of the wrong length as ERR_INVALID_ARGUMENT, naming the parameter', () => {
    expect(codeOf(() => encrypt(utf8('x'), key.subarray(0, 31)))).toBe('ERR_INVALID_ARGUMENT');
    expect(() => encrypt(utf8('x'), key.subarray(0, 31))).toThrow(
      /expected a 32-byte (key|value) for `\w+` but received 31 bytes/,
    );
    expect(codeOf(() => decrypt(new Uint8Array(64), new Uint8Array(33)))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => encrypt(utf8('x'), key, { nonce: new Uint8Array(5) }))).toBe('ERR_INVALID_ARGUMENT');
    expect(() => encrypt(utf8('x'), key, { nonce: new Uint8Array(5) })).toThrow(/`nonce`/);
    expect(codeOf(() => encrypt('text' as unknown as Uint8Array, key))).toBe('ERR_INVALID_ARGUMENT');
  });
});

describe('dataKey version byte', () => {
  it('is 0 and any other value is ERR_UNSUPPORTED_VERSION, checked before the length', () => {
    const record = encryptDataKey(utf8('{}'), key);
    expect(record[0]).toBe(0);
    for (const version of [1, 2, 0x80, 0xff]) {
      const changed = record.slice();
      changed[0] = version;
      expect(codeOf(() => decryptDataKey(changed, key))).toBe('ERR_UNSUPPORTED_VERSION');
    }
    expect(codeOf(() => decryptDataKey(Uint8Array.of(1), key))).toBe('ERR_UNSUPPORTED_VERSION');
    expect(codeOf(() => decryptDataKey(Uint8Array.of(0), key))).toBe('ERR_FORMAT');
  });
});

describe('sizes', () => {
  it('are functions of the plaintext length', () => {
    expect(legacyCiphertextSize(17)).toBe(57);
    expect(dataKeyCiphertextSize(17)).toBe(46);
    expect(encryptLegacy(new Uint8Array(17), key).length).toBe(legacyCiphertextSize(17));
    expect(encryptDataKey(new Uint8Array(17), key).length).toBe(dataKeyCiphertextSize(17));
    expect(codeOf(() => legacyCiphertextSize(-1))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => dataKeyCiphertextSize(1.5))).toBe('ERR_INVALID_ARGUMENT');
  });
});

describe('JSON records', () => {
  it('round-trip JSON values in both variants', () => {
    const value = { text: 'héllo 🌍', n: [1, 2.5, null, true], nested: { a: '' } };
    for (const sk of [legacyKey(key), dataKey(key)]) {
      expect(decryptJson(encryptJson(value, sk), sk)).toEqual(value);
    }
  });
  it('a legacy record does not open as dataKey, nor the reverse', () => {
    const value = { text: 'long enough for either minimum length' };
    const legacy = encryptJson(value, legacyKey(key));
    const modern = encryptJson(value, dataKey(key));
    // A legacy record's first byte is a random nonce byte: version error or authentication failure.
    expect(['ERR_DECRYPTION_FAILED', 'ERR_UNSUPPORTED_VERSION']).toContain(
      codeOf(() => decryptJson(legacy, dataKey(key))),
    );
    expect(codeOf(() => decryptJson(modern, legacyKey(key)))).toBe('ERR_DECRYPTION_FAILED');
  });
  it('rejects values JSON cannot carry as ERR_INVALID_ARGUMENT', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const bad of [undefined, () => 1, Symbol('s'), 10n, cyclic]) {
      expect(codeOf(() => encryptJson(bad, dataKey(key)))).toBe('ERR_INVALID_ARGUMENT');
    }
  });
  it('authentic plaintext that is not JSON or not UTF-8 is ERR_FORMAT, without quoting it', () => {
    const notJson = encryptDataKey(utf8('secret words, not json'), key);
    expect(codeOf(() => decryptJson(notJson, dataKey(key)))).toBe('ERR_FORMAT');
    expect(() => decryptJson(notJson, dataKey(key))).not.toThrow(/secret words/);
    const notUtf8 = encryptLegacy(Uint8Array.of(0xff, 0xfe, 0x22), key);
    expect(codeOf(() => decryptJson(notUtf8, legacyKey(key)))).toBe('ERR_FORMAT');
  });
  it('rejects a malformed SessionKey as ERR_INVALID_ARGUMENT', () => {
    for (const bad of [null, {}, { variant: 'legacy', key }, { variant: 'other', key }, key]) {
      expect(codeOf(() => encryptJson({}, bad as never))).toBe('ERR_INVALID_ARGUMENT');
    }
    expect(codeOf(() => legacyKey(new Uint8Array(16)))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => dataKey(new Uint8Array(64)))).toBe('ERR_INVALID_ARGUMENT');
    expect(codeOf(() => sessionKey('aes' as never, key))).toBe('ERR_INVALID_ARGUMENT');
    expect(sessionKey('legacy', key)).toEqual({ variant: 'legacy', secret: key });
    expect(sessionKey('datakey', key)).toEqual({ variant: 'datakey', key });
  });
});

describe('data-key bundle', () => {
  const master = randomBytes(32);
  const { publicKey, secretKey } = contentKeyPair(master);
  it('round-trips a fresh data key in 105 bytes', () => {
    const fresh = createDataKey();
    expect(fresh.length).toBe(32);
    const bundle = boxDataKey(fresh, publicKey);
    expect(bundle.length).toBe(DATA_KEY_BUNDLE_BYTES);
    expect(bundle[0]).toBe(0);
    expect(openDataKeyBundle(offsetView(bundle), offsetView(secretKey))).toEqual(fresh);
  });
  it('rejects a wrong key and every flipped bit past the version byte as ERR_DECRYPTION_FAILED', () => {
    // Includes bit 255 of the ephemeral public key, which X25519 itself ignores: we reject
    // non-canonical ephemeral keys so that a bundle has exactly one encoding.
    const bundle = boxDataKey(createDataKey(), publicKey);
    expect(codeOf(() => openDataKeyBundle(bundle, contentKeyPair(randomBytes(32)).secretKey))).toBe(
      'ERR_DECRYPTION_FAILED',
    );
    for (let i = 1; i < bundle.length; i++) {
      const flipped = bundle.slice();
      flipped[i]! ^= 0x80 >> (i % 8);
      expect(codeOf(() => openDataKeyBundle(flipped, secretKey))).toBe('ERR_DECRYPTION_FAILED');
    }
  });
  it('rejects a wrong version, a wrong length and an empty bundle as format errors', () => {
    const bundle = boxDataKey(createDataKey(), publicKey);
    const versioned = bundle.slice();
    versioned[0] = 1;
    expect(codeOf(() => openDataKeyBundle(versioned, secretKey))).toBe('ERR_UNSUPPORTED_VERSION');
    expect(codeOf(() => openDataKeyBundle(bundle.subarray(0, 104), secretKey))).toBe('ERR_FORMAT');
    expect(codeOf(() => openDataKeyBundle(new Uint8Array(106), secretKey))).toBe('ERR_FORMAT');
    expect(codeOf(() => openDataKeyBundle(new Uint8Array(0), secretKey))).toBe('ERR_FORMAT');
    expect(codeOf(() => boxDataKey(new Uint8Array(31), publicKey))).toBe('ERR_INVALID_ARGUMENT');
  });
});

describe('low-order X25519 points', () => {
  // Curve25519 points of order 1 and 8 (the set every library blocklists), and the same point + p.
  const lowOrder = [
    '0000000000000000000000000000000000000000000000000000000000000000',
    '0100000000000000000000000000000000000000000000000000000000000000',
    'e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800',
    '5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157',
    'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
    'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
    'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  ].map((hex) => fromHex(hex));
  it('sealing for a low-order recipient key is ERR_INVALID_ARGUMENT', () => {
    for (const point of lowOrder) {
      expect(codeOf(() => boxDataKey(createDataKey(), point))).toBe('ERR_INVALID_ARGUMENT');
      expect(codeOf(() => boxForPublicKey(utf8('x'), point))).toBe('ERR_INVALID_ARGUMENT');
    }
  });
  it('a bundle whose ephemeral key is low-order does not open, even though its box authenticates', () => {
    const { secretKey } = contentKeyPair(randomBytes(32));
    for (const point of lowOrder) {
      // Build what an attacker could build without any key: the box key from an all-zero shared secret.
      const forged = new Uint8Array(DATA_KEY_BUNDLE_BYTES);
      forged.set(point, 1);
      const nonce = randomBytes(24);
      forged.set(nonce, 33);
      forged.set(zeroSharedSecretBox(createDataKey(), nonce), 57);
      expect(codeOf(() => openDataKeyBundle(forged, secretKey))).toBe('ERR_DECRYPTION_FAILED');
    }
  });
  it('openBoxForPublicKey rejects boxes shorter than 72 bytes as ERR_FORMAT', () => {
    expect(codeOf(() => openBoxForPublicKey(new Uint8Array(71), new Uint8Array(32)))).toBe('ERR_FORMAT');
  });
});

/** crypto_box with an all-zero shared secret: what anyone can compute for a low-order public key. */
function zeroSharedSecretBox(plaintext: Uint8Array, nonce: Uint8Array): Uint8Array {
  // tweetnacl's box.before with a low-order public key yields HSalsa20(0); any secret key gives the same.
  return nacl.box(plaintext, nonce, new Uint8Array(32), randomBytes(32));
}

describe('errors never carry key material', () => {
  it('messages and causes do not contain the key in hex or base64', () => {
    const secrets = [toHex(key), toBase64(key)];
    const failures: unknown[] = [];
    for (const fn of [
      () => decryptDataKey(encryptDataKey(utf8('x'), otherKey), key),
      () => decryptLegacy(encryptLegacy(utf8('x'), otherKey), key),
      () => decryptJson(encryptDataKey(utf8('nope'), key), dataKey(key)),
      () => encryptDataKey(utf8('x'), key.subarray(1)),
    ]) {
      try {
        fn();
      } catch (error) {
        failures.push(error);
      }
    }
    expect(failures).toHaveLength(4);
    for (const error of failures) {
      const text = `${String(error)} ${JSON.stringify(error)} ${String((error as Error).cause ?? '')}`;
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });
});
