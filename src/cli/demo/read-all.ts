/**
 * Reads a whole web stream into memory, and hashes a file: how the demo inspects what it stored and
 * compares what it played with what it sent.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** A whole web stream in memory (the demo's blobs are small; used to inspect stored ciphertext). */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** SHA-256 (hex) of the file at `path`, read in pieces. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
