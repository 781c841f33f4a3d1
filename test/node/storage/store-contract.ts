/**
 * The one contract every BlobStore passes (docs/storage.md). Each store's test file calls
 * {@link describeStoreContract} with a factory, so local, HTTP and S3 are held to the same behaviour.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ciphertextSize, encryptBlob, openBlobRandomAccess } from '../../../src/core/blob/index.js';
import { createMediaRef } from '../../../src/core/protocol/refs.js';
import type { BlobStore } from '../../../src/node/storage/index.js';
import { storeRangeSource } from '../../../src/node/storage/index.js';

/** Ciphertext layout figures: a 56-byte header, then 16400-byte sealed chunks. */
export const HEADER = 56;
export const SEALED_CHUNK = 16400;

/** A Web stream of `bytes`, cut into pieces of `piece` bytes (views into one buffer, non-zero offsets). */
export function streamOf(bytes: Uint8Array, piece = 7000): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      const end = Math.min(bytes.length, at + piece);
      controller.enqueue(bytes.subarray(at, end));
      at = end;
    },
  });
}

/** A stream that yields `bytes` and then waits until `signal` aborts (a stuck producer). */
export function stallingStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(bytes);
        return;
      }
      return new Promise(() => {});
    },
  });
}

/** Reads a whole Web stream into one array. */
export async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ code });
}

/** Registers the contract tests for a store made by `make` (called once per describe block). */
export function describeStoreContract(name: string, make: () => Promise<BlobStore> | BlobStore): void {
  describe(`${name}: BlobStore contract`, () => {
    const key = new Uint8Array(randomBytes(32));
    // Three full chunks and a partial one: boundaries at 56, 56+16400, ...
    const plaintext = new Uint8Array(randomBytes(3 * 16384 + 1000));
    let ciphertext: Uint8Array;
    let store: BlobStore;
    const ref = createMediaRef();

    it('stores a blob and reads it back whole, with its size', async () => {
      store = await make();
      ciphertext = await encryptBlob(plaintext, key);
      expect(ciphertext.length).toBe(ciphertextSize(plaintext.length));
      const progress: number[] = [];
      await store.put(ref, streamOf(ciphertext), ciphertext.length, {
        onProgress: (done, total) => {
          expect(total).toBe(ciphertext.length);
          progress.push(done);
        },
      });
      expect(progress.at(-1)).toBe(ciphertext.length);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(await store.head(ref)).toEqual({ size: ciphertext.length });
      expect(Buffer.from(await collect(await store.get(ref))).equals(Buffer.from(ciphertext))).toBe(true);
    });

    it('serves ranges at and across chunk boundaries, cut at the end', async () => {
      const cases: [number, number][] = [
        [0, HEADER],
        [HEADER, SEALED_CHUNK],
        [HEADER + SEALED_CHUNK - 1, 2],
        [HEADER + 2 * SEALED_CHUNK, SEALED_CHUNK],
        [HEADER + 3 * SEALED_CHUNK, 10_000_000],
        [ciphertext.length - 1, 1],
        [ciphertext.length - 1, 5],
        [12345, 0],
        [ciphertext.length, 10],
      ];
      for (const [offset, length] of cases) {
        const got = await collect(await store.get(ref, { offset, length }));
        const want = ciphertext.subarray(offset, Math.min(ciphertext.length, offset + length));
        expect(got.length, `range ${offset}+${length}`).toBe(want.length);
        expect(Buffer.from(got).equals(Buffer.from(want)), `range ${offset}+${length}`).toBe(true);
      }
      await expectCode(store.get(ref, { offset: ciphertext.length + 1, length: 1 }), 'ERR_INVALID_ARGUMENT');
      await expectCode(store.get(ref, { offset: -1, length: 1 }), 'ERR_INVALID_ARGUMENT');
    });

    it('gives random access for decryption through storeRangeSource', async () => {
      const reader = await openBlobRandomAccess(storeRangeSource(store, ref), key);
      expect(reader.plaintextSize).toBe(plaintext.length);
      const piece = await reader.read(16380, 16400);
      expect(Buffer.from(piece).equals(Buffer.from(plaintext.subarray(16380, 32780)))).toBe(true);
    });

    it('stores and reads a 0-byte blob', async () => {
      const empty = createMediaRef();
      await store.put(empty, streamOf(new Uint8Array(0)), 0);
      expect(await store.head(empty)).toEqual({ size: 0 });
      expect((await collect(await store.get(empty))).length).toBe(0);
      expect((await collect(await store.get(empty, { offset: 0, length: 10 }))).length).toBe(0);
      await store.delete(empty);
      await expectCode(store.head(empty), 'ERR_NOT_FOUND');
    });

    it('reports a missing ref as ERR_NOT_FOUND and deletes idempotently', async () => {
      const missing = createMediaRef();
      await expectCode(store.head(missing), 'ERR_NOT_FOUND');
      await expectCode(store.get(missing), 'ERR_NOT_FOUND');
      await expectCode(store.get(missing, { offset: 0, length: 10 }), 'ERR_NOT_FOUND');
      await store.delete(missing);
    });

    it('rejects bad refs before any I/O', async () => {
      for (const bad of [
        'media/../x',
        'media/a/b',
        'media/',
        '../media/x',
        'machine-file:///etc/passwd',
        'x',
      ]) {
        await expectCode(store.head(bad), 'ERR_INVALID_REF');
        await expectCode(store.put(bad, streamOf(new Uint8Array(1)), 1), 'ERR_INVALID_REF');
        await expectCode(store.get(bad), 'ERR_INVALID_REF');
        await expectCode(store.delete(bad), 'ERR_INVALID_REF');
      }
    });

    it('runs concurrent uploads without mixing them up', async () => {
      const blobs = Array.from({ length: 6 }, (_, i) => new Uint8Array(randomBytes(20_000 + i * 9_999)));
      const refs = blobs.map(() => createMediaRef());
      await Promise.all(
        blobs.map((blob, i) => store.put(refs[i] as string, streamOf(blob, 4096 + i), blob.length)),
      );
      for (const [i, blob] of blobs.entries()) {
        const back = await collect(await store.get(refs[i] as string));
        expect(Buffer.from(back).equals(Buffer.from(blob))).toBe(true);
      }
      await Promise.all(refs.map((r) => store.delete(r)));
    });

    it('stores nothing when the body is shorter than announced', async () => {
      const short = createMediaRef();
      await expectCode(store.put(short, streamOf(new Uint8Array(1000)), 1001), 'ERR_UPLOAD_FAILED');
      await expectCode(store.head(short), 'ERR_NOT_FOUND');
    });

    it('stores nothing when the body is longer than announced', async () => {
      const long = createMediaRef();
      await expectCode(store.put(long, streamOf(new Uint8Array(1002)), 1001), 'ERR_UPLOAD_FAILED');
      await expectCode(store.head(long), 'ERR_NOT_FOUND');
    });

    it('stores nothing when the body errors mid-way (interrupted upload)', async () => {
      const broken = createMediaRef();
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 50_000) {
            controller.error(new Error('disk went away'));
            return;
          }
          controller.enqueue(new Uint8Array(10_000));
          sent += 10_000;
        },
      });
      await expect(store.put(broken, body, 100_000)).rejects.toThrow();
      await expectCode(store.head(broken), 'ERR_NOT_FOUND');
    });

    it('stores nothing when aborted, and does not hang on a stuck producer', async () => {
      const aborted = createMediaRef();
      const controller = new AbortController();
      const put = store.put(aborted, stallingStream(new Uint8Array(30_000)), 100_000, {
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), 100);
      await expectCode(put, 'ERR_ABORTED');
      await expectCode(store.head(aborted), 'ERR_NOT_FOUND');
      const before = new AbortController();
      before.abort();
      await expectCode(
        store.put(createMediaRef(), streamOf(new Uint8Array(1)), 1, { signal: before.signal }),
        'ERR_ABORTED',
      );
    });

    it('replaces a blob as a whole when the same ref is put again', async () => {
      const again = new Uint8Array(randomBytes(777));
      await store.put(ref, streamOf(again), again.length);
      expect(Buffer.from(await collect(await store.get(ref))).equals(Buffer.from(again))).toBe(true);
      await store.delete(ref);
      await expectCode(store.head(ref), 'ERR_NOT_FOUND');
    });
  });
}
