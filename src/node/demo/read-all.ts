/**
 * Reads a whole web stream into memory.
 *
 * @module
 */

/** A whole web stream in memory (the demo's blobs are small; used to inspect stored ciphertext). */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
