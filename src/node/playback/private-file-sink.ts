/**
 * The {@link MediaSink} behind `openMedia`: verified plaintext goes to a 0600 `.partial` file (exclusive
 * create) in a private 0700 directory, SHA-256-hashed as it is written; `commit` names the file (MIME type
 * from the message, else sniffed from the whole verified file), fsyncs it (unless not `durable`) and renames it. `abort` removes the
 * partial file, so a failure leaves nothing.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { MediaSink } from '../../core/playback/media-sink.js';
import { AtomicFileWriter } from '../fs/atomic-file.js';
import { detectContainerType } from '../media/mime.js';
import type { ProducedFile } from './media-cache.js';
import { extensionForMimeType, extensionOfName, safeFileStem } from './media-names.js';

/**
 * A sink that writes into `dir` (which must be private: 0700, owned by the user). The file is created at
 * the first write or at commit (an empty file), never before the download starts. `durable: false` skips
 * the fsync before the rename, for files that must not outlive the process anyway (openMedia's temp
 * files; a crash leaves them to the sweep, never to a reader).
 *
 * @throws {DiskError} `ERR_DISK` (from `write`/`commit`) when the file cannot be created, written,
 *   fsynced or renamed.
 * @example
 * ```ts
 * const file = await downloadMedia(message, { source: store, blobKey, sink: privateFileSink(dir) });
 * ```
 */
export function privateFileSink(dir: string, options: { durable?: boolean } = {}): MediaSink<ProducedFile> {
  let writer: Promise<AtomicFileWriter> | undefined;
  const open = () => {
    writer ??= AtomicFileWriter.create(dir, { sync: options.durable ?? true });
    return writer;
  };
  const hash = createHash('sha256');
  return {
    async write(verifiedBytes) {
      const file = await open();
      hash.update(verifiedBytes);
      await file.write(verifiedBytes);
    },
    async commit(info) {
      const file = await open();
      // Every byte is verified by now; the sniffer reads the partial file where it needs to.
      const sniffed = info.mimeType ? undefined : await detectContainerType(file.partialPath);
      const mimeType = info.mimeType ?? sniffed ?? 'application/octet-stream';
      const extension = extensionForMimeType(mimeType) ?? extensionOfName(info.name) ?? '.bin';
      const path = join(dir, `${safeFileStem(info.name)}${extension}`);
      await file.commit(path);
      return { path, extension, size: info.size, mimeType, sha256: hash.digest('hex') };
    },
    async abort() {
      if (writer) await (await writer.catch(() => undefined))?.abort();
    },
  };
}
