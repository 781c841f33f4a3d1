/**
 * Helpers shared by the blob tests: feed a TransformStream in chosen pieces and collect what it emits,
 * keeping what came out before an error (to check what a streaming decryptor released).
 */
import type { RangeSource } from '../../../src/core/blob/index.js';

/** Result of running bytes through a stream. */
export interface StreamRun {
  /** Every byte the readable side emitted, including before an error. */
  output: Uint8Array;
  /** The error the stream ended with, if any. */
  error: unknown;
}

/** Cuts `bytes` into pieces of the sizes `sizes()` returns (views, so offsets are non-zero). */
export function* cut(bytes: Uint8Array, sizes: () => number): Generator<Uint8Array> {
  let at = 0;
  while (at < bytes.length) {
    const n = Math.max(1, sizes());
    yield bytes.subarray(at, Math.min(bytes.length, at + n));
    at += n;
  }
}

/** Pushes the pieces through `stream`, collects the output, and reports the error instead of throwing. */
export async function runStream(
  stream: TransformStream<Uint8Array, Uint8Array>,
  pieces: Iterable<Uint8Array>,
): Promise<StreamRun> {
  const chunks: Uint8Array[] = [];
  const reading = (async () => {
    const reader = stream.readable.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        chunks.push(value);
      }
    } finally {
      reader.releaseLock();
    }
  })();
  const writing = (async () => {
    const writer = stream.writable.getWriter();
    try {
      for (const piece of pieces) await writer.write(piece);
      await writer.close();
    } finally {
      writer.releaseLock();
    }
  })();
  const [r, w] = await Promise.allSettled([reading, writing]);
  const error = r.status === 'rejected' ? r.reason : w.status === 'rejected' ? w.reason : undefined;
  let total = 0;
  for (const c of chunks) total += c.length;
  const output = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    output.set(c, at);
    at += c.length;
  }
  return { output, error };
}

/** A small deterministic PRNG (mulberry32) so "random" piece sizes are reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Deterministic pseudo-random bytes (not for keys: for test data only). */
export function testBytes(length: number, seed = 1): Uint8Array {
  const next = prng(seed);
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (next() * 256) | 0;
  return out;
}

/** Returns a copy of `bytes` placed at a non-zero offset of a larger buffer (to catch offset bugs). */
export function offsetView(bytes: Uint8Array, offset = 7): Uint8Array {
  const backing = new Uint8Array(bytes.length + offset + 5);
  backing.set(bytes, offset);
  return backing.subarray(offset, offset + bytes.length);
}

/**
 * A RangeSource over `bytes` that reads into the reader's arrays (`readInto`, as a file does), recording
 * every `readInto` as `{ offset, length }` in `requests`; `short` makes the read at that offset return
 * one byte less than asked.
 */
export function readIntoSource(
  bytes: Uint8Array,
  options: { short?: number } = {},
): { source: RangeSource; requests: { offset: number; length: number }[] } {
  const requests: { offset: number; length: number }[] = [];
  const source: RangeSource = {
    size: async () => bytes.length,
    read: async (offset, length) => bytes.slice(offset, Math.min(bytes.length, offset + length)),
    readInto: async (offset, out) => {
      requests.push({ offset, length: out.length });
      const part = bytes.subarray(offset, Math.min(bytes.length, offset + out.length));
      const n = offset === options.short ? part.length - 1 : part.length;
      out.set(part.subarray(0, n));
      return n;
    },
  };
  return { source, requests };
}
