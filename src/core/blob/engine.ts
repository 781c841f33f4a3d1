/**
 * The shape the two sequential engines share ({@link BlobEncryptor}, {@link BlobDecryptor}) and the one
 * loop that drives an engine over pieces of input. Every sequential entry point is an adapter of this
 * shape to an I/O form (docs/blob-format.md, "Who drives the engine"): the Web and Node streams, the
 * whole-buffer helpers, the file and stdin paths of Node and the CLI.
 *
 * @module
 */
import { InvalidArgumentError } from '../errors.js';

/** An encrypt or decrypt engine: `start()` (the encryptor's header) once, `push()` per piece, `finish()`. */
export interface BlobEngine {
  /** The encryptor's 56-byte header, emitted before anything else; the decryptor has none. */
  start?(): Promise<Uint8Array>;
  /** Adds a piece of input; resolves with the output it completed (possibly none), in order. */
  push(data: Uint8Array): Promise<Uint8Array[]>;
  /** Ends the input; resolves with the rest of the output. */
  finish(): Promise<Uint8Array[]>;
}

/**
 * Drives `engine` over every piece of `input` and hands each output piece to `sink`, in order: the header
 * (if the engine has one), what each push completed, what finish released. Memory stays at one input
 * piece plus one batch, whatever the length of the input.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when the input yields text instead of bytes; what
 *   the engine and `sink` throw, as they threw it.
 * @example
 * ```ts
 * await pumpEngine(readFileAhead(path), new BlobEncryptor(key, options), (bytes) => out.write(bytes));
 * ```
 */
export async function pumpEngine(
  input: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array>,
  engine: BlobEngine,
  sink: (bytes: Uint8Array) => void | Promise<void>,
): Promise<void> {
  if (engine.start) await sink(await engine.start());
  for await (const piece of input) {
    if (typeof piece === 'string') {
      throw new InvalidArgumentError('expected bytes from the input stream but received text');
    }
    for (const out of await engine.push(piece)) await sink(out);
  }
  for (const out of await engine.finish()) await sink(out);
}

/**
 * The engine as a Web `TransformStream`: the header (if any) when the stream starts, then what each
 * chunk written completes, then the rest at the end.
 */
export function engineStream(engine: BlobEngine): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream<Uint8Array, Uint8Array>({
    async start(controller) {
      if (engine.start) controller.enqueue(await engine.start());
    },
    async transform(chunk, controller) {
      for (const piece of await engine.push(chunk)) controller.enqueue(piece);
    },
    async flush(controller) {
      for (const piece of await engine.finish()) controller.enqueue(piece);
    },
  });
}
