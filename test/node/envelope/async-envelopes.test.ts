/**
 * The `...Async` envelope functions over an asynchronous runtime AES-GCM (WebCrypto, and node:crypto wrapped
 * as asynchronous with calls settling late and out of order): the same records and envelopes as the
 * synchronous API for fixed nonces, each opens the other's, tampering and an implementation failing its own
 * way are the one ERR_DECRYPTION_FAILED, and a batch imports the key once and keeps a bounded window of
 * opens in flight. Over a synchronous runtime they are the synchronous functions.
 */
import { describe, expect, it } from 'vitest';
import type { AsyncAesGcm } from '../../../src/core/aes-gcm/aes-gcm.js';
import { webCryptoAesGcm } from '../../../src/core/aes-gcm/webcrypto.js';
import { fromBase64, fromHex, randomBytes, toBase64, utf8 } from '../../../src/core/bytes.js';
import {
  dataKey,
  decryptDataKey,
  decryptDataKeyAsync,
  encryptDataKey,
  encryptDataKeyAsync,
  legacyKey,
  openMessage,
  openMessageAsync,
  openMessages,
  openMessagesAsync,
  openRaw,
  openRawAsync,
  type SessionKey,
  sealMessage,
  sealMessageAsync,
  sealRaw,
  sealRawAsync,
} from '../../../src/core/envelope/index.js';
import type { SessionMessage } from '../../../src/core/protocol/index.js';
import { nodeRuntime } from '../../../src/node/runtime/index.js';
import { nodeAesGcm } from '../../../src/node/runtime/node-aes-gcm.js';
import golden from '../../fixtures/happy-formats.json' with { type: 'json' };
import { asAsync, countedAsync } from '../../helpers/aes-gcm.js';
import { rejectionCodeOf, rejectionOf } from '../../helpers/errors.js';
import { withRuntime } from '../../helpers/installed.js';

const message = (i: number): SessionMessage => ({
  id: `msg_${i}`,
  time: 1710000000000 + i,
  role: 'agent',
  type: 'text',
  turn: 'turn_1',
  text: `message ${i} ${'é✓ '.repeat(i * 5)}`,
});

/** Runs `fn` on Node's runtime with `aesGcm` as its AES-GCM. */
const on = <T>(aesGcm: AsyncAesGcm, fn: () => Promise<T>): Promise<T> =>
  withRuntime({ ...nodeRuntime, aesGcm }, fn);

describe.each([
  ['webcrypto', () => webCryptoAesGcm],
  ['node:crypto as asynchronous', () => countedAsync(nodeAesGcm).aes],
] as const)('over %s', (_name, make) => {
  const key = randomBytes(32);

  it("reproduces Happy's golden dataKey vector and the synchronous API's records, and opens them", async () => {
    const aes = make();
    const goldenKey = fromHex(golden.inputs.dataKeyHex);
    const record = await on(aes, () =>
      encryptDataKeyAsync(utf8(golden.dataKey.plaintextUtf8), goldenKey, {
        nonce: fromHex(golden.dataKey.nonceHex),
      }),
    );
    expect(toBase64(record)).toBe(golden.dataKey.base64);
    for (const size of [0, 1, 1000, 70_000]) {
      const plaintext = randomBytes(size);
      const nonce = randomBytes(12);
      const bySync = encryptDataKey(plaintext, key, { nonce });
      expect(await on(aes, () => encryptDataKeyAsync(plaintext, key, { nonce }))).toEqual(bySync);
      expect(await on(aes, () => decryptDataKeyAsync(bySync, key))).toEqual(plaintext);
      const byAsync = await on(aes, () => encryptDataKeyAsync(plaintext, key));
      expect(decryptDataKey(byAsync, key)).toEqual(plaintext);
    }
  });

  it('seals and opens envelopes and messages that the synchronous API opens, and the other way round', async () => {
    const aes = make();
    for (const sessionKey of [dataKey(key), legacyKey(key)] as SessionKey[]) {
      const nonce = randomBytes(sessionKey.variant === 'legacy' ? 24 : 12);
      const value = { role: 'session', content: { type: 'session', data: message(3) } };
      expect(await on(aes, () => sealRawAsync(value, sessionKey, { nonce }))).toEqual(
        sealRaw(value, sessionKey, { nonce }),
      );
      const sealed = await on(aes, () => sealMessageAsync(message(4), sessionKey));
      expect(openMessage(sealed, sessionKey)).toEqual(message(4));
      expect(await on(aes, () => openMessageAsync(sealMessage(message(5), sessionKey), sessionKey))).toEqual(
        message(5),
      );
      expect(await on(aes, () => openRawAsync(sealRaw(value, sessionKey), sessionKey))).toEqual(value);
      expect(openRaw(await on(aes, () => sealRawAsync(value, sessionKey)), sessionKey)).toEqual(value);
    }
  });

  it('refuses tampering, a wrong key and malformed input with the same errors as the synchronous API', async () => {
    const aes = make();
    const sessionKey = dataKey(key);
    const envelope = sealMessage(message(1), sessionKey);
    const record = fromBase64(envelope.c);
    for (const at of [0, 1, 13, record.length - 1]) {
      const bad = record.slice();
      bad[at]! ^= 1;
      const tampered = { t: 'encrypted', c: toBase64(bad) };
      const expected = at === 0 ? 'ERR_UNSUPPORTED_VERSION' : 'ERR_DECRYPTION_FAILED';
      expect(await on(aes, () => rejectionCodeOf(() => openMessageAsync(tampered, sessionKey)))).toBe(
        expected,
      );
      expect(await on(aes, () => rejectionCodeOf(() => decryptDataKeyAsync(bad, key)))).toBe(expected);
    }
    expect(
      await on(aes, () => rejectionCodeOf(() => openMessageAsync(envelope, dataKey(randomBytes(32))))),
    ).toBe('ERR_DECRYPTION_FAILED');
    expect(await on(aes, () => rejectionCodeOf(() => openMessageAsync({ t: 'x' }, sessionKey)))).toBe(
      'ERR_FORMAT',
    );
    expect(
      await on(aes, () => rejectionCodeOf(() => sealMessageAsync({ type: 'nope' } as never, sessionKey))),
    ).toBe('ERR_SCHEMA');
    expect(await on(aes, () => rejectionCodeOf(() => encryptDataKeyAsync(utf8('{}'), randomBytes(31))))).toBe(
      'ERR_INVALID_ARGUMENT',
    );
  });
});

describe('an asynchronous implementation failing its own way', () => {
  it('is the one ERR_DECRYPTION_FAILED, with no cause, whatever it threw; a wrong-length plaintext is refused', async () => {
    const key = randomBytes(32);
    const envelope = sealMessage(message(2), dataKey(key));
    const base = asAsync(nodeAesGcm);
    const implementations: AsyncAesGcm[] = [
      { ...base, open: () => Promise.reject(new TypeError('native: tag mismatch at 0x1f')) },
      {
        ...base,
        open: () => {
          throw new RangeError('thrown at the call');
        },
      },
      { ...base, open: async (_key, _nonce, sealed) => new Uint8Array(sealed.length) },
    ];
    for (const aes of implementations) {
      const error = await on(aes, () => rejectionOf(() => openMessageAsync(envelope, dataKey(key))));
      expect(error.code).toBe('ERR_DECRYPTION_FAILED');
      expect(error.cause).toBeUndefined();
    }
  });
});

describe('openMessagesAsync', () => {
  const key = dataKey(randomBytes(32));
  const envelopes: unknown[] = Array.from({ length: 150 }, (_, i) => sealMessage(message(i), key));
  // A damaged one, a foreign one, one that is not an envelope, one that is not a v2 message.
  const damaged = fromBase64((envelopes[10] as { c: string }).c);
  damaged[20]! ^= 1;
  envelopes[10] = { t: 'encrypted', c: toBase64(damaged) };
  envelopes[70] = sealMessage(message(70), dataKey(randomBytes(32)));
  envelopes[71] = { t: 'plain' };
  envelopes[140] = sealRaw({ hello: 'world' }, key);

  it('gives the outcomes openMessages gives, in order, with one key import and a bounded window in flight', async () => {
    const expected = openMessages(envelopes, key);
    expect(expected.filter((o) => !o.ok)).toHaveLength(4);
    const { aes, calls } = countedAsync(nodeAesGcm);
    const opened = await on(aes, () => openMessagesAsync(envelopes, key));
    expect(opened).toEqual(expected);
    expect(opened.map((o) => (o.ok ? 'ok' : o.error.code))).toEqual(
      expected.map((o) => (o.ok ? 'ok' : o.error.code)),
    );
    expect(calls.imports).toBe(1);
    // 149 records reach the cipher (one is not an envelope), 64 at a time at most, many at once.
    expect(calls.open).toBe(149);
    expect(calls.maxInFlight).toBeLessThanOrEqual(64);
    expect(calls.maxInFlight).toBeGreaterThan(32);
  });

  it('over a synchronous runtime it is openMessages; a bad key or list is refused before anything is opened', async () => {
    expect(await openMessagesAsync(envelopes, key)).toEqual(openMessages(envelopes, key));
    const { aes, calls } = countedAsync(nodeAesGcm);
    expect(
      await on(aes, () => rejectionCodeOf(() => openMessagesAsync(envelopes, { variant: 'x' } as never))),
    ).toBe('ERR_INVALID_ARGUMENT');
    expect(await on(aes, () => rejectionCodeOf(() => openMessagesAsync('no' as never, key)))).toBe(
      'ERR_INVALID_ARGUMENT',
    );
    expect(calls.imports + calls.open).toBe(0);
  });
});

describe('over a synchronous runtime (Node)', () => {
  it('the async functions give what the synchronous ones give, without a cipher promise', async () => {
    const key = randomBytes(32);
    const nonce = randomBytes(12);
    const plaintext = utf8('{"a":1}');
    expect(await encryptDataKeyAsync(plaintext, key, { nonce })).toEqual(
      encryptDataKey(plaintext, key, { nonce }),
    );
    const envelope = await sealMessageAsync(message(9), dataKey(key), { nonce });
    expect(envelope).toEqual(sealMessage(message(9), dataKey(key), { nonce }));
    expect(await openMessageAsync(envelope, dataKey(key))).toEqual(message(9));
  });
});
