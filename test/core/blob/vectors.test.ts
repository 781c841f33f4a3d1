/**
 * Our own frozen Cobblestone-256 vectors (test/fixtures/blob-vectors.json): fixed keys, salts (injected
 * through the test-only entry point) and contexts; every AES-GCM implementation must reproduce each ciphertext byte for
 * byte and decrypt it. They pin the happy-media context string and our framing against regressions.
 * Regenerate (only for a deliberate format change) with `UPDATE_BLOB_VECTORS=1 npx vitest run <this file>`.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type AesGcm,
  cipherModuleAesGcm,
  nobleAesGcm,
  webCryptoAesGcm,
} from '../../../src/core/aes-gcm/index.js';
import { encryptBlobWithSalt } from '../../../src/core/blob/_testing.js';
import { decryptBlob, mediaBlobContext, unboundBlobContext } from '../../../src/core/blob/index.js';
import { fromHex, toHex, utf8 } from '../../../src/core/bytes.js';
import { nodeAesGcm } from '../../../src/node/runtime/node-aes-gcm.js';
import { asAsync, withoutFastPaths } from '../../helpers/aes-gcm.js';
import { foreignCipherModule } from '../../helpers/cipher-module.js';
import { testBytes } from './blob-test-utils.js';

const FIXTURE = new URL('../../fixtures/blob-vectors.json', import.meta.url);
const IMPLEMENTATIONS: AesGcm[] = [
  nodeAesGcm,
  webCryptoAesGcm,
  nobleAesGcm,
  // The Cipher-API implementation on a module that is not node:crypto itself (as react-native-quick-crypto).
  cipherModuleAesGcm(foreignCipherModule().module, { name: 'cipher-module' }),
  // The synchronous driver's plain path (no sealInto/openInto), and the asynchronous driver.
  withoutFastPaths(nodeAesGcm),
  asAsync(nodeAesGcm),
];
/** Ciphertexts up to this size are stored whole; longer ones as SHA-512 plus head and tail. */
const INLINE_LIMIT = 256;

interface FrozenVector {
  comment: string;
  key: string;
  salt: string;
  /** Context in hex; absent means the unbound context (`unboundBlobContext()`), passed explicitly. */
  ctx?: string;
  /** Plaintext: `testBytes(msgLength, msgSeed)` (deterministic generator in blob-test-utils). */
  msgLength: number;
  msgSeed: number;
  ctLength: number;
  ct?: string;
  ctSha512: string;
  ctHead: string;
  ctTail: string;
}

const SPECS: { comment: string; msgLength: number; ctx?: string }[] = [
  { comment: 'empty message: one empty final chunk', msgLength: 0 },
  { comment: 'one byte', msgLength: 1 },
  { comment: 'one byte short of a chunk', msgLength: 16383 },
  { comment: 'exactly one chunk: full chunk plus empty final chunk', msgLength: 16384 },
  { comment: 'one chunk and one byte', msgLength: 16385 },
  { comment: 'two full chunks plus empty final chunk', msgLength: 32768 },
  { comment: '70000 bytes: four full chunks plus a short one', msgLength: 70000 },
  { comment: 'explicit empty context', msgLength: 5, ctx: '' },
  { comment: 'explicit other context', msgLength: 5, ctx: toHex(utf8('example.org/other use')) },
  {
    comment: 'a media blob bound to its ref: mediaBlobContext("media/frozenvector0001")',
    msgLength: 20000,
    ctx: toHex(mediaBlobContext('media/frozenvector0001')),
  },
];

async function build(): Promise<FrozenVector[]> {
  const out: FrozenVector[] = [];
  for (const [i, spec] of SPECS.entries()) {
    const key = testBytes(32, 1000 + i);
    const salt = testBytes(24, 2000 + i);
    const msgSeed = 3000 + i;
    const context = spec.ctx === undefined ? unboundBlobContext() : fromHex(spec.ctx);
    const ct = await encryptBlobWithSalt(testBytes(spec.msgLength, msgSeed), key, salt, {
      aesGcm: nobleAesGcm,
      context,
    });
    out.push({
      comment: spec.comment,
      key: toHex(key),
      salt: toHex(salt),
      ...(spec.ctx === undefined ? {} : { ctx: spec.ctx }),
      msgLength: spec.msgLength,
      msgSeed,
      ctLength: ct.length,
      ...(ct.length <= INLINE_LIMIT ? { ct: toHex(ct) } : {}),
      ctSha512: createHash('sha512').update(ct).digest('hex'),
      ctHead: toHex(ct.subarray(0, 96)),
      ctTail: toHex(ct.subarray(ct.length - 32)),
    });
  }
  return out;
}

if (process.env.UPDATE_BLOB_VECTORS === '1') {
  const vectors = await build();
  writeFileSync(
    FIXTURE,
    `${JSON.stringify({ format: 'Cobblestone-256', defaultContext: toHex(unboundBlobContext()), vectors }, null, 2)}\n`,
  );
}

const frozen = JSON.parse(readFileSync(FIXTURE, 'utf8')) as {
  defaultContext: string;
  vectors: FrozenVector[];
};

describe('frozen happy-media blob vectors', () => {
  it('pin the unbound context (UTF-8 "happy-media blob v2") and the media binding\'s bytes', () => {
    expect(frozen.defaultContext).toBe(toHex(utf8('happy-media blob v2')));
    expect(toHex(unboundBlobContext())).toBe(frozen.defaultContext);
    expect(frozen.vectors.length).toBe(SPECS.length);
    // "happy-media blob v2" 0x00 "media/frozenvector0001"
    expect(frozen.vectors.at(-1)?.ctx).toBe(
      `${frozen.defaultContext}00${toHex(utf8('media/frozenvector0001'))}`,
    );
  });

  it('the old context is read only when asked for: no default, and a bound context does not open it', async () => {
    const v = frozen.vectors[1] as FrozenVector;
    const ct = fromHex(v.ct as string);
    await expect(decryptBlob(ct, fromHex(v.key), {} as { context: Uint8Array })).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
    });
    await expect(
      decryptBlob(ct, fromHex(v.key), { context: mediaBlobContext('media/frozenvector0001') }),
    ).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
    expect(toHex(await decryptBlob(ct, fromHex(v.key), { context: unboundBlobContext() }))).toBe(
      toHex(testBytes(v.msgLength, v.msgSeed)),
    );
  });

  for (const v of frozen.vectors) {
    for (const aesGcm of IMPLEMENTATIONS) {
      it(`${aesGcm.name}: ${v.comment}: reproduces the ciphertext and decrypts it`, async () => {
        const plaintext = testBytes(v.msgLength, v.msgSeed);
        const options = { aesGcm, context: v.ctx === undefined ? unboundBlobContext() : fromHex(v.ctx) };
        const ct = await encryptBlobWithSalt(plaintext, fromHex(v.key), fromHex(v.salt), options);
        expect(ct.length).toBe(v.ctLength);
        if (v.ct !== undefined) expect(toHex(ct)).toBe(v.ct);
        expect(toHex(ct.subarray(0, 96))).toBe(v.ctHead);
        expect(toHex(ct.subarray(ct.length - 32))).toBe(v.ctTail);
        expect(createHash('sha512').update(ct).digest('hex')).toBe(v.ctSha512);
        expect(toHex(ct.subarray(0, 24))).toBe(v.salt);
        const back = await decryptBlob(ct, fromHex(v.key), options);
        expect(toHex(back)).toBe(toHex(plaintext));
      });
    }
  }
});
