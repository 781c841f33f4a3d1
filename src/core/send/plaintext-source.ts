/**
 * The plaintext a send encrypts, as spans it reads in order: a file can give any span again (a part made
 * again after an interrupted send), a stream only the next one. Media in one attachment reads one span,
 * the whole file; media in parts reads one span per part (docs/blob-format.md, "Media in parts").
 *
 * @module
 */
import { assertNonNegativeInteger, describeValue } from '../bytes.js';
import { InternalError, InvalidArgumentError } from '../errors.js';
import { readSizedBody } from '../storage/sized-body.js';

/** Where a send reads its plaintext from. */
export interface PlaintextSource {
  /** Plaintext bytes in all. */
  readonly size: number;
  /**
   * True when any span can be read, again and out of order (a file); false for a stream, read once in
   * order, each span starting where the previous one ended.
   */
  readonly rereadable: boolean;
  /**
   * The stream of exactly `length` bytes from `offset` (fewer or more is the send's failure: the source
   * changed). Reading it to the end or cancelling it releases what it holds.
   */
  read(offset: number, length: number, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>>;
}

/**
 * A stream as a {@link PlaintextSource}: read once, in order. Each span is the next `length` bytes of
 * the stream; the last span must end it (a longer stream fails the send). `stream` may be a function
 * that makes it, called at the first read: nothing is read (or started) before the send needs the bytes.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for something that is neither (at the first read,
 *   for a function).
 */
export function streamPlaintextSource(
  stream: ReadableStream<Uint8Array> | (() => ReadableStream<Uint8Array>),
  size: number,
): PlaintextSource {
  const check = (value: unknown): ReadableStream<Uint8Array> => {
    if (!(value instanceof ReadableStream)) {
      throw new InvalidArgumentError(
        `expected a ReadableStream for \`stream\` but received ${describeValue(value)}`,
      );
    }
    return value as ReadableStream<Uint8Array>;
  };
  if (typeof stream !== 'function') check(stream);
  assertNonNegativeInteger(size, 'size');
  let opened: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const reader = () => {
    opened ??= check(typeof stream === 'function' ? stream() : stream).getReader();
    return opened;
  };
  let next = 0;
  let carried: Uint8Array | undefined;
  return {
    size,
    rereadable: false,
    async read(offset, length) {
      if (offset !== next) {
        throw new InternalError(`a stream is read in order: asked for byte ${offset}, next is ${next}`);
      }
      next = offset + length;
      let left = length;
      const last = next === size;
      return new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            if (left === 0) {
              // The last span ends the stream: a byte more is a stream longer than announced.
              if (last) {
                const extra = carried ?? (await reader().read()).value;
                if (extra !== undefined && extra.length > 0) controller.enqueue(extra);
              }
              controller.close();
              return;
            }
            let piece = carried;
            carried = undefined;
            if (piece === undefined) {
              const step = await reader().read();
              if (step.done) {
                controller.close();
                return;
              }
              piece = step.value;
            }
            if (piece.length > left) {
              carried = piece.subarray(left);
              piece = piece.subarray(0, left);
            }
            left -= piece.length;
            controller.enqueue(piece);
          },
          async cancel(reason) {
            await reader()
              .cancel(reason)
              .catch(() => undefined);
          },
        },
        { highWaterMark: 0 },
      );
    },
  };
}

/**
 * Reads a span of `source` as pieces, checked to hold exactly `length` bytes (`ERR_UPLOAD_FAILED`
 * otherwise: the source changed while it was sent).
 */
export async function* sourceSpan(
  source: PlaintextSource,
  offset: number,
  length: number,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array, void, undefined> {
  yield* readSizedBody(await source.read(offset, length, signal), length, signal ? { signal } : {});
}
