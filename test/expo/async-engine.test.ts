/**
 * The download engine over an asynchronous AES-GCM, as an app runs it with expo-crypto (here expo-crypto's
 * own web AES): several chunks in flight across network pieces, the plaintext in order, nothing released
 * before its tag verified, a bounded number of calls in flight; tamper, truncation and abort fail cleanly.
 * Also the decryptor itself: overlapping pushes over a cipher whose calls settle out of order.
 */
import { describe, expect, it } from 'vitest';
import type { AsyncAesGcm } from '../../src/core/aes-gcm/aes-gcm.js';
import { expoCryptoAesGcm } from '../../src/core/aes-gcm/expo-crypto.js';
import { nobleAesGcm } from '../../src/core/aes-gcm/noble.js';
import { decryptBlob, encryptBlob, mediaBlobContext } from '../../src/core/blob/index.js';
import { BlobDecryptor } from '../../src/core/blob/stream.js';
import { joinBytes, randomBytes } from '../../src/core/bytes.js';
import { downloadMedia, type MediaSink, memorySink } from '../../src/core/playback/index.js';
import { testBytes } from '../core/blob/blob-test-utils.js';
import { asAsync } from '../helpers/aes-gcm.js';
import { rejectionCodeOf } from '../helpers/errors.js';
import { loadExpoCryptoAes } from '../helpers/expo-crypto.js';
import { withRuntime } from '../helpers/installed.js';
import { MemoryStore } from '../node/playback/helpers/memory-store.js';

const key = randomBytes(32);
const REF = 'media/asyncengine0000000000000';
const plain = testBytes(3_000_000 + 17, 21);
const blob = await encryptBlob(plain, key, { context: mediaBlobContext(REF) });
const expo = expoCryptoAesGcm(await loadExpoCryptoAes());

/** `aes` with its open calls counted: how many at once, at most. */
function counted(aes: AsyncAesGcm) {
  const calls = { open: 0, inFlight: 0, maxInFlight: 0 };
  const wrapped: AsyncAesGcm = {
    name: `counted-${aes.name}`,
    mode: 'async',
    importKey: (k) => aes.importKey(k),
    seal: (k, n, p) => aes.seal(k, n, p),
    open(k, n, s) {
      calls.open++;
      calls.inFlight++;
      calls.maxInFlight = Math.max(calls.maxInFlight, calls.inFlight);
      return aes.open(k, n, s).finally(() => {
        calls.inFlight--;
      });
    },
  };
  return { aes: wrapped, calls };
}

function storeWith(bytes: Uint8Array): MemoryStore {
  const store = new MemoryStore();
  store.put(REF, bytes);
  store.pieceBytes = 64 * 1024; // what a phone's network hands over at a time: 4 chunks
  return store;
}

/** A sink that records each write and checks it continues the true plaintext. */
function checkingSink() {
  const events: string[] = [];
  let written = 0;
  let wrong = false;
  const sink: MediaSink<number> = {
    write(bytes) {
      for (let i = 0; i < bytes.length; i++) if (bytes[i] !== plain[written + i]) wrong = true;
      written += bytes.length;
      events.push('write');
    },
    commit: ({ size }) => {
      events.push('commit');
      return size;
    },
    abort: () => {
      events.push('abort');
    },
  };
  return { sink, events, written: () => written, wrong: () => wrong };
}

describe('downloadMedia over expo-crypto (asynchronous)', () => {
  it('keeps many chunks in flight across network pieces, bounded, and delivers the plaintext in order', async () => {
    const { aes, calls } = counted(expo);
    const bytes = await withRuntime({ aesGcm: aes }, () =>
      downloadMedia(
        { ref: REF, size: plain.length },
        { source: storeWith(blob), blobKey: key, sink: memorySink() },
      ),
    );
    expect(bytes.length === plain.length && bytes.every((v, i) => v === plain[i])).toBe(true);
    expect(calls.open).toBe(Math.ceil(plain.length / 16384));
    // A network piece holds 4 chunks: more than that at once means pushes overlap.
    expect(calls.maxInFlight).toBeGreaterThan(8);
    // The window (64 chunks) plus one push: the frames read ahead (256 KiB and a network read: 20 chunks).
    expect(calls.maxInFlight).toBeLessThanOrEqual(64 + 20);
  });

  it('a tampered chunk: only verified bytes reach the sink, in order, then abort, never commit', async () => {
    const store = storeWith(blob);
    store.flipAt.add(56 + 16400 * 100 + 7);
    const { sink, events, written, wrong } = checkingSink();
    const code = await withRuntime({ aesGcm: expo }, () =>
      rejectionCodeOf(downloadMedia({ ref: REF, size: plain.length }, { source: store, blobKey: key, sink })),
    );
    expect(code).toBe('ERR_DECRYPTION_FAILED');
    expect(wrong()).toBe(false);
    expect(written()).toBeLessThanOrEqual(100 * 16384);
    expect(events.at(-1)).toBe('abort');
    expect(events).not.toContain('commit');
  });

  it('a blob cut at a chunk boundary (no final chunk) fails; so does one extended by a chunk', async () => {
    for (const bytes of [
      blob.subarray(0, 56 + 16400 * 150),
      joinBytes([blob, blob.subarray(56, 56 + 16400)]),
    ]) {
      const { sink, events, wrong } = checkingSink();
      const code = await withRuntime({ aesGcm: expo }, () =>
        rejectionCodeOf(downloadMedia({ ref: REF }, { source: storeWith(bytes), blobKey: key, sink })),
      );
      expect(code).toBe('ERR_DECRYPTION_FAILED');
      expect(wrong()).toBe(false);
      expect(events).not.toContain('commit');
    }
  });

  it('an abort mid-download stops it with ERR_ABORTED and aborts the sink', async () => {
    const store = storeWith(blob);
    store.pieceDelayMs = 1;
    const controller = new AbortController();
    const { sink, events, written } = checkingSink();
    const code = await withRuntime({ aesGcm: expo }, () =>
      rejectionCodeOf(
        downloadMedia(
          { ref: REF, size: plain.length },
          {
            source: store,
            blobKey: key,
            sink,
            signal: controller.signal,
            onProgress: ({ done }) => {
              if (done > 500_000) controller.abort();
            },
          },
        ),
      ),
    );
    expect(code).toBe('ERR_ABORTED');
    expect(events.at(-1)).toBe('abort');
    expect(written()).toBeLessThan(plain.length);
  });
});

describe('expoCryptoAesGcm reuses its nonce || ciphertext arrays only once their call settled', () => {
  it('a module that reads the sealed bytes late, calls settling out of order, still opens every chunk', async () => {
    const real = await loadExpoCryptoAes();
    const given = new Set<Uint8Array>();
    let exact = true;
    let turn = 0;
    // expo's sealed data over the array itself (as its web module keeps it), its decryption started only
    // a few macrotasks later (as a busy native queue would), so an array reused too early opens wrong.
    const late: typeof real = {
      ...real,
      AESSealedData: {
        fromCombined(combined, config) {
          given.add(combined);
          if (combined.byteOffset !== 0 || combined.byteLength !== combined.buffer.byteLength) exact = false;
          return { combined, config } as never;
        },
      } as typeof real.AESSealedData,
      async aesDecryptAsync(sealed, k, options) {
        const { combined, config } = sealed as unknown as { combined: Uint8Array; config: never };
        for (let i = (turn++ * 7) % 5; i > 0; i--) await new Promise((resolve) => setTimeout(resolve, 0));
        return real.aesDecryptAsync(real.AESSealedData.fromCombined(combined.slice(), config), k, options);
      },
    };
    const out = await decryptBlob(blob, key, {
      context: mediaBlobContext(REF),
      aesGcm: expoCryptoAesGcm(late),
    });
    expect(out.length === plain.length && out.every((v, i) => v === plain[i])).toBe(true);
    // Exactly-sized arrays (expo's web fromCombined reads the whole ArrayBuffer), fewer than one per chunk.
    expect(exact).toBe(true);
    expect(given.size).toBeLessThan(Math.ceil(plain.length / 16384));
  });

  it("a blob's short final chunk does not displace the kept arrays: the next blob opens into the same ones", async () => {
    const real = await loadExpoCryptoAes();
    const given = new Set<Uint8Array>();
    const counting: typeof real = {
      ...real,
      AESSealedData: {
        fromCombined(combined, config) {
          given.add(combined);
          return real.AESSealedData.fromCombined(combined, config);
        },
      } as typeof real.AESSealedData,
    };
    const aesGcm = expoCryptoAesGcm(counting);
    await decryptBlob(blob, key, { context: mediaBlobContext(REF), aesGcm });
    const first = given.size;
    await decryptBlob(blob, key, { context: mediaBlobContext(REF), aesGcm });
    // The second blob takes the full chunks' arrays kept from the first: only its final chunk's is new.
    expect(given.size).toBe(first + 1);
  });
});

describe('BlobDecryptor with overlapping pushes', () => {
  it('pushes made before earlier ones settled give the plaintext in push order (calls settling out of order)', async () => {
    const decryptor = new BlobDecryptor(key, {
      context: mediaBlobContext(REF),
      aesGcm: asAsync(nobleAesGcm),
    });
    const sizes = [3, 53, 1, 20_000, 16_400, 7, 100_000, 65_536];
    const pushes: Promise<Uint8Array[]>[] = [];
    let at = 0;
    for (let i = 0; at < blob.length; i++) {
      const size = sizes[i % sizes.length] as number;
      pushes.push(decryptor.push(blob.subarray(at, at + size)));
      at += size;
      if (at > 400_000) break;
    }
    const rest = blob.subarray(at);
    pushes.push(decryptor.push(rest));
    pushes.push(decryptor.finish());
    const out = joinBytes((await Promise.all(pushes)).flat());
    expect(out.length === plain.length && out.every((v, i) => v === plain[i])).toBe(true);
  });

  it('a push made just after the cipher became ready, while earlier pushes still wait for it, frames after them', async () => {
    // The third push is made 0 to 11 microtasks after the key import settled: that covers the moment the
    // cipher exists while the first two pushes have not resumed yet.
    for (let depth = 0; depth < 12; depth++) {
      const async = asAsync(nobleAesGcm);
      let imported: Promise<unknown> | undefined;
      const watched: AsyncAesGcm = {
        ...async,
        importKey: (k) => {
          imported = async.importKey(k);
          return imported;
        },
      };
      const decryptor = new BlobDecryptor(key, { context: mediaBlobContext(REF), aesGcm: watched });
      const cut = [56 + 16_400 + 5, 56 + 3 * 16_400 + 9, 56 + 5 * 16_400];
      const pushes = [
        decryptor.push(blob.subarray(0, cut[0])),
        decryptor.push(blob.subarray(cut[0], cut[1])),
      ];
      await imported;
      for (let i = 0; i < depth; i++) await Promise.resolve();
      pushes.push(decryptor.push(blob.subarray(cut[1], cut[2])));
      pushes.push(decryptor.push(blob.subarray(cut[2])));
      pushes.push(decryptor.finish());
      const out = joinBytes((await Promise.all(pushes)).flat());
      expect(out.length === plain.length && out.every((v, i) => v === plain[i]), `depth ${depth}`).toBe(true);
    }
  });

  it('a push after finish is trailing data, refused', async () => {
    const decryptor = new BlobDecryptor(key, {
      context: mediaBlobContext(REF),
      aesGcm: asAsync(nobleAesGcm),
    });
    const small = await encryptBlob(testBytes(100, 2), key, { context: mediaBlobContext(REF) });
    const first = decryptor.push(small);
    const end = decryptor.finish();
    await expect(decryptor.push(new Uint8Array(1))).rejects.toMatchObject({ code: 'ERR_DECRYPTION_FAILED' });
    await Promise.allSettled([first, end]);
  });
});
