/**
 * Benchmark data: random bytes (incompressible, like encrypted or compressed media), written in pieces so
 * a 1 GiB file never sits in memory.
 *
 * @module
 */
import { createHash, randomFillSync } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

/** Binary size units. */
export const KiB = 1024;
/** One mebibyte. */
export const MiB = 1024 * KiB;
/** One gibibyte. */
export const GiB = 1024 * MiB;

/** Fresh random bytes (not for keys: use `crypto.getRandomValues`; this is fast fill for data). */
export function randomData(size: number): Uint8Array {
  const out = new Uint8Array(size);
  // randomFillSync takes at most 2^31-1 bytes per call.
  for (let at = 0; at < size; at += 1 << 30) randomFillSync(out, at, Math.min(1 << 30, size - at));
  return out;
}

/** Writes `size` random bytes to `path` (mode 0600) in 4 MiB pieces. */
export async function writeRandomFile(path: string, size: number): Promise<void> {
  const handle = await open(path, 'w', 0o600);
  try {
    const piece = new Uint8Array(4 * MiB);
    for (let at = 0; at < size; at += piece.length) {
      const n = Math.min(piece.length, size - at);
      randomFillSync(piece, 0, n);
      await handle.write(piece, 0, n);
    }
  } finally {
    await handle.close();
  }
}

/** SHA-256 of a file, hex, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: MiB })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** SHA-256 of bytes, hex. */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
