/**
 * A file as a byte stream for sending, over expo-file-system's `FileHandle.readBytes`: 256 KiB per native
 * call by default (never below 64 KiB), where `File.readableStream()` pulls 1 KiB per read.
 *
 * @module
 */
import type { RangeSource } from '../core/blob/random-access.js';
import { assertNonNegativeInteger, joinBytes } from '../core/bytes.js';
import { DiskError, InvalidArgumentError } from '../core/errors.js';
import { unreadableInput } from '../core/unreadable-input.js';
import { expoDiskError } from './file-sink.js';
import type { ExpoFile, ExpoFileHandle } from './file-system.js';

/** Smallest read per native call {@link expoFileSource} accepts. */
export const EXPO_MIN_READ_BYTES = 64 * 1024;
/** Default read per native call. */
export const EXPO_READ_BYTES = 256 * 1024;

/** Options of {@link expoFileSource}. */
export interface ExpoFileSourceOptions {
  /** Bytes per `readBytes` call, at least 64 KiB (default 256 KiB). */
  readBytes?: number;
  /** Cancels the reading: the stream errors with the signal's reason and the handle is closed. */
  signal?: AbortSignal;
}

/** A file to send: its bytes as a stream and its exact size. */
export interface ExpoFileStream {
  /** The file's bytes, read as they are pulled; the handle is closed at the end, on error and on cancel. */
  stream: ReadableStream<Uint8Array>;
  /** The size when the file was opened; a file that changes size while read fails the stream. */
  size: number;
  /**
   * Random access to the same file (a second handle, opened at the first read and closed with the
   * stream): what lets `sendPickedMedia` find a video's metadata wherever its index sits.
   */
  ranges: RangeSource;
}

/**
 * The handles reading one file: the stream's, opened at once, and the random reads' own, opened at their
 * first read; closed together, once (at the stream's end, on error, on cancel).
 */
class FileHandles {
  readonly stream: ExpoFileHandle;
  readonly #file: ExpoFile;
  #ranges: ExpoFileHandle | undefined;
  #closed = false;

  constructor(file: ExpoFile, stream: ExpoFileHandle) {
    this.#file = file;
    this.stream = stream;
  }

  /** True once {@link close} ran. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The handle of the random reads, opened at the first. */
  ranges(): ExpoFileHandle {
    this.#ranges ??= this.#file.open();
    return this.#ranges;
  }

  /** Closes both handles, once; a handle that fails to close held nothing. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const open of [this.stream, this.#ranges]) {
      try {
        open?.close();
      } catch {
        // Already failed or closed: nothing was held.
      }
    }
  }
}

/** Random access to `file` over its second handle, `chunk` bytes per native call. */
function fileRanges(file: ExpoFile, handles: FileHandles, size: number, chunk: number): RangeSource {
  return {
    size: async () => size,
    async read(offset, length) {
      assertNonNegativeInteger(offset, 'offset');
      assertNonNegativeInteger(length, 'length');
      if (handles.closed) throw new DiskError(`reading ${file.uri} failed: the source was closed`);
      const parts: Uint8Array[] = [];
      let got = 0;
      try {
        const handle = handles.ranges();
        handle.offset = offset;
        while (got < length) {
          const bytes = handle.readBytes(Math.min(chunk, length - got));
          if (bytes.length === 0) break;
          parts.push(bytes);
          got += bytes.length;
        }
      } catch (cause) {
        throw expoDiskError(`reading ${file.uri}`, cause);
      }
      return parts.length === 1 ? parts[0]! : joinBytes(parts);
    },
  };
}

/**
 * The bytes of `file` from its stream handle, `chunk` bytes per pull, exactly `size` of them: a file
 * that changes size while it is read fails the stream.
 */
function fileStream(
  file: ExpoFile,
  handles: FileHandles,
  size: number,
  chunk: number,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  const handle = handles.stream;
  const close = () => handles.close();
  let read = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (signal?.aborted) {
          close();
          controller.error(signal.reason);
          return;
        }
        let bytes: Uint8Array;
        try {
          bytes = handle.readBytes(Math.min(chunk, Math.max(1, size - read)));
        } catch (cause) {
          close();
          throw expoDiskError(`reading ${file.uri}`, cause);
        }
        read += bytes.length;
        if (bytes.length === 0 || read > size) {
          close();
          if (read !== size) {
            throw new DiskError(
              `reading ${file.uri} failed: the file changed size while it was read (${size} → ${read}+ bytes)`,
            );
          }
          controller.close();
          return;
        }
        controller.enqueue(bytes);
        if (read === size) {
          // One more read proves the end (a file that grew is not the file that was measured).
          let extra: Uint8Array;
          try {
            extra = handle.readBytes(1);
          } catch (cause) {
            close();
            throw expoDiskError(`reading ${file.uri}`, cause);
          }
          close();
          if (extra.length > 0) {
            throw new DiskError(
              `reading ${file.uri} failed: the file grew while it was read (past ${size} bytes)`,
            );
          }
          controller.close();
        }
      },
      cancel() {
        close();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Opens `file` (an expo-file-system `File`, e.g. `new File(asset.uri)` from the image picker) for
 * sending: its size now, and a stream of its bytes read 256 KiB at a time.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for something that is not a `File` or a read
 *   size below 64 KiB.
 * @throws {ProbeError} `ERR_UNREADABLE_INPUT` when the file does not exist or cannot be opened.
 * @throws (through the stream) {DiskError} `ERR_DISK` when a read fails or the file changes size.
 * @example
 * ```ts
 * import { File } from 'expo-file-system';
 * const source = expoFileSource(new File(asset.uri)); // { stream, size, ranges }
 * await sendPickedMedia({ source, name: 'report.pdf', mimeType: 'application/pdf' }, { store, blobKey });
 * ```
 */
export function expoFileSource(file: ExpoFile, options: ExpoFileSourceOptions = {}): ExpoFileStream {
  if (typeof file !== 'object' || file === null || typeof file.open !== 'function') {
    throw new InvalidArgumentError('expected an expo-file-system File for `file`');
  }
  const chunk = assertNonNegativeInteger(options.readBytes ?? EXPO_READ_BYTES, 'readBytes');
  if (chunk < EXPO_MIN_READ_BYTES) {
    throw new InvalidArgumentError(
      `expected at least ${EXPO_MIN_READ_BYTES} bytes per read for \`readBytes\` but received ${chunk}: small reads cost a native call each`,
    );
  }
  let handle: ExpoFileHandle;
  let size: number;
  try {
    handle = file.open();
  } catch (cause) {
    throw unreadableInput(file.uri, cause instanceof Error ? cause.message : String(cause), cause);
  }
  try {
    size = handle.size ?? file.size;
  } catch (cause) {
    handle.close();
    throw unreadableInput(file.uri, 'its size is unknown', cause);
  }
  const handles = new FileHandles(file, handle);
  return {
    stream: fileStream(file, handles, size, chunk, options.signal),
    size,
    ranges: fileRanges(file, handles, size, chunk),
  };
}
