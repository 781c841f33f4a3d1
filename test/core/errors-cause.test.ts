/**
 * The one policy on `cause` (src/core/errors.ts, README "Errors"): an authentication failure never carries
 * one (it would say which check failed: an oracle), a failure of I/O below us always keeps its own; and
 * what used to be a plain `Error` (a cipher that breaks its contract, an engine driven out of order, a
 * request timer) is a typed error now.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { SyncAesGcm } from '../../src/core/aes-gcm/aes-gcm.js';
import { nobleAesGcm } from '../../src/core/aes-gcm/noble.js';
import {
  createDecryptStream,
  decryptBlob,
  encryptBlob,
  unboundBlobContext,
} from '../../src/core/blob/index.js';
import { fromBase64, randomBytes } from '../../src/core/bytes.js';
import { dataKey, openMessage, sealMessage } from '../../src/core/envelope/index.js';
import { DecryptionError, HappyMediaError, LimitError } from '../../src/core/errors.js';
import { parseAccountSecret } from '../../src/core/happy/account-secret.js';
import { downloadMedia, memorySink } from '../../src/core/playback/index.js';
import { fetchRange } from '../../src/core/transport/fetch-range.js';
import { asAsync } from '../helpers/aes-gcm.js';
import { rejectionOf } from '../helpers/errors.js';

const key = randomBytes(32);
const context = unboundBlobContext();

async function streamError(stream: TransformStream<Uint8Array, Uint8Array>, input: Uint8Array) {
  const writer = stream.writable.getWriter();
  void writer.write(input).catch(() => undefined);
  void writer.close().catch(() => undefined);
  const reader = stream.readable.getReader();
  try {
    for (;;) if ((await reader.read()).done) return undefined;
  } catch (error) {
    return error;
  }
}

describe('an authentication failure never carries a cause', () => {
  it('DecryptionError takes no options at all', () => {
    expectTypeOf<ConstructorParameters<typeof DecryptionError>>().toEqualTypeOf<[]>();
  });

  it("not a cipher's own error (a native bridge rejecting, a call throwing), on every path", async () => {
    const blob = await encryptBlob(randomBytes(40_000), key, { context });
    const bridge = asAsync(nobleAesGcm);
    const rejecting = () => Promise.reject(new TypeError('native bridge: tag mismatch at byte 17'));
    const throwing = () => {
      throw new RangeError('thrown at the call');
    };
    for (const aesGcm of [
      { ...bridge, open: rejecting },
      { ...bridge, open: throwing },
      { ...bridge, importKey: () => Promise.reject(new TypeError('native bridge: no key')) },
    ]) {
      const whole = await rejectionOf(decryptBlob(blob, key, { context, aesGcm }));
      expect(whole.code).toBe('ERR_DECRYPTION_FAILED');
      expect(whole.cause).toBeUndefined();
      const streamed = await streamError(createDecryptStream(key, { context, aesGcm }), blob);
      expect(streamed).toBeInstanceOf(DecryptionError);
      expect((streamed as DecryptionError).cause).toBeUndefined();
    }
  });

  it('not the check that found a blob of impossible length, nor a wrong key or flipped bit', async () => {
    const store = {
      head: async () => ({ size: 57 }),
      get: async () => new Blob([new Uint8Array(57)]).stream(),
    };
    const impossible = await rejectionOf(
      downloadMedia({ ref: 'media/abc' }, { source: store, blobKey: key, sink: memorySink() }),
    );
    expect(impossible.code).toBe('ERR_DECRYPTION_FAILED');
    expect(impossible.cause).toBeUndefined();

    const blob = await encryptBlob(randomBytes(1000), key, { context });
    blob[100]! ^= 1;
    const flipped = await rejectionOf(decryptBlob(blob, key, { context }));
    expect(flipped.cause).toBeUndefined();

    const envelope = sealMessage({ id: 'm1', time: 1, role: 'user', type: 'text', text: 'hi' }, dataKey(key));
    let wrongKey: unknown;
    try {
      openMessage(envelope, dataKey(randomBytes(32)));
    } catch (error) {
      wrongKey = error;
    }
    expect(wrongKey).toBeInstanceOf(DecryptionError);
    expect((wrongKey as DecryptionError).cause).toBeUndefined();
  });
});

describe('a decoder given a secret keeps no cause (its error quotes the text)', () => {
  it('base64 of a key, an account secret', () => {
    const errors: unknown[] = [];
    for (const bad of [() => fromBase64('c2VjcmV0!2V5'), () => parseAccountSecret(`${'A'.repeat(42)}B=`)]) {
      try {
        bad();
      } catch (error) {
        errors.push(error);
      }
    }
    expect(errors).toHaveLength(2);
    for (const error of errors) {
      expect(error).toMatchObject({ code: 'ERR_FORMAT' });
      expect((error as Error).cause).toBeUndefined();
      expect(String((error as Error).message)).not.toMatch(/!/);
    }
  });
});

describe('a failure of I/O keeps its own as cause', () => {
  it("a network failure: the fetch's error; a timeout: the limit that was hit", async () => {
    const reset = new TypeError('fetch failed');
    const network = await rejectionOf(
      fetchRange('https://blobs.example/x', {
        fetch: async () => {
          throw reset;
        },
      }),
    );
    expect(network.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(network.cause).toBe(reset);

    const silent = await rejectionOf(
      fetchRange('https://blobs.example/x', {
        timeoutMs: 5,
        fetch: (_url, init) =>
          new Promise((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
          }),
      }),
    );
    expect(silent.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(silent.cause).toBeInstanceOf(LimitError);
  });

  it("a store's failure that the download gave up on: the last one", async () => {
    const drop = new Error('connection reset by peer');
    const store = {
      head: async () => ({ size: 100 }),
      get: async () => {
        throw drop;
      },
    };
    const error = await rejectionOf(
      downloadMedia(
        { ref: 'media/abc', format: 'v1' },
        { source: store, blobKey: key, sink: memorySink(), retries: 1, retryDelayMs: 0 },
      ),
    );
    expect(error.code).toBe('ERR_DOWNLOAD_FAILED');
    expect(error.cause).toBe(drop);
  });
});

describe('what was a plain Error is typed', () => {
  it('an AES-GCM implementation that returns a ciphertext of the wrong length: ERR_INTERNAL', async () => {
    const short: SyncAesGcm = {
      ...nobleAesGcm,
      seal: (k, n, p) => nobleAesGcm.seal(k as Uint8Array, n, p).subarray(1),
    };
    for (const aesGcm of [short, asAsync(short)]) {
      const error = await rejectionOf(encryptBlob(randomBytes(100), key, { context, aesGcm }));
      expect(error).toBeInstanceOf(HappyMediaError);
      expect(error.code, aesGcm.name).toBe('ERR_INTERNAL');
    }
  });
});
