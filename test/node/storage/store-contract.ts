/**
 * The one contract every BlobStore passes (docs/storage.md). Each store's test file calls
 * {@link describeStoreContract} with a factory, so local, HTTP, S3 and Happy's real server are held to the
 * same behaviour: `create` (the write every store has), `get`, `head` and bad refs for all; `put`,
 * `delete` and the server-name mapping for the stores that have those capabilities.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ciphertextSize,
  encryptBlob,
  openBlobRandomAccess,
  unboundBlobContext,
} from '../../../src/core/blob/index.js';
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

/** A ref of the shape every store accepts (`media/<uuid>`: Happy's server issues only these), never used. */
export function unusedRef(): string {
  return `media/${crypto.randomUUID()}`;
}

/** `create` with a body that records the ref it was handed and how often it was called. */
function recordingBody(make: () => ReadableStream<Uint8Array>): {
  body: (ref: string) => ReadableStream<Uint8Array>;
  refs: string[];
} {
  const refs: string[] = [];
  return {
    refs,
    body: (ref) => {
      refs.push(ref);
      return make();
    },
  };
}

/** Registers the contract tests for a store made by `make` (called once per describe block). */
export function describeStoreContract(name: string, make: () => Promise<BlobStore> | BlobStore): void {
  describe(`${name}: BlobStore contract`, () => {
    const key = new Uint8Array(randomBytes(32));
    // Three full chunks and a partial one: boundaries at 56, 56+16400, ...
    const plaintext = new Uint8Array(randomBytes(3 * 16384 + 1000));
    let ciphertext: Uint8Array;
    let store: BlobStore;
    let ref: string;

    /** After a failed create: nothing is stored under the ref the body was handed (if it was called). */
    async function expectNothingUnder(refs: string[]): Promise<void> {
      expect(refs.length).toBeLessThanOrEqual(1);
      for (const given of refs) await expectCode(store.head(given), 'ERR_NOT_FOUND');
    }

    it('creates a blob under a ref it issues, handed to the body before its first byte, and reads it back', async () => {
      store = await make();
      ciphertext = await encryptBlob(plaintext, key, { context: unboundBlobContext() });
      expect(ciphertext.length).toBe(ciphertextSize(plaintext.length));
      const progress: number[] = [];
      const { body, refs } = recordingBody(() => streamOf(ciphertext));
      ({ ref } = await store.create(ciphertext.length, body, {
        onProgress: (done, total) => {
          expect(total).toBe(ciphertext.length);
          progress.push(done);
        },
      }));
      expect(refs).toEqual([ref]);
      expect(ref).toMatch(/^media\/[A-Za-z0-9_-]{1,128}$/);
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
      const reader = await openBlobRandomAccess(storeRangeSource(store, ref), key, {
        context: unboundBlobContext(),
      });
      expect(reader.plaintextSize).toBe(plaintext.length);
      const piece = await reader.read(16380, 16400);
      expect(Buffer.from(piece).equals(Buffer.from(plaintext.subarray(16380, 32780)))).toBe(true);
    });

    it('creates and reads a 0-byte blob', async () => {
      const { ref: empty } = await store.create(0, () => streamOf(new Uint8Array(0)));
      expect(await store.head(empty)).toEqual({ size: 0 });
      expect((await collect(await store.get(empty))).length).toBe(0);
      expect((await collect(await store.get(empty, { offset: 0, length: 10 }))).length).toBe(0);
    });

    it('reports a missing ref as ERR_NOT_FOUND', async () => {
      const missing = unusedRef();
      await expectCode(store.head(missing), 'ERR_NOT_FOUND');
      await expectCode(store.get(missing), 'ERR_NOT_FOUND');
      await expectCode(store.get(missing, { offset: 0, length: 10 }), 'ERR_NOT_FOUND');
    });

    it('rejects bad refs before any I/O, in every method it has', async () => {
      for (const bad of [
        'media/../x',
        'media/a/b',
        'media/',
        '../media/x',
        'machine-file:///etc/passwd',
        'x',
      ]) {
        await expectCode(store.head(bad), 'ERR_INVALID_REF');
        await expectCode(store.get(bad), 'ERR_INVALID_REF');
        if (store.put) await expectCode(store.put(bad, streamOf(new Uint8Array(1)), 1), 'ERR_INVALID_REF');
        if (store.delete) await expectCode(store.delete(bad), 'ERR_INVALID_REF');
        if (store.serverRef)
          expect(() => store.serverRef?.(bad)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_REF' }));
      }
    });

    it('runs concurrent creates without mixing them up, each under its own ref', async () => {
      const blobs = Array.from({ length: 6 }, (_, i) => new Uint8Array(randomBytes(20_000 + i * 9_999)));
      const refs = await Promise.all(
        blobs.map(async (blob, i) => (await store.create(blob.length, () => streamOf(blob, 4096 + i))).ref),
      );
      expect(new Set(refs).size).toBe(refs.length);
      for (const [i, blob] of blobs.entries()) {
        const back = await collect(await store.get(refs[i] as string));
        expect(Buffer.from(back).equals(Buffer.from(blob))).toBe(true);
      }
    });

    it('stores nothing when the body is shorter than announced', async () => {
      const { body, refs } = recordingBody(() => streamOf(new Uint8Array(1000)));
      await expectCode(store.create(1001, body), 'ERR_UPLOAD_FAILED');
      await expectNothingUnder(refs);
    });

    it('stores nothing when the body is longer than announced', async () => {
      const { body, refs } = recordingBody(() => streamOf(new Uint8Array(1002)));
      await expectCode(store.create(1001, body), 'ERR_UPLOAD_FAILED');
      await expectNothingUnder(refs);
    });

    it('stores nothing when the body errors mid-way (interrupted upload), and reports its error', async () => {
      let sent = 0;
      const { body, refs } = recordingBody(
        () =>
          new ReadableStream<Uint8Array>({
            pull(controller) {
              if (sent >= 50_000) {
                controller.error(new Error('disk went away'));
                return;
              }
              controller.enqueue(new Uint8Array(10_000));
              sent += 10_000;
            },
          }),
      );
      // The body's own error, or an upload error that keeps it as its cause.
      const error = await store.create(100_000, body).catch((e: unknown) => e as Error & { cause?: Error });
      expect(`${(error as Error).message} ${(error as { cause?: Error }).cause?.message}`).toContain(
        'disk went away',
      );
      await expectNothingUnder(refs);
    });

    it('stores nothing when the body cannot be made, and throws its error', async () => {
      const refs: string[] = [];
      const failing = async (given: string): Promise<ReadableStream<Uint8Array>> => {
        refs.push(given);
        throw new Error('no plaintext today');
      };
      await expect(store.create(10, failing)).rejects.toThrow('no plaintext today');
      await expectNothingUnder(refs);
    });

    it('stores nothing when aborted, and does not hang on a stuck producer', async () => {
      const controller = new AbortController();
      const { body, refs } = recordingBody(() => stallingStream(new Uint8Array(30_000)));
      const create = store.create(100_000, body, { signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      await expectCode(create, 'ERR_ABORTED');
      await expectNothingUnder(refs);
      const before = new AbortController();
      before.abort();
      const untouched = recordingBody(() => streamOf(new Uint8Array(1)));
      await expectCode(store.create(1, untouched.body, { signal: before.signal }), 'ERR_ABORTED');
      expect(untouched.refs).toEqual([]);
    });

    it('refuses a body that is not a function of the ref (a stream), before any I/O', async () => {
      await expectCode(
        store.create(1, streamOf(new Uint8Array(1)) as unknown as () => ReadableStream<Uint8Array>),
        'ERR_INVALID_ARGUMENT',
      );
      await expectCode(
        store.create(-1, () => streamOf(new Uint8Array(0))),
        'ERR_INVALID_ARGUMENT',
      );
    });

    it('put (where the store has it): stores under a chosen ref, replaces as a whole, refuses wrong lengths', async (context) => {
      if (!store.put) return context.skip();
      const chosen = unusedRef();
      const first = new Uint8Array(randomBytes(5000));
      await store.put(chosen, streamOf(first), first.length);
      expect(Buffer.from(await collect(await store.get(chosen))).equals(Buffer.from(first))).toBe(true);
      const again = new Uint8Array(randomBytes(777));
      await store.put(chosen, streamOf(again), again.length);
      expect(Buffer.from(await collect(await store.get(chosen))).equals(Buffer.from(again))).toBe(true);
      const short = unusedRef();
      await expectCode(store.put(short, streamOf(new Uint8Array(10)), 11), 'ERR_UPLOAD_FAILED');
      await expectCode(store.head(short), 'ERR_NOT_FOUND');
      await store.delete?.(chosen);
    });

    it('delete (where the store has it): removes the blob; deleting a missing ref succeeds', async (context) => {
      if (!store.delete) return context.skip();
      await store.delete(ref);
      await expectCode(store.head(ref), 'ERR_NOT_FOUND');
      await store.delete(ref);
      await store.delete(unusedRef());
    });

    it('serverRef/mediaRef (where the store has them): map its refs both ways', async (context) => {
      if (!store.serverRef || !store.mediaRef) return context.skip();
      const name = store.serverRef(ref);
      expect(name).not.toBe(ref);
      expect(store.mediaRef(name)).toBe(ref);
      expect(() => store.mediaRef?.(ref)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_REF' }));
    });
  });
}
