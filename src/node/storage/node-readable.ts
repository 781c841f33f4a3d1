/**
 * Node `Readable` → Web `ReadableStream`, pull-based. Node 20's `Readable.toWeb` counts its queue in
 * chunks with the byte high-water mark as the count (16 384 chunks), so a slow consumer can make it
 * buffer hundreds of MiB; this adapter reads one chunk per pull through the async iterator, which keeps
 * Node's own byte-sized buffering and its backpressure.
 *
 * @module
 */
import type { Readable } from 'node:stream';

/**
 * Wraps `readable` as a Web stream of `Uint8Array`s. Cancelling the Web stream destroys `readable`;
 * an error of `readable` errors the Web stream.
 */
export function nodeReadableToWeb(readable: Readable): ReadableStream<Uint8Array> {
  const iterator = readable[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) {
          controller.close();
          return;
        }
        const value = next.value;
        controller.enqueue(
          typeof value === 'string'
            ? new TextEncoder().encode(value)
            : new Uint8Array(value.buffer, value.byteOffset, value.byteLength),
        );
      },
      async cancel(reason) {
        readable.destroy(reason instanceof Error ? reason : undefined);
        await iterator.return?.().catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}
