/**
 * Node `stream.Transform` adapters over the same engines as the Web streams, for `pipeline()` users.
 *
 * @module
 */
import { Transform, type TransformCallback } from 'node:stream';
import type { BlobOptions } from '../../core/blob/format.js';
import { BlobDecryptor, BlobEncryptor, type BlobEngine } from '../../core/blob/stream.js';

/** The engine as a Node Transform: the header (if any) first, then what each write completes. */
class EngineTransform extends Transform {
  readonly #engine: BlobEngine;

  constructor(engine: BlobEngine) {
    super();
    this.#engine = engine;
  }

  override _construct(callback: (error?: Error | null) => void): void {
    if (!this.#engine.start) {
      callback();
      return;
    }
    this.#engine.start().then((header) => {
      this.push(header);
      callback();
    }, callback);
  }

  override _transform(chunk: Uint8Array, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#engine.push(chunk).then((pieces) => {
      for (const piece of pieces) this.push(piece);
      callback();
    }, callback);
  }

  override _flush(callback: TransformCallback): void {
    this.#engine.finish().then((pieces) => {
      for (const piece of pieces) this.push(piece);
      callback();
    }, callback);
  }
}

/**
 * A Node `Transform` that encrypts into a Cobblestone-256 blob (same output as `createEncryptStream`).
 *
 * @param key 32-byte blob key.
 * @throws {InvalidArgumentError} at once for a bad key or option; `LimitError` through the stream.
 * @example
 * ```ts
 * await pipeline(createReadStream('clip.mp4'), createNodeEncryptStream(blobKey, { context: unboundBlobContext() }), createWriteStream('clip.bin'));
 * ```
 */
export function createNodeEncryptStream(key: Uint8Array, options: BlobOptions): Transform {
  return new EngineTransform(new BlobEncryptor(key, options));
}

/**
 * A Node `Transform` that decrypts a Cobblestone-256 blob, emitting each chunk only after its tag
 * verified and erroring with `DecryptionError` on any authentication failure (including truncation).
 * Verified chunks before a failure may already have been emitted: write to a temp file and rename on
 * success when all-or-nothing matters (`decryptFile` does).
 *
 * @param key 32-byte blob key.
 * @throws {InvalidArgumentError} at once for a bad key or option.
 */
export function createNodeDecryptStream(key: Uint8Array, options: BlobOptions): Transform {
  return new EngineTransform(new BlobDecryptor(key, options));
}
