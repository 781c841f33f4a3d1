/**
 * Where {@link downloadMedia} puts verified plaintext: a small interface an app implements over its own
 * storage (expo-file-system, OPFS, IndexedDB, a file in Node), plus the in-memory sink.
 *
 * The contract is what keeps unverified bytes out: `write` receives only bytes whose AES-GCM tag (v2) or
 * whole-blob secretbox tag (v1) verified, in order; `commit` is called once, after the last chunk verified
 * and the size matched; `abort` is called once on any failure (download, decryption, the sink's own
 * error, cancellation, a `commit` that throws) and must discard what was written.
 *
 * @module
 */
import { joinBytes } from '../bytes.js';
import { LimitError } from '../errors.js';

/** What a sink learns at {@link MediaSink.commit}. */
export interface MediaSinkCommitInfo {
  /** Plaintext bytes written (authenticated). */
  size: number;
  /** The message's MIME type, when it names one (photo messages do not). */
  mimeType?: string;
  /** The message's display name (file messages), untrusted text: sanitise before using it as a path. */
  name?: string;
}

/**
 * A destination for verified plaintext.
 *
 * @typeParam T - what `commit` returns (the bytes, a file URI, a handle), and so what `downloadMedia`
 *   resolves to.
 * @example
 * ```ts
 * // OPFS in a browser (sketch): write to a temp file, move it into place on commit, delete on abort.
 * const sink: MediaSink<File> = {
 *   write: (bytes) => writable.write(bytes),
 *   commit: async () => { await writable.close(); return tempHandle.getFile(); },
 *   abort: async () => { await writable.abort(); await dir.removeEntry(tempName); },
 * };
 * ```
 */
export interface MediaSink<T> {
  /** Appends verified plaintext. The array is the sink's to keep (the engine never reuses it). */
  write(verifiedBytes: Uint8Array): void | Promise<void>;
  /** Called once after the last byte verified; what it returns is what `downloadMedia` resolves to. */
  commit(info: MediaSinkCommitInfo): T | Promise<T>;
  /** Called once on any failure; discard everything written. Errors it throws are ignored. */
  abort(reason: unknown): void | Promise<void>;
}

/** Options of {@link memorySink}. */
export interface MemorySinkOptions {
  /** Refuse more than this many bytes (`ERR_LIMIT_EXCEEDED`); default unlimited. */
  maxBytes?: number;
}

/**
 * A sink that collects the plaintext in memory and returns it as one array on commit. Fine for photos
 * and short clips; for long videos write to storage instead (or stream with `happy-media/web`).
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` (from `write`) past `options.maxBytes`.
 * @example
 * ```ts
 * const bytes = await downloadMedia(photoMessage, { source: url, blobKey, sink: memorySink() });
 * ```
 */
export function memorySink(options: MemorySinkOptions = {}): MediaSink<Uint8Array> {
  let parts: Uint8Array[] = [];
  let size = 0;
  return {
    write(verifiedBytes) {
      if (options.maxBytes !== undefined && size + verifiedBytes.length > options.maxBytes) {
        throw new LimitError(`the media is larger than the memory sink's limit of ${options.maxBytes} bytes`);
      }
      parts.push(verifiedBytes);
      size += verifiedBytes.length;
    },
    commit() {
      const whole = joinBytes(parts);
      parts = [];
      return whole;
    },
    abort() {
      for (const part of parts) part.fill(0);
      parts = [];
      size = 0;
    },
  };
}
