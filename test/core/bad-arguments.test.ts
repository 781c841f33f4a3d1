/**
 * One bad-argument table over the public API (as noble's tests do): every function that takes a key or
 * bytes refuses wrong types and wrong lengths with ERR_INVALID_ARGUMENT, and reads a subarray view with a
 * non-zero byteOffset exactly like a fresh copy of the same bytes.
 */
import { describe, expect, it } from 'vitest';
import { ciphertextSize, decryptBlob, encryptBlob, unboundBlobContext } from '../../src/blob.js';
import { toHex } from '../../src/core/bytes.js';
import {
  dataKey,
  decryptDataKey,
  decryptLegacy,
  encryptDataKey,
  encryptLegacy,
  legacyKey,
  openRaw,
  sealRaw,
  toBase64,
} from '../../src/envelope.js';
import { codeOf, rejectionCodeOf } from '../helpers/errors.js';

/** `bytes` copied into the middle of a bigger buffer: same values, byteOffset 5. */
function offsetView(bytes: Uint8Array): Uint8Array {
  const backing = new Uint8Array(bytes.length + 9).fill(0xee);
  backing.set(bytes, 5);
  return backing.subarray(5, 5 + bytes.length);
}

const KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const DATA = Uint8Array.from({ length: 100 }, (_, i) => (i * 7) & 0xff);

/** Values that are not a 32-byte key. */
const NOT_A_KEY: [string, unknown][] = [
  ['undefined', undefined],
  ['null', null],
  ['a string', 'k'.repeat(32)],
  ['a number', 32],
  ['a plain array', [...KEY]],
  ['an ArrayBuffer', KEY.buffer],
  ['a DataView', new DataView(KEY.buffer)],
  ['31 bytes', KEY.subarray(0, 31)],
  ['33 bytes', new Uint8Array(33)],
  ['empty', new Uint8Array(0)],
];

/** Public functions taking a 32-byte key, called with `key` (sync or async). */
const KEYED: [string, (key: unknown) => unknown][] = [
  ['encryptLegacy', (key) => encryptLegacy(DATA, key as Uint8Array)],
  ['encryptDataKey', (key) => encryptDataKey(DATA, key as Uint8Array)],
  ['legacyKey', (key) => legacyKey(key as Uint8Array)],
  ['dataKey', (key) => dataKey(key as Uint8Array)],
  ['encryptBlob', (key) => encryptBlob(DATA, key as Uint8Array, { context: unboundBlobContext() })],
];

describe('bad arguments of the public API', () => {
  it.each(KEYED)('%s refuses every value that is not a 32-byte key', async (_, call) => {
    for (const [what, key] of NOT_A_KEY) {
      expect(await rejectionCodeOf(() => call(key)), what).toBe('ERR_INVALID_ARGUMENT');
    }
  });

  it.each([
    [
      'encryptBlob',
      (data: unknown) => encryptBlob(data as Uint8Array, KEY, { context: unboundBlobContext() }),
    ],
    [
      'decryptBlob',
      (data: unknown) => decryptBlob(data as Uint8Array, KEY, { context: unboundBlobContext() }),
    ],
    ['toBase64', (data: unknown) => toBase64(data as Uint8Array)],
    ['toHex', (data: unknown) => toHex(data as Uint8Array)],
  ])('%s refuses data that is not a Uint8Array', async (_, call) => {
    for (const data of [undefined, null, 'text', 42, [1, 2, 3], DATA.buffer]) {
      expect(await rejectionCodeOf(() => call(data)), String(data)).toBe('ERR_INVALID_ARGUMENT');
    }
  });

  it('ciphertextSize refuses sizes that are not non-negative safe integers', () => {
    for (const size of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '10', undefined]) {
      expect(
        codeOf(() => ciphertextSize(size as number)),
        String(size),
      ).toBe('ERR_INVALID_ARGUMENT');
    }
  });

  it('reads subarray views with a non-zero byteOffset like copies (keys and data)', async () => {
    const key = offsetView(KEY);
    const data = offsetView(DATA);
    expect(key.byteOffset).toBe(5);
    expect(toBase64(data)).toBe(toBase64(DATA.slice()));
    expect(toHex(data)).toBe(toHex(DATA.slice()));
    const nonce = new Uint8Array(24).fill(3);
    expect(toHex(encryptLegacy(data, key, { nonce }))).toBe(toHex(encryptLegacy(DATA, KEY, { nonce })));
    expect(toHex(decryptLegacy(offsetView(encryptLegacy(DATA, KEY)), key))).toBe(toHex(DATA));
    expect(toHex(decryptDataKey(offsetView(encryptDataKey(DATA, KEY)), key))).toBe(toHex(DATA));
    expect(
      toHex(
        await decryptBlob(offsetView(await encryptBlob(data, key, { context: unboundBlobContext() })), key, {
          context: unboundBlobContext(),
        }),
      ),
    ).toBe(toHex(DATA));
    const sealed = sealRaw({ n: 1 }, dataKey(key));
    expect(openRaw(sealed, dataKey(KEY))).toEqual({ n: 1 });
  });
});
