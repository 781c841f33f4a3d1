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
  /**
   * Optional: called once before the first write with the plaintext size the download delivers (checked
   * at the end: a download that delivers another size fails and the sink is aborted), so a sink can make
   * room for it at once. Errors it throws abort the download.
   */
  begin?(info: { size: number }): void | Promise<void>;
  /** Appends verified plaintext. The array is the sink's to keep (the engine never reuses it). */
  write(verifiedBytes: Uint8Array): void | Promise<void>;
  /** Called once after the last byte verified; what it returns is what `downloadMedia` resolves to. */
  commit(info: MediaSinkCommitInfo): T | Promise<T>;
  /** Called once on any failure; discard everything written. Errors it throws are ignored. */
  abort(reason: unknown): void | Promise<void>;
}

/**
 * Marks a sink whose `write` is done with the array it was given once the call settled (it copies what
 * it keeps, as Node's file sinks do into their write-behind): {@link sinkCopiesWrites}. Not part of the
 * public API: an app's sink keeps its arrays, as {@link MediaSink.write} promises.
 *
 * @internal
 */
export const COPIES_WRITES: unique symbol = Symbol('happy-media.sinkCopiesWrites');

/**
 * Whether `sink` lets the download hand it the same arrays again once each `write` settled (see
 * {@link COPIES_WRITES}): then the plaintext of a download goes through a few arrays reused in turn
 * instead of a fresh one per network piece.
 *
 * @internal
 */
export function sinkCopiesWrites(sink: object): boolean {
  return (sink as { [COPIES_WRITES]?: unknown })[COPIES_WRITES] === true;
}

/** Options of {@link memorySink}. */
export interface MemorySinkOptions {
  /** Refuse more than this many bytes (`ERR_LIMIT_EXCEEDED`); default unlimited. */
  maxBytes?: number;
}

/**
 * The largest plaintext {@link memorySink} makes room for when the download begins. A store that is not
 * trusted could announce any size before a byte of it verified; above this, the sink keeps the pieces
 * as they come and joins them at the end instead, so memory follows what arrived.
 */
const MEMORY_SINK_ROOM_BYTES = 256 * 1024 * 1024;

/**
 * A sink that collects the plaintext in memory and returns it as one array on commit. Fine for photos
 * and short clips; for long videos write to storage instead (or stream with `happy-media/web`). With the
 * size known when the download begins (up to 256 MiB), each piece is copied into place as it comes, so
 * nothing is joined at the end.
 *
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` (from `begin` or `write`) past `options.maxBytes`.
 * @example
 * ```ts
 * const bytes = await downloadMedia(photoMessage, { source: url, blobKey, sink: memorySink() });
 * ```
 */
export function memorySink(options: MemorySinkOptions = {}): MediaSink<Uint8Array> {
  let parts: Uint8Array[] = [];
  let room: Uint8Array | undefined;
  let size = 0;
  const refuseOver = (bytes: number) => {
    if (options.maxBytes !== undefined && bytes > options.maxBytes) {
      throw new LimitError(`the media is larger than the memory sink's limit of ${options.maxBytes} bytes`);
    }
  };
  return {
    begin(info) {
      refuseOver(info.size);
      if (info.size <= MEMORY_SINK_ROOM_BYTES) room = new Uint8Array(info.size);
    },
    write(verifiedBytes) {
      refuseOver(size + verifiedBytes.length);
      if (room !== undefined && size + verifiedBytes.length > room.length) {
        // More than announced (a driver other than downloadMedia, which refuses that): pieces from here.
        parts.push(room.subarray(0, size));
        room = undefined;
      }
      if (room === undefined) parts.push(verifiedBytes);
      else room.set(verifiedBytes, size);
      size += verifiedBytes.length;
    },
    commit() {
      const whole = room === undefined ? joinBytes(parts) : size === room.length ? room : room.slice(0, size);
      parts = [];
      room = undefined;
      return whole;
    },
    abort() {
      for (const part of parts) part.fill(0);
      room?.fill(0);
      parts = [];
      room = undefined;
      size = 0;
    },
  };
}
