/**
 * A file as the plaintext of a send: any span, read again whenever asked (a part of media in parts is
 * made again from the file after an interrupted send). Each span opens the file anew and checks that it
 * still has the size the send announced, so a file that changed size meanwhile fails the send instead of
 * sending a blob of another length.
 *
 * @module
 */
import { open } from 'node:fs/promises';
import { assertNonNegativeInteger } from '../../core/bytes.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { applyMetadataPlan, planMetadataStrip } from '../../core/media/strip/strip-metadata.js';
import type { PlaintextSource } from '../../core/send/plaintext-source.js';
import { fileRangeSource } from '../blob/file-range-source.js';
import { statInputFile } from '../fs/unreadable-input.js';
import { fileHandleStream } from '../storage/file-stream.js';

/** Bytes read per pull: 1 MiB, the piece the encryptor works on best. */
const READ_BYTES = 1024 * 1024;

/**
 * The file at `path`, of `size` bytes (what probing found), as a re-readable {@link PlaintextSource}.
 *
 * @throws (from `read`) {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when the file has another size now;
 *   `ERR_DISK` when it cannot be read.
 */
export function filePlaintextSource(path: string, size: number): PlaintextSource {
  assertNonNegativeInteger(size, 'size');
  return {
    size,
    rereadable: true,
    async read(offset, length, signal) {
      const handle = await open(path, 'r');
      try {
        const now = (await handle.stat()).size;
        if (now !== size) {
          throw new InvalidArgumentError(
            `the file changed size after probing (${size} → ${now} bytes); send it again`,
          );
        }
      } catch (error) {
        await handle.close();
        throw error;
      }
      return fileHandleStream(handle, {
        start: offset,
        end: offset + length,
        chunkBytes: READ_BYTES,
        ...(signal ? { signal } : {}),
      });
    },
  };
}

/**
 * What a send reads from the file at `path` of `size` bytes: its bytes as they are with `keepMetadata`,
 * else with their location and identifying metadata neutralised (planned once from the file's
 * structure, applied to every span read, parts included; the same size, so spans keep their offsets).
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a video index or HEIF `meta` box over 64 MiB.
 * @throws (from `read`) what {@link filePlaintextSource} throws.
 * @example
 * ```ts
 * const source = await sentFilePlaintext('IMG_0001.JPG', size); // what the blob will decrypt to
 * ```
 */
export async function sentFilePlaintext(
  path: string,
  size: number,
  options: { keepMetadata?: boolean } = {},
): Promise<PlaintextSource> {
  const file = filePlaintextSource(path, size);
  if (options.keepMetadata === true) return file;
  const ranges = fileRangeSource(path);
  let plan: Awaited<ReturnType<typeof planMetadataStrip>>;
  try {
    plan = await planMetadataStrip(ranges);
  } finally {
    await ranges.close();
  }
  return {
    ...file,
    async read(offset, length, signal) {
      return (await file.read(offset, length, signal)).pipeThrough(applyMetadataPlan(plan, offset));
    },
  };
}

/** Options of {@link readSentFile}. */
export interface ReadSentFileOptions {
  /** Read the file as it is, as `sendMedia` with `keepMetadata` sends it. Default `false`. */
  keepMetadata?: boolean;
  /** Stops the read. */
  signal?: AbortSignal;
}

/**
 * The bytes `sendMedia` sends for the file at `path`, as a stream: by default with its location and
 * identifying metadata neutralised in place as `sendMedia` does it (the same size; see its `keepMetadata`
 * option), or as they are with `keepMetadata`. They are what the sent blob decrypts to and
 * what playback gives back: hash them to check a round trip, or save them to keep a copy of exactly what
 * was sent.
 *
 * @throws {ProbeError} `ERR_UNREADABLE_INPUT` when `path` is missing, unreadable or not a regular file.
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` for a video index or HEIF `meta` box over 64 MiB (a refusal of
 *   the strip: `isMetadataStripRefusal` tells it; `keepMetadata` avoids it).
 * @throws (from the stream) {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when the file changes size while
 *   it is read; `ERR_DISK` when it cannot be read.
 * @example
 * ```ts
 * const sent = await readSentFile('IMG_0001.JPG');
 * const bytes = new Uint8Array(await new Response(sent).arrayBuffer()); // what playback gives back
 * ```
 */
export async function readSentFile(
  path: string,
  options: ReadSentFileOptions = {},
): Promise<ReadableStream<Uint8Array>> {
  const info = await statInputFile(path);
  const size = info.size;
  const source = await sentFilePlaintext(path, size, { keepMetadata: options.keepMetadata === true });
  return source.read(0, size, options.signal);
}
