/**
 * The code of one chunk worker thread of the parallel file path ({@link ./parallel-files.ts}). A worker
 * seals or opens a run of consecutive Cobblestone chunks with node:crypto AES-256-GCM, reading its input
 * and writing its output itself with positioned I/O on file descriptors the main thread opened (threads
 * share the process's descriptors), so no chunk bytes ever cross between threads.
 *
 * The worker is started from source text (`eval`), so it runs the same in the built package and under the
 * test runner, which loads TypeScript sources. {@link chunkWorkerMain} therefore uses nothing but its
 * parameters: the key schedule and every nonce stay in the main thread (the shared engine code), and a job
 * carries the nonce of each of its chunks. The worker only calls the AEAD, exactly as `nodeAesGcm` does.
 *
 * @module
 */

/** A run of consecutive chunks for one worker: where to read, where to write, and their nonces. */
export interface ChunkJob {
  /** Job number, echoed in the reply. */
  readonly id: number;
  /** `seal` plaintext chunks or `open` sealed chunks. */
  readonly op: 'seal' | 'open';
  /** The 32-byte AEAD key (derived; the worker wipes its copy after the job). */
  readonly key: Uint8Array;
  /** 12 bytes per chunk: the nonce of each chunk of the run, in order. */
  readonly nonces: Uint8Array;
  /** Number of chunks in the run (the last one may be short: the blob's final chunk). */
  readonly count: number;
  /** Descriptor, offset and length of the input bytes. */
  readonly inFd: number;
  readonly inOffset: number;
  readonly inLength: number;
  /** Descriptor and offset of the output bytes. */
  readonly outFd: number;
  readonly outOffset: number;
}

/** A worker's answer to one {@link ChunkJob}. `auth`: a tag did not verify; `short`: the input ended early. */
export type ChunkJobReply =
  | { readonly id: number; readonly ok: true }
  | {
      readonly id: number;
      readonly ok: false;
      readonly reason: 'auth' | 'short' | 'io';
      readonly code?: string;
    };

/** The modules a chunk worker uses, passed in so its source text is self-contained. */
interface WorkerModules {
  parentPort: {
    on(event: 'message', listener: (job: ChunkJob) => void): void;
    postMessage(reply: ChunkJobReply): void;
  };
  crypto: typeof import('node:crypto');
  fs: typeof import('node:fs');
}

/**
 * The worker's main function. Runs inside the thread; uses nothing but `modules` (see the module comment).
 * Chunk sizes are the format's (16384-byte plaintext chunks, 16-byte tags), repeated here because the
 * function cannot import; `parallel-files.ts` passes them in and checks they match at start.
 */
export function chunkWorkerMain(
  modules: WorkerModules,
  chunkSize: number,
  tagSize: number,
  maxWriteBytes: number,
): void {
  const { parentPort, crypto, fs } = modules;
  const sealedSize = chunkSize + tagSize;
  const options = { authTagLength: tagSize };
  let input = new Uint8Array(0);
  let output = new Uint8Array(0);

  /** Reads exactly `length` bytes at `position`; false when the file ends first. */
  const readFully = (fd: number, length: number, position: number): boolean => {
    let filled = 0;
    while (filled < length) {
      const n = fs.readSync(fd, input, filled, length - filled, position + filled);
      if (n === 0) return false;
      filled += n;
    }
    return true;
  };
  // At most `maxWriteBytes` per call (src/node/fs/write-size.ts: a 4 MiB-aligned write makes the page
  // cache allocate huge folios, which halved decrypt's speed).
  const writeFully = (fd: number, length: number, position: number): void => {
    let written = 0;
    while (written < length) {
      const slice = Math.min(length - written, maxWriteBytes);
      written += fs.writeSync(fd, output, written, slice, position + written);
    }
  };

  parentPort.on('message', (job) => {
    const key = job.key;
    let outLength = 0;
    try {
      if (input.length < job.inLength) input = new Uint8Array(job.inLength);
      if (!readFully(job.inFd, job.inLength, job.inOffset)) {
        parentPort.postMessage({ id: job.id, ok: false, reason: 'short' });
        return;
      }
      outLength = job.op === 'seal' ? job.inLength + job.count * tagSize : job.inLength - job.count * tagSize;
      if (output.length < outLength) output = new Uint8Array(outLength);
      let at = 0;
      for (let i = 0; i < job.count; i++) {
        const nonce = job.nonces.subarray(i * 12, i * 12 + 12);
        if (job.op === 'seal') {
          const plain = input.subarray(i * chunkSize, Math.min((i + 1) * chunkSize, job.inLength));
          const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce, options);
          const body = cipher.update(plain);
          output.set(body, at);
          at += body.length;
          cipher.final(); // GCM: no bytes, but the tag exists only after it
          output.set(cipher.getAuthTag(), at);
          at += tagSize;
        } else {
          const sealed = input.subarray(i * sealedSize, Math.min((i + 1) * sealedSize, job.inLength));
          const bodyLength = sealed.length - tagSize;
          const decipher = crypto.createDecipheriv('aes-256-gcm', key, nonce, options);
          decipher.setAuthTag(sealed.subarray(bodyLength));
          const body = decipher.update(sealed.subarray(0, bodyLength));
          try {
            decipher.final(); // throws when the tag does not verify: nothing of this run is written
          } catch {
            body.fill(0);
            output.fill(0, 0, at);
            parentPort.postMessage({ id: job.id, ok: false, reason: 'auth' });
            return;
          }
          output.set(body, at);
          at += body.length;
        }
      }
      if (at !== outLength) {
        output.fill(0, 0, at);
        parentPort.postMessage({ id: job.id, ok: false, reason: job.op === 'open' ? 'auth' : 'io' });
        return;
      }
      writeFully(job.outFd, outLength, job.outOffset);
      parentPort.postMessage({ id: job.id, ok: true });
    } catch (error) {
      // Only the error's code (EIO, ENOSPC, ...) leaves the thread: never bytes or messages with data.
      const code = (error as { code?: unknown } | null)?.code;
      parentPort.postMessage({
        id: job.id,
        ok: false,
        reason: 'io',
        code: typeof code === 'string' ? code : undefined,
      });
    } finally {
      // The buffers are reused by the next job; the key is not.
      key.fill(0);
    }
  });
}

/** Source text that starts a worker running {@link chunkWorkerMain} (for `new Worker(source, { eval: true })`). */
export function chunkWorkerSource(chunkSize: number, tagSize: number, maxWriteBytes: number): string {
  return `(${chunkWorkerMain.toString()})({ parentPort: require('node:worker_threads').parentPort, crypto: require('node:crypto'), fs: require('node:fs') }, ${chunkSize}, ${tagSize}, ${maxWriteBytes});`;
}
