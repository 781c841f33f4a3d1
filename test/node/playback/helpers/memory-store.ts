/**
 * A blob store in memory that counts its requests and injects faults: a response that drops after N
 * bytes, or a byte flipped in transit. It implements the read side of the `BlobStore` contract.
 */
import { StorageError } from '../../../../src/core/errors.js';
import type { ReadableBlobStore } from '../../../../src/node/playback/index.js';

/** One `get` as the store saw it. */
export interface GetRecord {
  ref: string;
  offset: number;
  length: number;
}

export class MemoryStore implements ReadableBlobStore {
  readonly blobs = new Map<string, Uint8Array>();
  readonly gets: GetRecord[] = [];
  heads = 0;
  /** Each `get` takes the next entry: drop the response after this many bytes (undefined: no drop). */
  dropAfter: (number | undefined)[] = [];
  /** Absolute ciphertext offsets whose byte is flipped in every response that covers them. */
  flipAt = new Set<number>();
  /** Bytes per enqueued piece. */
  pieceBytes = 8192;
  /** Delay per piece in ms (lets tests abort mid-download). */
  pieceDelayMs = 0;
  /** When set, every `get` reports this as the stored size through `onSize` (as an HTTP 206 would). */
  reportedSize: number | undefined;

  put(ref: string, bytes: Uint8Array): void {
    this.blobs.set(ref, bytes);
  }

  async head(ref: string): Promise<{ size: number }> {
    this.heads++;
    const blob = this.blobs.get(ref);
    if (!blob) throw new StorageError(`no blob ${ref}`, { code: 'ERR_NOT_FOUND' });
    return { size: blob.length };
  }

  async get(
    ref: string,
    range?: { offset: number; length: number },
    options?: { signal?: AbortSignal; onSize?: (size: number) => void },
  ): Promise<ReadableStream<Uint8Array>> {
    const blob = this.blobs.get(ref);
    if (!blob) throw new StorageError(`no blob ${ref}`, { code: 'ERR_NOT_FOUND' });
    if (this.reportedSize !== undefined) options?.onSize?.(this.reportedSize);
    const offset = range?.offset ?? 0;
    const length = range?.length ?? blob.length - offset;
    this.gets.push({ ref, offset, length });
    const drop = this.dropAfter.shift();
    const body = blob.slice(offset, offset + length);
    for (const at of this.flipAt) if (at >= offset && at < offset + length) body[at - offset]! ^= 0x01;
    let sent = 0;
    const { pieceBytes, pieceDelayMs } = this;
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (options?.signal?.aborted) {
          controller.error(options.signal.reason);
          return;
        }
        if (pieceDelayMs > 0) await new Promise((r) => setTimeout(r, pieceDelayMs));
        if (drop !== undefined && sent >= drop) {
          controller.error(new Error('connection reset (injected)'));
          return;
        }
        if (sent >= body.length) {
          controller.close();
          return;
        }
        const limit = drop === undefined ? body.length : Math.min(body.length, drop);
        const end = Math.min(limit, sent + pieceBytes);
        controller.enqueue(body.slice(sent, end));
        sent = end;
      },
    });
  }
}
