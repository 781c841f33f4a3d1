/**
 * The bytes of a blob from any offset, made again from its plaintext and its salt: what a resumed upload
 * sends after the bytes its store already holds (S3's confirmed parts, the media server's appended
 * prefix). Chunk `k` holds plaintext `[16384·k, 16384·(k+1))` and sits at ciphertext `56 + 16400·k`, so the
 * chunk an offset falls in is known, and the same key, context, salt and plaintext give the same bytes.
 *
 * The same salt with other plaintext would reuse AES-GCM nonces: a caller sends what this makes only after
 * checking that what the store holds was made from the same plaintext (a digest of the bytes the store
 * holds, compared with the same bytes made again here).
 *
 * @module
 */
import { assertBytes, assertNonNegativeInteger } from '../bytes.js';
import { InvalidArgumentError } from '../errors.js';
import {
  BLOB_CHUNK_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_SALT_SIZE,
  BLOB_SEALED_CHUNK_SIZE,
  type BlobOptions,
} from './format.js';
import { ciphertextSize } from './sizes.js';
import { BlobEncryptor } from './stream.js';

/**
 * The ciphertext `[offset, ciphertextSize(size))` of the blob of `size` plaintext bytes sealed with
 * `salt`: `plaintextFrom(start)` gives the plaintext from byte `start` to the end (a chunk boundary at or
 * before what `offset` needs), which is sealed from that chunk on, and the bytes before `offset` dropped.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad key, salt or option, or an offset past
 *   the end.
 * @example
 * ```ts
 * const rest = ciphertextFrom(blobKey, { context: mediaBlobContext(ref) }, salt, size, held,
 *   (start) => file.stream(start));
 * ```
 */
export function ciphertextFrom(
  key: Uint8Array,
  options: BlobOptions,
  salt: Uint8Array,
  size: number,
  offset: number,
  plaintextFrom: (start: number) => ReadableStream<Uint8Array> | Promise<ReadableStream<Uint8Array>>,
): ReadableStream<Uint8Array> {
  assertBytes(salt, 'salt', BLOB_SALT_SIZE);
  const total = ciphertextSize(size);
  assertNonNegativeInteger(offset, 'offset');
  if (offset > total) {
    throw new InvalidArgumentError(
      `expected an offset at most the blob's ${total} bytes for \`offset\` but received ${offset}`,
    );
  }
  const chunk =
    offset < BLOB_HEADER_SIZE ? 0 : Math.floor((offset - BLOB_HEADER_SIZE) / BLOB_SEALED_CHUNK_SIZE);
  // Where the first byte the engine makes sits: the header (chunk 0), else chunk `chunk`'s start.
  const made = chunk === 0 ? 0 : BLOB_HEADER_SIZE + chunk * BLOB_SEALED_CHUNK_SIZE;
  const encryptor = new BlobEncryptor(key, options, { salt, firstChunk: chunk });
  let skip = offset - made;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const header = await encryptor.start();
      if (chunk === 0) emit(controller, [header]);
      reader = (await plaintextFrom(Math.min(size, chunk * BLOB_CHUNK_SIZE))).getReader();
    },
    async pull(controller) {
      const step = await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
      if (step.done) {
        emit(controller, await encryptor.finish());
        controller.close();
        return;
      }
      emit(controller, await encryptor.push(step.value));
    },
    async cancel(reason) {
      await reader?.cancel(reason).catch(() => undefined);
    },
  });

  /** Enqueues what the engine made, less the bytes before `offset`. */
  function emit(controller: ReadableStreamDefaultController<Uint8Array>, pieces: Uint8Array[]): void {
    for (const piece of pieces) {
      if (skip >= piece.length) {
        skip -= piece.length;
        continue;
      }
      controller.enqueue(skip > 0 ? piece.subarray(skip) : piece);
      skip = 0;
    }
  }
}
