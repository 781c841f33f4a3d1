/**
 * The envelope layer against external vectors (../shared/corpus, see ../shared/corpus/MANIFEST.md for provenance):
 * - crypto/happy_format_vectors.json: NaCl and Wycheproof KATs rebuilt into Happy's layouts: every valid
 *   case opens (and re-encrypts to the same bytes), every invalid one is rejected with the right family;
 * - crypto/nacl_kat.json: NaCl secretbox and box KATs, and libsodium's sealed box, through our layouts;
 * - crypto/tweetnacl/*.random.json: tweetnacl's random secretbox, box and scalarmult vectors;
 * - crypto/wycheproof/aes_gcm_test.json: 96-bit IV, 256-bit key, 128-bit tag groups through the dataKey
 *   layout, with each AES-GCM implementation (noble, node:crypto; WebCrypto, node:crypto driven as
 *   asynchronous and expo-crypto's own web AES through the asynchronous functions); cases with AAD cannot
 *   be expressed in the layout and are counted, not run. The aes256gcm cases of happy_format_vectors.json
 *   go through the asynchronous functions over WebCrypto and expo-crypto's web AES too (the app's
 *   envelope cipher);
 * - crypto/wycheproof/x25519_test.json: through crypto_box both ways. Low-order public keys (all-zero
 *   shared secret) are refused; non-canonical ephemeral keys are refused when opening (see
 *   docs/encryption.md).
 *
 * The expected box of a shared secret is computed with @noble/ciphers (HSalsa20 + XSalsa20-Poly1305), a
 * library independent of the tweetnacl our code uses.
 */

import { hsalsa, xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsyncAesGcm } from '../../src/core/aes-gcm/aes-gcm.js';
import { expoCryptoAesGcm } from '../../src/core/aes-gcm/expo-crypto.js';
import { nobleAesGcm } from '../../src/core/aes-gcm/noble.js';
import { webCryptoAesGcm } from '../../src/core/aes-gcm/webcrypto.js';
import { concatBytes, fromBase64, fromHex, toHex } from '../../src/core/bytes.js';
import {
  boxForPublicKey,
  decryptDataKey,
  decryptDataKeyAsync,
  decryptLegacy,
  encryptDataKey,
  encryptDataKeyAsync,
  encryptLegacy,
  openBoxForPublicKey,
  openDataKeyBundle,
} from '../../src/core/envelope/index.js';
import { decryptV1Blob, encryptV1Blob } from '../../src/core/happy/index.js';
import { getRuntime, installRuntime, type Runtime } from '../../src/core/runtime/runtime.js';
import { nodeAesGcm } from '../../src/node/runtime/node-aes-gcm.js';
import { asAsync } from '../helpers/aes-gcm.js';
import { hasCorpus, readCorpusJson } from '../helpers/corpus.js';
import { codeOf, rejectionCodeOf } from '../helpers/errors.js';
import { loadExpoCryptoAes } from '../helpers/expo-crypto.js';

const b64 = (text: string) => fromBase64(text);

/** crypto_box_beforenm: HSalsa20(shared, 0^16) with the "expand 32-byte k" constants. */
function boxKeyOfSharedSecret(shared: Uint8Array): Uint8Array {
  const sigma = new Uint32Array([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
  const out = new Uint32Array(8);
  hsalsa(sigma, new Uint32Array(shared.slice().buffer), new Uint32Array(4), out);
  return new Uint8Array(out.buffer);
}

/** The NaCl box (tag 16 | ciphertext) that X25519 secret `shared` gives, computed by @noble/ciphers. */
function expectedBox(shared: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array): Uint8Array {
  return xsalsa20poly1305(boxKeyOfSharedSecret(shared), nonce).encrypt(plaintext);
}

const isZero = (bytes: Uint8Array) => bytes.every((byte) => byte === 0);

// ---------------------------------------------------------------------------------------------------

interface HappyVectors {
  aes256gcm: {
    source: string;
    flags: string[];
    keyBase64: string;
    bundleBase64: string;
    plaintextHex: string;
    expect: 'decrypts' | 'reject';
  }[];
  secretbox: { source: string; keyBase64: string; bundleBase64: string; plaintextHex: string }[];
  boxWrap: {
    source: string;
    recipientPublicKeyBase64: string;
    recipientSecretKeyBase64?: string;
    ephemeralSecretKeyBase64: string;
    nonceBase64: string;
    bundleBase64: string;
    dataEncryptionKeyBase64?: string;
    plaintextHex: string;
  }[];
  negative: { name: string; kind: 'aesgcm' | 'secretbox'; keyBase64: string; bundleBase64: string }[];
}

const happy = hasCorpus
  ? await readCorpusJson<HappyVectors>('crypto', 'happy_format_vectors.json')
  : undefined;

/** The family each negative case belongs to, from what its name says was done to it. */
function expectedFamily(name: string): string {
  if (/version byte/.test(name)) return 'ERR_UNSUPPORTED_VERSION';
  if (/truncated|empty/.test(name)) return 'ERR_FORMAT';
  return 'ERR_DECRYPTION_FAILED';
}

describe.skipIf(!hasCorpus)('crypto/happy_format_vectors.json', () => {
  const vectors = happy as HappyVectors;

  it('has the expected number of cases', () => {
    expect(vectors.aes256gcm.length).toBe(48);
    expect(vectors.secretbox.length).toBe(19);
    expect(vectors.boxWrap.length).toBe(8);
    expect(vectors.negative.length).toBe(7);
  });

  it.each(vectors?.aes256gcm ?? [])('aes256gcm $source ($expect)', (v) => {
    const bundle = b64(v.bundleBase64);
    const key = b64(v.keyBase64);
    if (v.expect === 'decrypts') {
      expect(toHex(decryptDataKey(bundle, key))).toBe(v.plaintextHex);
      expect(encryptDataKey(fromHex(v.plaintextHex), key, { nonce: bundle.subarray(1, 13) })).toEqual(bundle);
    } else {
      expect(codeOf(() => decryptDataKey(bundle, key))).toBe('ERR_DECRYPTION_FAILED');
    }
  });

  it.each(vectors?.secretbox ?? [])('secretbox $source opens and re-encrypts (legacy and v1 blob)', (v) => {
    const bundle = b64(v.bundleBase64);
    const key = b64(v.keyBase64);
    const plaintext = fromHex(v.plaintextHex);
    expect(decryptLegacy(bundle, key)).toEqual(plaintext);
    expect(decryptV1Blob(bundle, key)).toEqual(plaintext);
    expect(encryptLegacy(plaintext, key, { nonce: bundle.subarray(0, 24) })).toEqual(bundle);
    expect(encryptV1Blob(plaintext, key, { nonce: bundle.subarray(0, 24) })).toEqual(bundle);
  });

  it.each(vectors?.boxWrap ?? [])('boxWrap $source', (v) => {
    const bundle = b64(v.bundleBase64);
    const plaintext = fromHex(v.plaintextHex);
    expect(
      boxForPublicKey(plaintext, b64(v.recipientPublicKeyBase64), {
        ephemeralSecretKey: b64(v.ephemeralSecretKeyBase64),
        nonce: b64(v.nonceBase64),
      }),
    ).toEqual(bundle);
    if (v.recipientSecretKeyBase64 !== undefined) {
      expect(openBoxForPublicKey(bundle, b64(v.recipientSecretKeyBase64))).toEqual(plaintext);
    }
    if (v.dataEncryptionKeyBase64 !== undefined && v.recipientSecretKeyBase64 !== undefined) {
      const dek = b64(v.dataEncryptionKeyBase64);
      expect(dek[0]).toBe(0);
      expect(dek.subarray(1)).toEqual(bundle);
      // The KAT boxes a 131-byte message, not a 32-byte data key: a data-key bundle must be 105 bytes.
      expect(dek.length).not.toBe(105);
      expect(codeOf(() => openDataKeyBundle(dek, b64(v.recipientSecretKeyBase64 as string)))).toBe(
        'ERR_FORMAT',
      );
    }
  });

  it.each(vectors?.negative ?? [])('negative: $name', (v) => {
    const bundle = b64(v.bundleBase64);
    const key = b64(v.keyBase64);
    const decrypt = v.kind === 'aesgcm' ? decryptDataKey : decryptLegacy;
    expect(codeOf(() => decrypt(bundle, key))).toBe(expectedFamily(v.name));
  });
});

/** expo-crypto's own web AES (its ExpoCryptoAES.web.js over crypto.subtle): the app's envelope cipher. */
const expoAesGcm = hasCorpus ? expoCryptoAesGcm(await loadExpoCryptoAes()) : undefined;

describe.skipIf(!hasCorpus).each([webCryptoAesGcm, expoAesGcm as AsyncAesGcm])(
  'crypto/happy_format_vectors.json through the asynchronous dataKey functions ($name)',
  (implementation) => {
    let before: Runtime;
    beforeAll(() => {
      before = getRuntime();
      installRuntime({ aesGcm: implementation });
    });
    afterAll(() => installRuntime(before));

    it('every aes256gcm case: valid ones open and re-encrypt to the same bytes, invalid ones refused', async () => {
      const vectors = (happy as HappyVectors).aes256gcm;
      expect(vectors.length).toBe(48);
      for (const v of vectors) {
        const bundle = b64(v.bundleBase64);
        const key = b64(v.keyBase64);
        if (v.expect === 'decrypts') {
          expect(toHex(await decryptDataKeyAsync(bundle, key)), v.source).toBe(v.plaintextHex);
          expect(
            await encryptDataKeyAsync(fromHex(v.plaintextHex), key, { nonce: bundle.subarray(1, 13) }),
          ).toEqual(bundle);
        } else {
          expect(await rejectionCodeOf(() => decryptDataKeyAsync(bundle, key)), v.source).toBe(
            'ERR_DECRYPTION_FAILED',
          );
        }
      }
      for (const v of (happy as HappyVectors).negative.filter((n) => n.kind === 'aesgcm')) {
        expect(
          await rejectionCodeOf(() => decryptDataKeyAsync(b64(v.bundleBase64), b64(v.keyBase64))),
          v.name,
        ).toBe(expectedFamily(v.name));
      }
    });
  },
);

// ---------------------------------------------------------------------------------------------------

interface NaclKat {
  secretbox_xsalsa20poly1305: { key: string; nonce: string; plaintext: string; ciphertext: string }[];
  box_curve25519xsalsa20poly1305: {
    alice_sk: string;
    alice_pk: string;
    bob_sk: string;
    bob_pk: string;
    nonce: string;
    plaintext: string;
    ciphertext: string;
  }[];
  sealedbox_libsodium: { sk: string; pk: string; plaintext: string; ciphertext: string }[];
}

const nacl = hasCorpus ? await readCorpusJson<NaclKat>('crypto', 'nacl_kat.json') : undefined;

describe.skipIf(!hasCorpus)('crypto/nacl_kat.json', () => {
  const kat = nacl as NaclKat;
  it('secretbox KAT through the legacy layout, both ways', () => {
    expect(kat.secretbox_xsalsa20poly1305.length).toBeGreaterThan(0);
    for (const v of kat.secretbox_xsalsa20poly1305) {
      const record = concatBytes(fromHex(v.nonce), fromHex(v.ciphertext));
      expect(encryptLegacy(fromHex(v.plaintext), fromHex(v.key), { nonce: fromHex(v.nonce) })).toEqual(
        record,
      );
      expect(toHex(decryptLegacy(record, fromHex(v.key)))).toBe(v.plaintext);
    }
  });
  it('box KAT (Alice ephemeral, Bob recipient) through the public-key box layout, both ways', () => {
    for (const v of kat.box_curve25519xsalsa20poly1305) {
      const sealed = concatBytes(fromHex(v.alice_pk), fromHex(v.nonce), fromHex(v.ciphertext));
      const made = boxForPublicKey(fromHex(v.plaintext), fromHex(v.bob_pk), {
        ephemeralSecretKey: fromHex(v.alice_sk),
        nonce: fromHex(v.nonce),
      });
      expect(made).toEqual(sealed);
      expect(toHex(openBoxForPublicKey(sealed, fromHex(v.bob_sk)))).toBe(v.plaintext);
    }
  });
  it('libsodium sealed box KAT opens through our box (nonce = BLAKE2b-192(epk || pk))', () => {
    for (const v of kat.sealedbox_libsodium) {
      const ciphertext = fromHex(v.ciphertext);
      const ephemeralPublicKey = ciphertext.subarray(0, 32);
      const nonce = blake2b(concatBytes(ephemeralPublicKey, fromHex(v.pk)), { dkLen: 24 });
      const sealed = concatBytes(ephemeralPublicKey, nonce, ciphertext.subarray(32));
      expect(toHex(openBoxForPublicKey(sealed, fromHex(v.sk)))).toBe(v.plaintext);
    }
  });
});

// ---------------------------------------------------------------------------------------------------

type Row = string[];
const tweetnacl = hasCorpus
  ? {
      secretbox: await readCorpusJson<Row[]>('crypto', 'tweetnacl', 'secretbox.random.json'),
      box: await readCorpusJson<Row[]>('crypto', 'tweetnacl', 'box.random.json'),
      scalarmult: await readCorpusJson<Row[]>('crypto', 'tweetnacl', 'scalarmult.random.json'),
    }
  : undefined;

describe.skipIf(!hasCorpus)('crypto/tweetnacl/*.random.json', () => {
  const t = tweetnacl as NonNullable<typeof tweetnacl>;
  it('secretbox.random: every vector through the legacy layout and the v1 blob, both ways', () => {
    expect(t.secretbox.length).toBe(768);
    for (const [key, nonce, message, box] of t.secretbox as [string, string, string, string][]) {
      const record = concatBytes(b64(nonce), b64(box));
      expect(encryptLegacy(b64(message), b64(key), { nonce: b64(nonce) })).toEqual(record);
      expect(decryptLegacy(record, b64(key))).toEqual(b64(message));
      expect(decryptV1Blob(record, b64(key))).toEqual(b64(message));
    }
  });
  it('box.random (zero nonce): every vector through boxForPublicKey', () => {
    expect(t.box.length).toBe(256);
    const nonce = new Uint8Array(24);
    for (const [publicKey, secretKey, message, box] of t.box as [string, string, string, string][]) {
      const sealed = boxForPublicKey(b64(message), b64(publicKey), {
        ephemeralSecretKey: b64(secretKey),
        nonce,
      });
      expect(sealed.subarray(56)).toEqual(b64(box));
      expect(sealed.subarray(32, 56)).toEqual(nonce);
    }
  });
  it('scalarmult.random: the shared secret of each pair keys our box, both ways', () => {
    expect(t.scalarmult.length).toBe(256);
    const nonce = new Uint8Array(24).fill(0x5a);
    const message = new TextEncoder().encode('{"hello":"world"}');
    for (const [pk1, sk1, pk2, sk2, shared] of t.scalarmult as string[][]) {
      const sealed = boxForPublicKey(message, b64(pk2 as string), {
        ephemeralSecretKey: b64(sk1 as string),
        nonce,
      });
      expect(sealed.subarray(0, 32)).toEqual(b64(pk1 as string));
      expect(sealed.subarray(56)).toEqual(expectedBox(b64(shared as string), nonce, message));
      expect(openBoxForPublicKey(sealed, b64(sk2 as string))).toEqual(message);
    }
  });
});

// ---------------------------------------------------------------------------------------------------

interface AeadFile {
  testGroups: {
    ivSize: number;
    keySize: number;
    tagSize: number;
    tests: {
      tcId: number;
      comment: string;
      flags: string[];
      key: string;
      iv: string;
      aad: string;
      msg: string;
      ct: string;
      tag: string;
      result: 'valid' | 'invalid' | 'acceptable';
    }[];
  }[];
}

const aesGcm = hasCorpus
  ? await readCorpusJson<AeadFile>('crypto', 'wycheproof', 'aes_gcm_test.json')
  : undefined;

describe.skipIf(!hasCorpus).each([nobleAesGcm, nodeAesGcm])(
  'crypto/wycheproof/aes_gcm_test.json through the dataKey layout ($name)',
  (implementation) => {
    let before: Runtime;
    beforeAll(() => {
      before = getRuntime();
      installRuntime({ aesGcm: implementation });
    });
    afterAll(() => installRuntime(before));

    const groups = (aesGcm?.testGroups ?? []).filter(
      (g) => g.ivSize === 96 && g.keySize === 256 && g.tagSize === 128,
    );
    const tests = groups.flatMap((g) => g.tests);
    const withoutAad = tests.filter((t) => t.aad === '');

    it('selects the 96-bit IV, 256-bit key groups; cases with AAD cannot be expressed in the layout', () => {
      expect(tests.length).toBe(66);
      expect(withoutAad.length).toBeGreaterThan(30);
      expect(withoutAad.some((t) => t.result === 'invalid')).toBe(true);
    });

    it.each(withoutAad)('tcId $tcId $result: $comment', (t) => {
      const record = concatBytes(Uint8Array.of(0), fromHex(t.iv), fromHex(t.ct), fromHex(t.tag));
      const key = fromHex(t.key);
      if (t.result === 'invalid') {
        expect(codeOf(() => decryptDataKey(record, key))).toBe('ERR_DECRYPTION_FAILED');
        return;
      }
      expect(toHex(decryptDataKey(record, key))).toBe(t.msg);
      expect(encryptDataKey(fromHex(t.msg), key, { nonce: fromHex(t.iv) })).toEqual(record);
    });
  },
);

describe.skipIf(!hasCorpus).each([webCryptoAesGcm, asAsync(nodeAesGcm), expoAesGcm as AsyncAesGcm])(
  'crypto/wycheproof/aes_gcm_test.json through the asynchronous dataKey functions ($name)',
  (implementation) => {
    let before: Runtime;
    beforeAll(() => {
      before = getRuntime();
      installRuntime({ aesGcm: implementation });
    });
    afterAll(() => installRuntime(before));

    const tests = (aesGcm?.testGroups ?? [])
      .filter((g) => g.ivSize === 96 && g.keySize === 256 && g.tagSize === 128)
      .flatMap((g) => g.tests)
      .filter((t) => t.aad === '');

    it('every case without AAD: valid ones reproduced both ways, invalid ones refused', async () => {
      expect(tests.length).toBeGreaterThan(30);
      for (const t of tests) {
        const record = concatBytes(Uint8Array.of(0), fromHex(t.iv), fromHex(t.ct), fromHex(t.tag));
        const key = fromHex(t.key);
        if (t.result === 'invalid') {
          expect(await rejectionCodeOf(() => decryptDataKeyAsync(record, key)), `tcId ${t.tcId}`).toBe(
            'ERR_DECRYPTION_FAILED',
          );
          continue;
        }
        expect(toHex(await decryptDataKeyAsync(record, key)), `tcId ${t.tcId}`).toBe(t.msg);
        expect(await encryptDataKeyAsync(fromHex(t.msg), key, { nonce: fromHex(t.iv) })).toEqual(record);
      }
    });
  },
);

// ---------------------------------------------------------------------------------------------------

interface XdhFile {
  testGroups: {
    tests: {
      tcId: number;
      comment: string;
      flags: string[];
      public: string;
      private: string;
      shared: string;
      result: 'valid' | 'invalid' | 'acceptable';
    }[];
  }[];
}

const x25519 = hasCorpus
  ? await readCorpusJson<XdhFile>('crypto', 'wycheproof', 'x25519_test.json')
  : undefined;

/** Canonical field element: below 2^255 - 19 (bit 255 clear and not one of the 19 values above p). */
function isCanonical(publicKey: Uint8Array): boolean {
  const p = (1n << 255n) - 19n;
  let value = 0n;
  for (let i = 31; i >= 0; i--) value = (value << 8n) | BigInt(publicKey[i] as number);
  return value < p;
}

describe.skipIf(!hasCorpus)('crypto/wycheproof/x25519_test.json through crypto_box', () => {
  const tests = (x25519?.testGroups ?? []).flatMap((g) => g.tests);
  const nonce = fromHex('000102030405060708090a0b0c0d0e0f1011121314151617');
  const message = new TextEncoder().encode('data key: 32 bytes of secret!!!!');

  it('has every test', () => {
    expect(tests.length).toBe(518);
    expect(tests.filter((t) => isZero(fromHex(t.shared))).length).toBeGreaterThan(0);
  });

  it.each(tests)('tcId $tcId $result [$flags]: sealing for `public`', (t) => {
    const shared = fromHex(t.shared);
    const seal = () =>
      boxForPublicKey(message, fromHex(t.public), { ephemeralSecretKey: fromHex(t.private), nonce });
    if (isZero(shared)) {
      // Low-order recipient key: refused rather than sealing under a key everybody knows.
      expect(codeOf(seal)).toBe('ERR_INVALID_ARGUMENT');
      return;
    }
    // Everything else, including twist points and non-canonical encodings (RFC 7748 §5), is accepted
    // and keyed by exactly the vector's shared secret.
    expect(seal().subarray(56)).toEqual(expectedBox(shared, nonce, message));
  });

  it.each(tests)('tcId $tcId $result [$flags]: opening a box whose ephemeral key is `public`', (t) => {
    const shared = fromHex(t.shared);
    const publicKey = fromHex(t.public);
    const sealed = concatBytes(publicKey, nonce, expectedBox(shared, nonce, message));
    const open = () => openBoxForPublicKey(sealed, fromHex(t.private));
    if (isZero(shared) || !isCanonical(publicKey)) {
      expect(codeOf(open)).toBe('ERR_DECRYPTION_FAILED');
    } else {
      expect(open()).toEqual(message);
    }
  });
});
