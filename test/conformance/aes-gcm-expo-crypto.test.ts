/**
 * expo-crypto's AES-GCM (its own web implementation, test/helpers/expo-crypto.ts) on Wycheproof's AES-GCM
 * vectors (crypto/wycheproof/aes_gcm_test.json: the 96-bit IV, 256-bit key, 128-bit tag cases without AAD,
 * the envelope's dataKey layout and every blob chunk), beside node:crypto and noble: the same bytes out,
 * the same refusals. The Cobblestone-256 vectors run through it on every blob path in blob.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { AesGcm } from '../../src/core/aes-gcm/aes-gcm.js';
import { expoCryptoAesGcm } from '../../src/core/aes-gcm/expo-crypto.js';
import { nobleAesGcm } from '../../src/core/aes-gcm/noble.js';
import { fromHex, toHex } from '../../src/core/bytes.js';
import { nodeAesGcm } from '../../src/node/runtime/node-aes-gcm.js';
import { hasCorpus, readCorpusJson } from '../helpers/corpus.js';
import { rejectionCodeOf } from '../helpers/errors.js';
import { loadExpoCryptoAes } from '../helpers/expo-crypto.js';

interface AeadFile {
  testGroups: {
    ivSize: number;
    keySize: number;
    tagSize: number;
    tests: {
      tcId: number;
      key: string;
      iv: string;
      aad: string;
      msg: string;
      ct: string;
      tag: string;
      result: string;
    }[];
  }[];
}

describe.skipIf(!hasCorpus)('Wycheproof AES-GCM through expo-crypto, node:crypto and noble', () => {
  it('every 96-bit IV, 256-bit key case without AAD: same ciphertext and tag, same refusals', async () => {
    const file = await readCorpusJson<AeadFile>('crypto', 'wycheproof', 'aes_gcm_test.json');
    const tests = file.testGroups
      .filter((g) => g.ivSize === 96 && g.keySize === 256 && g.tagSize === 128)
      .flatMap((g) => g.tests)
      .filter((t) => t.aad === '');
    expect(tests.length).toBeGreaterThan(30);
    const expo = expoCryptoAesGcm(await loadExpoCryptoAes());
    const outcomes: string[] = [];
    for (const aes of [expo, nodeAesGcm, nobleAesGcm] as AesGcm[]) {
      for (const t of tests) {
        const key = await aes.importKey(fromHex(t.key));
        const nonce = fromHex(t.iv);
        const sealed = fromHex(t.ct + t.tag);
        if (t.result === 'invalid') {
          const code = await rejectionCodeOf(async () => aes.open(key as never, nonce, sealed));
          outcomes.push(`${aes.name} ${t.tcId} ${code}`);
          continue;
        }
        const opened = toHex(await aes.open(key as never, nonce, sealed));
        const resealed = toHex(await aes.seal(key as never, nonce, fromHex(t.msg)));
        outcomes.push(
          `${aes.name} ${t.tcId} ${opened === t.msg && resealed === t.ct + t.tag ? 'same' : 'DIFFERS'}`,
        );
      }
    }
    const by = (name: string) =>
      outcomes.filter((o) => o.startsWith(`${name} `)).map((o) => o.slice(name.length));
    expect(by('expo-crypto')).toEqual(by('node'));
    expect(by('expo-crypto')).toEqual(by('noble'));
    expect(by('expo-crypto').filter((o) => o.endsWith('DIFFERS'))).toEqual([]);
    expect(by('expo-crypto').some((o) => o.endsWith('ERR_DECRYPTION_FAILED'))).toBe(true);
  });
});
