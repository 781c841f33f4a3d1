/**
 * File → file encryption and decryption on several cores. Cobblestone chunks are independent given their
 * index, so runs of chunks go to worker threads ({@link ./parallel-worker.ts}) that read their input and
 * write their output at positions known in advance: no chunk bytes cross threads, and memory is one run
 * (4 MiB) in and out per worker, whatever the file size.
 *
 * Everything else is the shared engine's: the key schedule, the commitment, every nonce (derived here, in
 * the main thread, and handed to the workers), the final-chunk rule and the size checks, so the output is
 * byte-identical to {@link encryptFile} / {@link decryptFile} (the tests compare them with a fixed salt and
 * run the frozen vectors through both). Output goes through the same all-or-nothing private temp file: a
 * failed decryption leaves no file behind, and no unverified chunk is ever written (each worker writes a
 * run only after all its tags verified).
 *
 * @module
 */

import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  BLOB_CHUNK_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_KEY_SIZE,
  BLOB_NONCE_SIZE,
  BLOB_SALT_SIZE,
  BLOB_SEALED_CHUNK_SIZE,
  BLOB_TAG_SIZE,
  type BlobOptions,
  blobHeader,
  checkPlaintextLimit,
  chunkNonceInto,
  deriveBlobKeys,
  openBlobHeader,
  resolveBlobOptions,
} from '../../core/blob/format.js';
import { blobLayout, chunkCount, chunkOffset } from '../../core/blob/sizes.js';
import { assertBytes, randomBytes } from '../../core/bytes.js';
import { DecryptionError, DiskError, InvalidArgumentError } from '../../core/errors.js';
import type { AtomicFileWriter } from '../fs/atomic-file.js';
import { diskError } from '../fs/disk-error.js';
import { writeFileAllOrNothing } from '../fs/output-file.js';
import { MAX_WRITE_CALL_BYTES } from '../fs/write-size.js';
import { type ChunkJob, type ChunkJobReply, chunkWorkerSource } from './parallel-worker.js';

/** Chunks per job: 256 chunks = 4 MiB of plaintext, enough to make a round trip to a worker negligible. */
const JOB_CHUNKS = 256;

/** Jobs each worker may have queued, so it never waits for the main thread between two runs. */
const JOBS_PER_WORKER = 2;

/**
 * From this size on (64 MiB), {@link encryptFileParallel} and {@link decryptFileParallel} repay their
 * workers: starting them costs tens of milliseconds, and below this size `encryptFile`/`decryptFile` (one
 * thread) are as fast. The CLI's `encrypt`/`decrypt` choose by it.
 */
export const PARALLEL_FILE_THRESHOLD = 64 * 1024 * 1024;

/** Options of {@link encryptFileParallel} / {@link decryptFileParallel}. */
export interface ParallelFileOptions extends Omit<BlobOptions, 'aesGcm'> {
  /** Worker threads (default: the number of CPUs, at most 8). */
  threads?: number;
}

/** Test-only inputs, deliberately not part of {@link ParallelFileOptions}. */
export interface ParallelFileInternals {
  /** 24-byte salt instead of a random one (frozen vectors; a repeated salt repeats nonces). */
  salt?: Uint8Array;
}

/** The plan of a whole file: one {@link ChunkJob} per run of up to {@link JOB_CHUNKS} chunks. */
interface JobPlan {
  readonly op: 'seal' | 'open';
  readonly chunks: number;
  /** Input offset and length of the run of chunks `[first, first + count)`. */
  readonly input: (first: number, count: number) => { offset: number; length: number };
  /** Output offset of chunk `first`. */
  readonly outputOffset: (first: number) => number;
}

function resolveThreads(threads: number | undefined): number {
  if (threads === undefined) return Math.max(1, Math.min(8, availableParallelism()));
  if (!Number.isInteger(threads) || threads < 1 || threads > 64) {
    throw new InvalidArgumentError(
      `expected an integer from 1 to 64 for \`threads\` but received ${threads}`,
    );
  }
  return threads;
}

/** Starts `count` chunk workers; resolves once each is running. */
function startWorkers(count: number): Worker[] {
  const source = chunkWorkerSource(BLOB_CHUNK_SIZE, BLOB_TAG_SIZE, MAX_WRITE_CALL_BYTES);
  return Array.from({ length: count }, () => new Worker(source, { eval: true }));
}

/**
 * Runs every job of `plan` on `workers`, at most {@link JOBS_PER_WORKER} queued per worker, and resolves
 * when all succeeded. On the first failure it stops handing out jobs and rejects once the workers in
 * flight answered: the caller then terminates them before closing the descriptors they write to.
 */
function runJobs(
  workers: readonly Worker[],
  plan: JobPlan,
  aeadKey: Uint8Array,
  baseNonce: Uint8Array,
  inFd: number,
  outFd: number,
): Promise<void> {
  const jobCount = Math.ceil(plan.chunks / JOB_CHUNKS);
  return new Promise<void>((resolve, reject) => {
    let next = 0;
    let done = 0;
    let inFlight = 0;
    let failure: Error | undefined;
    const nonce = new Uint8Array(BLOB_NONCE_SIZE);

    const jobAt = (index: number): ChunkJob => {
      const first = index * JOB_CHUNKS;
      const count = Math.min(JOB_CHUNKS, plan.chunks - first);
      const nonces = new Uint8Array(count * BLOB_NONCE_SIZE);
      for (let i = 0; i < count; i++) {
        nonces.set(chunkNonceInto(baseNonce, first + i, nonce), i * BLOB_NONCE_SIZE);
      }
      const { offset, length } = plan.input(first, count);
      return {
        id: index,
        op: plan.op,
        key: aeadKey.slice(),
        nonces,
        count,
        inFd,
        inOffset: offset,
        inLength: length,
        outFd,
        outOffset: plan.outputOffset(first),
      };
    };
    const settle = () => {
      if (inFlight > 0) return;
      if (failure) reject(failure);
      else if (done === jobCount) resolve();
    };
    const feed = (worker: Worker) => {
      if (failure || next >= jobCount) return;
      const job = jobAt(next++);
      inFlight++;
      // The key travels in the message (a structured clone); the worker wipes its copy after the job.
      worker.postMessage(job);
      job.key.fill(0);
    };
    for (const worker of workers) {
      worker.on('message', (reply: ChunkJobReply) => {
        inFlight--;
        if (reply.ok) {
          done++;
          feed(worker);
        } else {
          failure ??=
            reply.reason === 'auth' || (reply.reason === 'short' && plan.op === 'open')
              ? new DecryptionError()
              : new DiskError(
                  reply.reason === 'short'
                    ? 'the input file became shorter while it was being encrypted; encrypt it again'
                    : `could not read or write a chunk run${reply.code ? ` (${reply.code})` : ''}`,
                );
        }
        settle();
      });
      worker.on('error', (cause) => {
        failure ??= new DiskError('a chunk worker thread failed', { cause });
        inFlight = 0;
        settle();
      });
      for (let k = 0; k < JOBS_PER_WORKER; k++) feed(worker);
    }
    settle();
  });
}

/** Runs `plan` on fresh workers and always terminates them (before the caller closes any descriptor). */
async function runOnWorkers(
  threads: number,
  plan: JobPlan,
  aeadKey: Uint8Array,
  baseNonce: Uint8Array,
  inFd: number,
  outFd: number,
): Promise<void> {
  const workers = startWorkers(Math.min(threads, Math.max(1, Math.ceil(plan.chunks / JOB_CHUNKS))));
  try {
    await runJobs(workers, plan, aeadKey, baseNonce, inFd, outFd);
  } finally {
    // terminate() resolves when the thread has stopped: no write can reach a descriptor after this.
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

async function openInput(path: string): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (cause) {
    throw diskError('open', cause, path);
  }
  try {
    return { handle, size: (await handle.stat()).size };
  } catch (cause) {
    await handle.close();
    throw diskError('stat', cause, path);
  }
}

/**
 * Runs `work` with a second descriptor on the writer's temp file, for the workers' positioned writes (the
 * writer only appends). It is closed before the writer commits (fsync is per file, so the commit's fsync
 * covers what the workers wrote) or aborts.
 */
async function withPositionedOutput(
  writer: AtomicFileWriter,
  work: (output: FileHandle) => Promise<void>,
): Promise<void> {
  let output: FileHandle;
  try {
    output = await open(writer.partialPath, constants.O_WRONLY | constants.O_NOFOLLOW);
  } catch (cause) {
    throw diskError('open the temp file', cause, writer.partialPath);
  }
  try {
    await work(output);
  } finally {
    await output.close();
  }
}

/**
 * Encrypts the file `inPath` into a v2 media blob at `outPath` on worker threads: the same bytes as
 * {@link encryptFile} would write (for the same salt), faster on a multi-core machine for large files.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a key that is not 32 bytes or bad options.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the file is longer than `maxPlaintextBytes`.
 * @throws {DiskError} `ERR_DISK` when a file cannot be read or written, or the input changed size meanwhile.
 * @example
 * ```ts
 * await encryptFileParallel('movie.mp4', 'movie.blob', blobKey, { context: mediaBlobContext(ref) }); // both cores, memory ~8 MiB per thread
 * ```
 */
export async function encryptFileParallel(
  inPath: string,
  outPath: string,
  key: Uint8Array,
  options: ParallelFileOptions,
  internals?: ParallelFileInternals,
): Promise<void> {
  assertBytes(key, 'key', BLOB_KEY_SIZE);
  const resolved = resolveBlobOptions({ ...options, aesGcm: undefined });
  const threads = resolveThreads(options?.threads);
  const salt =
    internals?.salt === undefined
      ? randomBytes(BLOB_SALT_SIZE)
      : assertBytes(internals.salt, 'salt', BLOB_SALT_SIZE);
  const { handle: input, size } = await openInput(inPath);
  const keys = deriveBlobKeys(key, salt, resolved.context);
  try {
    checkPlaintextLimit(size, resolved);
    const chunks = chunkCount(size);
    await writeFileAllOrNothing(outPath, async (writer) => {
      await writer.write(blobHeader(salt, keys));
      const plan: JobPlan = {
        op: 'seal',
        chunks,
        // Every chunk but the final one is full, so a run's plaintext is contiguous and its length known.
        input: (first, count) => {
          const offset = first * BLOB_CHUNK_SIZE;
          return { offset, length: Math.min(size, (first + count) * BLOB_CHUNK_SIZE) - offset };
        },
        outputOffset: chunkOffset,
      };
      await withPositionedOutput(writer, (output) =>
        runOnWorkers(threads, plan, keys.aeadKey, keys.baseNonce, input.fd, output.fd),
      );
      // A file that grew meanwhile would be encrypted only in part: refuse rather than cut it silently.
      if ((await input.stat()).size !== size) {
        throw new DiskError(
          `${JSON.stringify(inPath)} changed size while it was being encrypted; encrypt it again`,
        );
      }
    });
  } finally {
    keys.aeadKey.fill(0);
    await input.close();
  }
}

/**
 * Decrypts the blob file `inPath` to `outPath` on worker threads, all or nothing: the header and its
 * commitment are checked first, then every chunk is verified before it is written to a private temp
 * file, which becomes `outPath` only when all of them verified. Same result as {@link decryptFile}.
 *
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` for a wrong key or context, any modification, a
 * truncated or extended blob; `outPath` is not created.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the plaintext is longer than `maxPlaintextBytes`.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a key that is not 32 bytes or bad options.
 * @throws {DiskError} `ERR_DISK` when a file cannot be read or written.
 * @example
 * ```ts
 * await decryptFileParallel('movie.blob', 'movie.mp4', blobKey, { context: mediaBlobContext(ref) });
 * ```
 */
export async function decryptFileParallel(
  inPath: string,
  outPath: string,
  key: Uint8Array,
  options: ParallelFileOptions,
): Promise<void> {
  assertBytes(key, 'key', BLOB_KEY_SIZE);
  const resolved = resolveBlobOptions({ ...options, aesGcm: undefined });
  const threads = resolveThreads(options?.threads);
  const { handle: input, size } = await openInput(inPath);
  try {
    const layout = blobLayout(size);
    if (layout === undefined) throw new DecryptionError();
    checkPlaintextLimit(layout.plaintextSize, resolved);
    const header = new Uint8Array(BLOB_HEADER_SIZE);
    const { bytesRead } = await input.read(header, 0, BLOB_HEADER_SIZE, 0);
    if (bytesRead !== BLOB_HEADER_SIZE) throw new DecryptionError();
    const keys = openBlobHeader(key, header, resolved.context);
    try {
      const { finalIndex, finalSealedSize } = layout;
      const plan: JobPlan = {
        op: 'open',
        chunks: finalIndex + 1,
        input: (first, count) => {
          const last = first + count - 1;
          const length =
            last === finalIndex
              ? (count - 1) * BLOB_SEALED_CHUNK_SIZE + finalSealedSize
              : count * BLOB_SEALED_CHUNK_SIZE;
          return { offset: chunkOffset(first), length };
        },
        outputOffset: (first) => first * BLOB_CHUNK_SIZE,
      };
      await writeFileAllOrNothing(outPath, (writer) =>
        withPositionedOutput(writer, async (output) => {
          await runOnWorkers(threads, plan, keys.aeadKey, keys.baseNonce, input.fd, output.fd);
          // Positioned writes: make the length exact even when the last run wrote nothing (empty plaintext).
          await output.truncate(layout.plaintextSize);
        }),
      );
    } finally {
      keys.aeadKey.fill(0);
    }
  } finally {
    await input.close();
  }
}
