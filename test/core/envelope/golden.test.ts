/**
 * Reproduces every golden vector of shared/happy-formats.md (transcribed in test/fixtures/happy-formats.json)
 * byte for byte, in both directions.
 */
import { describe, expect, it } from 'vitest';
import { fromBase64, fromHex, toBase64, toHex, utf8 } from '../../../src/core/bytes.js';
import {
  boxDataKey,
  contentKeyPair,
  contentSeed,
  dataKey,
  decryptDataKey,
  decryptJson,
  decryptLegacy,
  deriveChild,
  deriveKey,
  deriveRoot,
  encryptDataKey,
  encryptJson,
  encryptLegacy,
  legacyKey,
  masterBlobKey,
  openDataKeyBundle,
  openRaw,
  sealRaw,
  sessionBlobKey,
} from '../../../src/core/envelope/index.js';
import { decryptV1Blob, encryptV1Blob } from '../../../src/core/happy/index.js';
import golden from '../../fixtures/happy-formats.json' with { type: 'json' };

const upper = (bytes: Uint8Array) => toHex(bytes).toUpperCase();
const master = fromHex(golden.inputs.masterSecretHex);
const sessionDataKey = fromHex(golden.inputs.dataKeyHex);

describe('key tree (Happy test vector)', () => {
  const seed = utf8(golden.keyTree.seedUtf8);
  it('root, child and final nodes match', () => {
    const root = deriveRoot(seed, golden.keyTree.usage);
    expect(upper(root.key)).toBe(golden.keyTree.root.key);
    expect(upper(root.chainCode)).toBe(golden.keyTree.root.chainCode);
    const child1 = deriveChild(root.chainCode, golden.keyTree.path[0]!);
    expect(upper(child1.key)).toBe(golden.keyTree.child1.key);
    expect(upper(child1.chainCode)).toBe(golden.keyTree.child1.chainCode);
    const final = deriveChild(child1.chainCode, golden.keyTree.path[1]!);
    expect(upper(final.key)).toBe(golden.keyTree.final.key);
    expect(upper(final.chainCode)).toBe(golden.keyTree.final.chainCode);
  });
  it('deriveKey walks the path to the final key', () => {
    expect(upper(deriveKey(seed, golden.keyTree.usage, golden.keyTree.path))).toBe(golden.keyTree.final.key);
    expect(upper(deriveKey(seed, golden.keyTree.usage, []))).toBe(golden.keyTree.root.key);
  });
  it('reads seeds and keys from views at non-zero offsets', () => {
    const backing = new Uint8Array(seed.length + 40).fill(0xaa);
    backing.set(seed, 5);
    expect(
      upper(deriveKey(backing.subarray(5, 5 + seed.length), golden.keyTree.usage, golden.keyTree.path)),
    ).toBe(golden.keyTree.final.key);
    const masterBacking = new Uint8Array(64).fill(0x55);
    masterBacking.set(master, 9);
    expect(upper(contentKeyPair(masterBacking.subarray(9, 41)).publicKey)).toBe(
      golden.contentKeyPair.publicKey,
    );
  });
});

describe('named derivations', () => {
  it('content seed and content keypair', () => {
    expect(upper(contentSeed(master))).toBe(golden.contentSeed);
    const pair = contentKeyPair(master);
    expect(upper(pair.secretKey)).toBe(golden.contentKeyPair.secretKey);
    expect(upper(pair.publicKey)).toBe(golden.contentKeyPair.publicKey);
  });
  it('master and session blob keys', () => {
    expect(upper(masterBlobKey(master))).toBe(golden.masterBlobKey);
    expect(upper(sessionBlobKey(sessionDataKey))).toBe(golden.sessionBlobKey);
  });
});

describe('legacy variant', () => {
  const nonce = fromHex(golden.legacy.nonceHex);
  const plaintext = utf8(golden.legacy.plaintextUtf8);
  it('encrypts to the golden bytes', () => {
    expect(toBase64(encryptLegacy(plaintext, master, { nonce }))).toBe(golden.legacy.base64);
    expect(sealRaw({ hello: 'world' }, legacyKey(master), { nonce }).c).toBe(golden.legacy.base64);
  });
  it('decrypts the golden bytes', () => {
    expect(decryptLegacy(fromBase64(golden.legacy.base64), master)).toEqual(plaintext);
    expect(decryptJson(fromBase64(golden.legacy.base64), legacyKey(master))).toEqual({ hello: 'world' });
    expect(openRaw({ t: 'encrypted', c: golden.legacy.base64 }, legacyKey(master))).toEqual({
      hello: 'world',
    });
  });
});

describe('dataKey variant', () => {
  const nonce = fromHex(golden.dataKey.nonceHex);
  const plaintext = utf8(golden.dataKey.plaintextUtf8);
  it('encrypts to the golden bytes', () => {
    expect(toBase64(encryptDataKey(plaintext, sessionDataKey, { nonce }))).toBe(golden.dataKey.base64);
    expect(toBase64(encryptJson({ hello: 'world' }, dataKey(sessionDataKey), { nonce }))).toBe(
      golden.dataKey.base64,
    );
  });
  it('decrypts the golden bytes', () => {
    expect(decryptDataKey(fromBase64(golden.dataKey.base64), sessionDataKey)).toEqual(plaintext);
    expect(openRaw({ t: 'encrypted', c: golden.dataKey.base64 }, dataKey(sessionDataKey))).toEqual({
      hello: 'world',
    });
  });
});

describe('data-key bundle', () => {
  it('boxes the data key to the golden 105 bytes and opens it again', () => {
    const { publicKey, secretKey } = contentKeyPair(master);
    const bundle = boxDataKey(sessionDataKey, publicKey, {
      ephemeralSecretKey: fromHex(golden.dataKeyBundle.ephemeralSecretKeyHex),
      nonce: fromHex(golden.dataKeyBundle.nonceHex),
    });
    expect(bundle.length).toBe(105);
    expect(toBase64(bundle)).toBe(golden.dataKeyBundle.base64);
    expect(openDataKeyBundle(fromBase64(golden.dataKeyBundle.base64), secretKey)).toEqual(sessionDataKey);
  });
});

describe('v1 attachment blob', () => {
  const nonce = fromHex(golden.v1Blob.nonceHex);
  const plaintext = fromHex(golden.v1Blob.plaintextHex);
  it('encrypts to the golden bytes and decrypts them', () => {
    const key = sessionBlobKey(sessionDataKey);
    expect(toBase64(encryptV1Blob(plaintext, key, { nonce }))).toBe(golden.v1Blob.base64);
    expect(decryptV1Blob(fromBase64(golden.v1Blob.base64), key)).toEqual(plaintext);
  });
});
