/**
 * Drives an encrypt or decrypt engine from any async iterable of bytes (a file, stdin) into a sink,
 * piece by piece: memory stays at one input piece plus one batch, whatever the size of the data.
 *
 * @module
 */
import { InvalidArgumentError } from '../../core/errors.js';

/** The common shape of the encrypt and decrypt engines. */
export interface ByteEngine {
  push(data: Uint8Array): Promise<Uint8Array[]>;
  finish(): Promise<Uint8Array[]>;
}

/** Pushes every piece of `input` through `engine` and hands each output piece to `sink`, in order. */
export async function pumpEngine(
  input: AsyncIterable<Uint8Array | string>,
  engine: ByteEngine,
  sink: (bytes: Uint8Array) => Promise<void>,
): Promise<void> {
  for await (const piece of input) {
    if (typeof piece === 'string') {
      throw new InvalidArgumentError('expected bytes from the input stream but received text');
    }
    for (const out of await engine.push(piece)) await sink(out);
  }
  for (const out of await engine.finish()) await sink(out);
}
