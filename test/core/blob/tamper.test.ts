/**
 * The tamper matrix: every single modification of a valid blob is rejected with the one uniform
 * DecryptionError, by the whole-buffer decryptor, the stream (which may have released only verified
 * chunks before the damage) and random access (whose open or full read fails).
 */
import { describe, expect, it } from 'vitest';
import type { AesGcm } from '../../../src/core/aes-gcm/aes-gcm.js';
import { nobleAesGcm } from '../../../src/core/aes-gcm/noble.js';
import { webCryptoAesGcm } from '../../../src/core/aes-gcm/webcrypto.js';
import {
  bufferRangeSource,
  createDecryptStream,
  decryptBlob,
  encryptBlob,
  openBlobRandomAccess,
  unboundBlobContext,
} from '../../../src/core/blob/index.js';
import { nodeAesGcm } from '../../../src/node/runtime/node-aes-gcm.js';
import { asAsync } from '../../helpers/aes-gcm.js';
import { runStream, testBytes } from './blob-test-utils.js';

const key = testBytes(32, 21);
// Three full chunks and a short final one: 0..2 full, 3 final.
const plaintext = testBytes(3 * 16384 + 1000, 22);
const SEALED = 16400;
const HEADER = 56;

/** Every tampered variant, with a name, and how many leading plaintext bytes a stream may release. */
function tamperings(ct: Uint8Array): { name: string; bytes: Uint8Array; releasable: number }[] {
  const out: { name: string; bytes: Uint8Array; releasable: number }[] = [];
  const flip = (name: string, at: number, releasable: number) => {
    const bytes = ct.slice();
    bytes[at] = (bytes[at] as number) ^ 0x01;
    out.push({ name, bytes, releasable });
  };
  flip('salt bit', 3, 0);
  flip('commitment bit', 24 + 31, 0);
  const chunkStarts = [0, 1, 2, 3].map((k) => HEADER + k * SEALED);
  const chunkEnds = [...chunkStarts.slice(1), ct.length];
  for (let k = 0; k < 4; k++) {
    const start = chunkStarts[k] as number;
    const end = chunkEnds[k] as number;
    flip(`chunk ${k} body first byte`, start, k * 16384);
    flip(`chunk ${k} body last byte`, end - 17, k * 16384);
    flip(`chunk ${k} tag first byte`, end - 16, k * 16384);
    flip(`chunk ${k} tag last byte`, end - 1, k * 16384);
  }
  for (const cutAt of [0, 1, 23, 24, 55, 56, 57, 71, 72]) {
    out.push({ name: `truncated to ${cutAt}`, bytes: ct.slice(0, cutAt), releasable: 0 });
  }
  for (let k = 1; k <= 3; k++) {
    const boundary = HEADER + k * SEALED;
    // A cut at a chunk boundary leaves a full-size last chunk: truncation, never a valid shorter message.
    out.push({
      name: `truncated at chunk boundary ${k}`,
      bytes: ct.slice(0, boundary),
      releasable: (k - 1) * 16384,
    });
    out.push({
      name: `truncated mid-chunk ${k}`,
      bytes: ct.slice(0, boundary - 5000),
      releasable: (k - 1) * 16384,
    });
    out.push({
      name: `truncated inside tag ${k}`,
      bytes: ct.slice(0, boundary - 3),
      releasable: (k - 1) * 16384,
    });
  }
  out.push({ name: 'final chunk cut by one byte', bytes: ct.slice(0, ct.length - 1), releasable: 3 * 16384 });
  out.push({ name: 'final chunk removed', bytes: ct.slice(0, HEADER + 3 * SEALED), releasable: 2 * 16384 });
  const swap = (a: number, b: number) => {
    const bytes = ct.slice();
    bytes.set(ct.subarray(HEADER + a * SEALED, HEADER + (a + 1) * SEALED), HEADER + b * SEALED);
    bytes.set(ct.subarray(HEADER + b * SEALED, HEADER + (b + 1) * SEALED), HEADER + a * SEALED);
    out.push({ name: `chunks ${a} and ${b} swapped`, bytes, releasable: Math.min(a, b) * 16384 });
  };
  swap(0, 1);
  swap(1, 2);
  swap(0, 2);
  const duplicated = ct.slice();
  duplicated.set(ct.subarray(HEADER, HEADER + SEALED), HEADER + SEALED);
  out.push({ name: 'chunk 0 duplicated over chunk 1', bytes: duplicated, releasable: 16384 });
  for (const extra of [1, 15, 16, 17, 100, SEALED]) {
    const bytes = new Uint8Array(ct.length + extra);
    bytes.set(ct);
    bytes.fill(0xaa, ct.length);
    out.push({ name: `${extra} bytes appended`, bytes, releasable: 3 * 16384 });
  }
  const twice = new Uint8Array(ct.length * 2);
  twice.set(ct);
  twice.set(ct, ct.length);
  out.push({ name: 'whole blob appended to itself', bytes: twice, releasable: 3 * 16384 });
  return out;
}

async function expectRejectedEverywhere(
  bytes: Uint8Array,
  releasable: number,
  given: { aesGcm?: AesGcm; context?: Uint8Array },
  k: Uint8Array,
  name: string,
) {
  const options = { context: unboundBlobContext(), ...given };
  await expect(decryptBlob(bytes, k, options), name).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
  const run = await runStream(createDecryptStream(k, options), [bytes]);
  expect(run.error, name).toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
  expect(run.output.length, name).toBeLessThanOrEqual(releasable);
  expect(Buffer.from(run.output).equals(Buffer.from(plaintext.subarray(0, run.output.length))), name).toBe(
    true,
  );
  const opened = openBlobRandomAccess(bufferRangeSource(bytes), k, options).then((r) =>
    r.read(0, r.plaintextSize),
  );
  await expect(opened, name).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
}

describe('tamper matrix', () => {
  for (const aesGcm of [nodeAesGcm, webCryptoAesGcm, nobleAesGcm, asAsync(nodeAesGcm)]) {
    it(`${aesGcm.name}: every modification is rejected with ERR_DECRYPTION_FAILED on every path`, async () => {
      const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext(), aesGcm });
      expect(
        Buffer.from(await decryptBlob(ct, key, { context: unboundBlobContext(), aesGcm })).equals(
          Buffer.from(plaintext),
        ),
      ).toBe(true);
      const cases = tamperings(ct);
      expect(cases.length).toBeGreaterThan(45);
      for (const c of cases) await expectRejectedEverywhere(c.bytes, c.releasable, { aesGcm }, key, c.name);
    });
  }

  it('a wrong key or a wrong context is rejected at the commitment, before any output', async () => {
    const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
    const otherKey = key.slice();
    otherKey[0] = (otherKey[0] as number) ^ 1;
    await expectRejectedEverywhere(ct, 0, {}, otherKey, 'wrong key');
    await expectRejectedEverywhere(ct, 0, { context: new Uint8Array(0) }, key, 'empty context');
    await expectRejectedEverywhere(
      ct,
      0,
      { context: new TextEncoder().encode('happy-media blob v1') },
      key,
      'context',
    );
    const other = await encryptBlob(plaintext, key, { context: new TextEncoder().encode('elsewhere') });
    await expectRejectedEverywhere(other, 0, {}, key, 'encrypted under another context');
  });

  it('every failure carries the same message (no oracle)', async () => {
    const ct = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
    const messages = new Set<string>();
    for (const c of tamperings(ct)) {
      await decryptBlob(c.bytes, key, { context: unboundBlobContext() }).catch((e: Error) =>
        messages.add(e.message),
      );
    }
    expect(messages.size).toBe(1);
  });
});
