/**
 * Node's arrays for the hot paths (see `core/runtime/byte-allocator.ts`): scratch bytes from Node's shared
 * `Buffer` pool (`Buffer.allocUnsafe` and `Buffer.from(text, 'utf8')` cut arrays under 4 KiB out of one
 * 8 KiB slab instead of giving each an ArrayBuffer of its own), and output arrays that are not zero-filled
 * (a blob batch's megabyte is written in full anyway).
 *
 * @module
 */
import type { ByteAllocator } from '../../core/runtime/byte-allocator.js';

/**
 * A plain `Uint8Array` of `length` bytes over its own `ArrayBuffer`, not zero-filled. Its own buffer (not
 * Node's shared pool) so a consumer that keeps or transfers `.buffer` sees nothing else; a plain
 * `Uint8Array` (not a `Buffer`) so `.slice()` copies as callers expect.
 */
function uninitialisedBytes(length: number): Uint8Array {
  const buffer = Buffer.allocUnsafeSlow(length);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);
}

/** Node's allocator (`name: 'node'`), part of `nodeRuntime`: every byte of its arrays must be written. */
export const nodeByteAllocator: ByteAllocator = Object.freeze({
  name: 'node',
  output: uninitialisedBytes,
  scratch: (length: number) => Buffer.allocUnsafe(length),
  utf8: (text: string) => Buffer.from(text, 'utf8'),
});
