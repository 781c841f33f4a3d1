/**
 * Random access: 1 MiB reads at random offsets of an encrypted blob file (1 GiB; quick: 64 MiB) through
 * `openBlobRandomAccess(fileRangeSource)` (`read`, a fresh array per read, and `readInto` one array, as
 * the plain reference reads into one buffer; and `readInto` over a source with `blockingReads`), beside
 * reading the same ranges from the plaintext file, and beside the format's floors: the covering chunks read
 * from the blob file and deciphered one by one (what the simplest reader of the format pays), and the
 * same deciphering of chunks already in memory and in cache (decryption alone).
 *
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes, randomInt } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bufferRangeSource, openBlobRandomAccess, unboundBlobContext } from 'happy-media/blob';
import { encryptFile, fileRangeSource } from 'happy-media/node';
import type { BenchContext, Suite, SuiteRecorder } from '../harness/context.js';
import { GiB, MiB, writeRandomFile } from '../harness/data.js';
import { timeInterleaved } from '../harness/measure.js';
import { megabytesPerSecond, summarize } from '../harness/stats.js';
import { formatBytes } from '../harness/table.js';

async function run(ctx: BenchContext, rec: SuiteRecorder): Promise<void> {
  const size = ctx.quick ? 64 * MiB : GiB;
  const reads = ctx.quick ? 16 : 32;
  const plan = ctx.quick ? { warmup: 1, runs: 3 } : { warmup: 1, runs: 5 };
  const plainPath = join(ctx.scratchDir, 'plain.bin');
  const encPath = join(ctx.scratchDir, 'blob.enc');
  const key = new Uint8Array(randomBytes(32));
  ctx.log(`  preparing ${formatBytes(size)} plain and encrypted files`);
  await writeRandomFile(plainPath, size);
  await encryptFile(plainPath, encPath, key, { context: unboundBlobContext() });

  const source = fileRangeSource(encPath);
  // Reads on the main thread, as a command-line tool may choose: no hand-over to the thread pool.
  const blockingSource = fileRangeSource(encPath, { blockingReads: true });
  const plain = await open(plainPath, 'r');
  try {
    const reader = await openBlobRandomAccess(source, key, { context: unboundBlobContext() });
    if (reader.plaintextSize !== size) throw new Error(`plaintextSize ${reader.plaintextSize} ≠ ${size}`);
    // The same random offsets for ours and the reference; some unaligned on purpose.
    const offsets = Array.from({ length: reads }, () => randomInt(0, size - MiB + 1));
    const buf = Buffer.alloc(MiB);
    const readPlain = async (offset: number) => {
      const { bytesRead } = await plain.read(buf, 0, MiB, offset);
      return buf.subarray(0, bytesRead);
    };
    for (const offset of [0, size - MiB, ...offsets.slice(0, 4)]) {
      const ours = await reader.read(offset, MiB);
      if (!Buffer.from(ours.buffer, ours.byteOffset, ours.length).equals(await readPlain(offset))) {
        throw new Error(`random-access read at ${offset} differs from the plaintext`);
      }
    }
    rec.check(
      `plaintextSize = ${formatBytes(size)}; 1 MiB reads at first, last and random offsets equal the plaintext`,
    );
    const floors = decryptionFloors(buf, offsets.length);
    // The same reads with the whole ciphertext in memory: the difference to the file reads is the cost of
    // each read's trip to the thread pool and back (on this VM, waking the idle threads costs more than
    // copying a megabyte out of the page cache), the rest is decryption.
    const inMemory = await openBlobRandomAccess(bufferRangeSource(await readFile(encPath)), key, {
      context: unboundBlobContext(),
    });
    // A player's reads into one array of its own, as the plain reference reads into one buffer.
    const into = new Uint8Array(MiB);
    const blocking = await openBlobRandomAccess(blockingSource, key, { context: unboundBlobContext() });
    for (const offset of offsets.slice(0, 4)) {
      for (const r of [reader, blocking]) {
        await r.readInto(offset, into);
        if (!Buffer.from(into.buffer, into.byteOffset, into.length).equals(await readPlain(offset))) {
          throw new Error(`random-access readInto at ${offset} differs from the plaintext`);
        }
      }
    }
    const fileFloor = await chunksFromFileFloor(encPath, offsets);
    const [oursMs, refMs, perChunkMs, oneCipherMs, inMemoryMs, intoMs, blockingMs, fileFloorMs] =
      await timeInterleaved(
        [
          async () => {
            for (const o of offsets) await reader.read(o, MiB);
          },
          async () => {
            for (const o of offsets) await readPlain(o);
          },
          floors.perChunk,
          floors.oneCipher,
          async () => {
            for (const o of offsets) await inMemory.read(o, MiB);
          },
          async () => {
            for (const o of offsets) await reader.readInto(o, into);
          },
          async () => {
            for (const o of offsets) await blocking.readInto(o, into);
          },
          fileFloor.run,
        ],
        plan,
      );
    await fileFloor.close();
    recordReads(
      rec,
      { reads, size },
      { oursMs, refMs, perChunkMs, oneCipherMs, inMemoryMs, intoMs, blockingMs, fileFloorMs },
    );
  } finally {
    await plain.close();
    await source.close();
    await blockingSource.close();
  }
}

/**
 * The floors of the decryption itself, on bytes already in memory (no I/O), for `rounds` reads of 1 MiB:
 * the format's per-chunk node:crypto work (65 chunks, a new decipher each: what any Cobblestone reader in
 * Node pays), and one decipher over 1 MiB (the AES-GCM hardware limit, which no chunked format reaches).
 */
function decryptionFloors(buf: Buffer, rounds: number): { perChunk: () => void; oneCipher: () => void } {
  const chunkKey = randomBytes(32);
  const iv = randomBytes(12);
  const chunks = Array.from({ length: 65 }, () => {
    const cipher = createCipheriv('aes-256-gcm', chunkKey, iv);
    const body = cipher.update(buf.subarray(0, 16384));
    cipher.final();
    return { body, tag: cipher.getAuthTag() };
  });
  const oneShot = createCipheriv('aes-256-gcm', chunkKey, iv).update(buf);
  return {
    perChunk: () => {
      for (let r = 0; r < rounds; r++) {
        for (const { body, tag } of chunks) {
          const decipher = createDecipheriv('aes-256-gcm', chunkKey, iv);
          decipher.setAuthTag(tag);
          decipher.update(body);
          decipher.final();
        }
      }
    },
    oneCipher: () => {
      for (let r = 0; r < rounds; r++) createDecipheriv('aes-256-gcm', chunkKey, iv).update(oneShot);
    },
  };
}

/**
 * The floor as the format words it, from the file: for each read, the sealed chunks it covers read from
 * the blob file with one positioned read into one reused buffer (the default thread pool, as our default
 * source), then one node:crypto decipher per chunk over them (output discarded). No key schedule is
 * derived, so no tag is checked (`final` is not called): the AES-CTR and GHASH work is the same, and the
 * floor pays nothing we do not.
 */
async function chunksFromFileFloor(
  encPath: string,
  offsets: readonly number[],
): Promise<{ run: () => Promise<void>; close: () => Promise<void> }> {
  const handle = await open(encPath, 'r');
  // The format's sizes (docs/blob-format.md): a 56-byte header, chunks of 16 KiB sealed with a 16-byte tag.
  const chunk = 16384;
  const sealed = chunk + 16;
  const header = 56;
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const buf = Buffer.alloc((Math.ceil(MiB / chunk) + 1) * sealed);
  return {
    run: async () => {
      for (const offset of offsets) {
        const first = Math.floor(offset / chunk);
        const last = Math.floor((offset + MiB - 1) / chunk);
        const length = (last - first + 1) * sealed;
        const { bytesRead } = await handle.read(buf, 0, length, header + first * sealed);
        for (let at = 0; at + sealed <= bytesRead; at += sealed) {
          createDecipheriv('aes-256-gcm', key, iv).update(buf.subarray(at, at + chunk));
        }
      }
    },
    close: () => handle.close(),
  };
}

/** The figures: ours beside the plain file, and ours and the in-memory reads beside the floors. */
function recordReads(
  rec: SuiteRecorder,
  { reads, size }: { reads: number; size: number },
  times: Record<
    | 'oursMs'
    | 'refMs'
    | 'perChunkMs'
    | 'oneCipherMs'
    | 'inMemoryMs'
    | 'intoMs'
    | 'blockingMs'
    | 'fileFloorMs',
    number[] | undefined
  >,
): void {
  const { oursMs, refMs, perChunkMs, oneCipherMs, inMemoryMs, intoMs, blockingMs, fileFloorMs } = times;
  const bytes = reads * MiB;
  const ours = rec.add({
    id: 'random-access.read',
    suite: 'random-access',
    label: `${reads}× 1 MiB random reads of ${formatBytes(size)} blob`,
    unit: 'MB/s',
    summary: summarize(oursMs!.map((ms) => megabytesPerSecond(bytes, ms))),
  });
  const ref = rec.add({
    id: 'ref.random-access.plain',
    suite: 'random-access',
    label: 'same ranges from the plain file',
    unit: 'MB/s',
    reference: true,
    summary: summarize(refMs!.map((ms) => megabytesPerSecond(bytes, ms))),
  });
  rec.compare(ours, ref);
  const floor = (id: string, label: string, ms: number[] | undefined) =>
    rec.add({
      id,
      suite: 'random-access',
      label,
      unit: 'MB/s',
      reference: true,
      summary: summarize(ms!.map((m) => megabytesPerSecond(bytes, m))),
    });
  const memory = rec.add({
    id: 'random-access.read.in-memory',
    suite: 'random-access',
    label: `${reads}× 1 MiB random reads, ciphertext in memory (bufferRangeSource)`,
    unit: 'MB/s',
    summary: summarize(inMemoryMs!.map((ms) => megabytesPerSecond(bytes, ms))),
  });
  const perChunk = floor(
    'ref.random-access.per-chunk',
    'node:crypto decrypt of 65 chunks per MiB, in memory (the format floor)',
    perChunkMs,
  );
  const intoOne = rec.add({
    id: 'random-access.read-into',
    suite: 'random-access',
    label: `${reads}× 1 MiB random readInto one array of ${formatBytes(size)} blob`,
    unit: 'MB/s',
    summary: summarize(intoMs!.map((ms) => megabytesPerSecond(bytes, ms))),
  });
  const intoBlocking = rec.add({
    id: 'random-access.read-into.blocking',
    suite: 'random-access',
    label: `${reads}× 1 MiB random readInto one array, blockingReads source`,
    unit: 'MB/s',
    summary: summarize(blockingMs!.map((ms) => megabytesPerSecond(bytes, ms))),
  });
  const fromFile = floor(
    'ref.random-access.file-chunks',
    'the covering chunks read from the blob file, one node:crypto decipher per chunk (the format floor from the file)',
    fileFloorMs,
  );
  rec.compare(ours, fromFile);
  rec.compare(intoOne, fromFile);
  rec.compare(intoBlocking, fromFile);
  rec.compare(ours, perChunk);
  rec.compare(intoOne, perChunk);
  rec.compare(intoBlocking, perChunk);
  rec.compare(intoOne, ref);
  rec.compare(memory, perChunk);
  rec.compare(
    ours,
    floor(
      'ref.random-access.one-cipher',
      'node:crypto one decipher per MiB, in memory (AES limit)',
      oneCipherMs,
    ),
  );
}

/** The random-access suite. */
export const randomAccessSuite: Suite = {
  name: 'random-access',
  description: '1 MiB reads at random offsets of a blob file vs the same ranges of the plain file',
  run,
};
