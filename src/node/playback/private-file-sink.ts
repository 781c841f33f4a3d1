/**
 * The {@link MediaSink} behind `openMedia`: verified plaintext goes to a 0600 `.partial` file (exclusive
 * create) in a private 0700 directory, SHA-256-hashed as it is written (unless `sha256: false`); `commit`
 * names the file (MIME type from the message, else sniffed from the whole verified file), fsyncs it (unless
 * not `durable`) and renames it. `abort` removes the partial file, so a failure leaves nothing.
 *
 * Writes are batched and written behind ({@link WriteBehind}): `write` copies the verified piece into a
 * batch and returns, so the download engine decrypts the next pieces while the last batch goes to disk.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { mediaFileName } from '../../core/playback/media-names.js';
import { COPIES_WRITES, type MediaSink } from '../../core/playback/media-sink.js';
import { AtomicFileWriter } from '../fs/atomic-file.js';
import { WriteBehind } from '../fs/write-behind.js';
import { detectContainerType } from '../media/mime.js';
import type { ProducedFile } from './media-cache.js';

/** Options of {@link privateFileSink}. */
export interface PrivateFileSinkOptions {
  /**
   * fsync before the rename (default true). `false` for files that must not outlive the process anyway
   * (openMedia's temp files; a crash leaves them to the sweep, never to a reader).
   */
  durable?: boolean;
  /**
   * Hash the plaintext as it is written and return its SHA-256 (default true; the media cache checks
   * entries by it). `false` saves the hashing, about a tenth of the CPU of a download, where nobody
   * needs it (openMedia's temp files).
   */
  sha256?: boolean;
}

/** What a sink with `sha256: false` produces: the file without its hash. */
export type UnhashedFile = Omit<ProducedFile, 'sha256'>;

/**
 * A sink that writes into `dir` (which must be private: 0700, owned by the user; or a promise of it, so
 * that creating the directory overlaps the start of the download). The file is created at the first
 * batch written or at commit (an empty file), never before the download starts.
 *
 * @throws {DiskError} `ERR_DISK` (from `write`/`commit`) when the file cannot be created, written,
 *   fsynced or renamed.
 * @example
 * ```ts
 * const file = await downloadMedia(message, { source: store, blobKey, sink: privateFileSink(dir) });
 * ```
 */
export function privateFileSink(
  dir: string | Promise<string>,
  options?: PrivateFileSinkOptions & { sha256?: true },
): MediaSink<ProducedFile>;
export function privateFileSink(
  dir: string | Promise<string>,
  options: PrivateFileSinkOptions & { sha256: false },
): MediaSink<UnhashedFile>;
export function privateFileSink(
  dir: string | Promise<string>,
  options: PrivateFileSinkOptions = {},
): MediaSink<ProducedFile | UnhashedFile> {
  let writer: Promise<AtomicFileWriter> | undefined;
  const open = () => {
    writer ??= Promise.resolve(dir).then((path) =>
      AtomicFileWriter.create(path, { sync: options.durable ?? true }),
    );
    return writer;
  };
  const batches = new WriteBehind(async (parts) => (await open()).writeParts(parts));
  const hash = options.sha256 === false ? undefined : createHash('sha256');
  const sink: MediaSink<ProducedFile | UnhashedFile> & { readonly [COPIES_WRITES]: true } = {
    // `write` copies the bytes into the write-behind before it resolves: the download may reuse the array.
    [COPIES_WRITES]: true,
    async write(verifiedBytes) {
      hash?.update(verifiedBytes);
      await batches.add(verifiedBytes);
    },
    async commit(info) {
      const file = await open();
      await batches.flush();
      // Every byte is verified by now; the sniffer reads the partial file where it needs to.
      const sniffed = info.mimeType ? undefined : await detectContainerType(file.partialPath);
      const mimeType = info.mimeType ?? sniffed ?? 'application/octet-stream';
      const { name, extension } = mediaFileName(info.name, mimeType);
      const path = join(await dir, name);
      await file.commit(path);
      const produced = { path, extension, size: info.size, mimeType };
      return hash === undefined ? produced : { ...produced, sha256: hash.digest('hex') };
    },
    async abort() {
      // The batch in flight finishes before the file is removed, so no write lands after the unlink.
      await batches.settle();
      if (writer) await (await writer.catch(() => undefined))?.abort();
    },
  };
  return sink;
}
