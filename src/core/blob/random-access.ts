/**
 * Random access: decrypt any plaintext range of a blob by reading only the chunks it covers, from any
 * {@link RangeSource} (a buffer, a file, a store, a URL).
 *
 * Opening a reader reads the header (and checks the commitment), then reads and authenticates the final
 * chunk, so `plaintextSize` is trustworthy before anything else is read: a truncated or extended blob is
 * rejected here, not at the end of playback. Chunks in between are verified as they are read.
 *
 * A range is read whole (`read`) or streamed (`stream`): the covering chunks arrive as one stream from the
 * source, and every chunk is opened as soon as its last byte arrived, so a player's response starts after
 * the first verified chunk instead of after the whole range (a seek's first frame). No byte of a chunk
 * leaves before its tag verified (the cipher returns nothing of a batch that fails); a source that ends
 * early or sends more than asked for is a `DecryptionError`.
 *
 * @module
 */
import { assertBytes, assertNonNegativeInteger } from '../bytes.js';
import { AbortedError, DecryptionError, InvalidArgumentError } from '../errors.js';
import { getRuntime } from '../runtime/runtime.js';
import { settleAllThenThrow } from '../settle-all.js';
import { type ChunkCipher, createChunkCipher } from './chunk-cipher.js';
import { copyClipped, openClipped } from './clipped-open.js';
import {
  BLOB_BATCH_CHUNKS,
  BLOB_CHUNK_SIZE,
  BLOB_HEADER_SIZE,
  BLOB_KEY_SIZE,
  BLOB_SEALED_CHUNK_SIZE,
  type BlobOptions,
  checkPlaintextLimit,
  openBlobHeader,
  resolveBlobOptions,
} from './format.js';
import { blobLayout, chunkOffset } from './sizes.js';
import { ChunkSplitter } from './stream.js';

/**
 * Chunks per source read of {@link BlobReader.read} from a source that can only `read`: 1024 (16 MiB of
 * ciphertext). A 1 MiB read is one source read; a long one is read in spans, the next read overlapping
 * the current span's decryption.
 */
const READ_SPAN_CHUNKS = 1024;

/**
 * Chunks of the first window of a read from a source that reads into an array (a file): 16 (256 KiB),
 * decrypted while the next window is read, so a read waits for a quarter of a megabyte before its
 * decryption starts instead of for the whole range.
 */
const FIRST_WINDOW_CHUNKS = 16;

/**
 * Chunks of every later window: 64 (1 MiB), the size of the reader's read arrays. Each read of a file
 * costs the main thread a hand-over to the thread pool and back (tens of microseconds on a VM, as much as
 * decrypting a few chunks), so after the first window the reads are as large as the batches.
 */
const LATER_WINDOW_CHUNKS = BLOB_BATCH_CHUNKS;

/**
 * Read arrays a reader keeps for its next reads once they are free: two windows of one read (one being
 * decrypted, the next being read) and one read ahead.
 */
const KEPT_READ_ARRAYS = 3;

/** Reads byte ranges of a ciphertext: a buffer, a file handle, an HTTP Range reader, a storage ref. */
export interface RangeSource {
  /** Total ciphertext length in bytes. */
  size(): Promise<number>;
  /** Reads exactly `length` bytes at `offset` (fewer only at the end of the data). */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
  /**
   * Optional: the same bytes as {@link RangeSource.read}, in order, as they arrive (a download's pieces),
   * so that {@link BlobReader.stream} can verify and release the first chunks before the last arrive.
   * Each piece must stay unchanged after it is yielded.
   */
  stream?(offset: number, length: number, signal?: AbortSignal): AsyncIterable<Uint8Array>;
  /**
   * Optional: reads the `out.length` bytes at `offset` into `out` (a positioned file read) and resolves
   * with how many it read (fewer only at the end of the data). With it, {@link BlobReader.read} reads
   * into arrays it reuses from read to read, and reads the next window while it decrypts this one: no
   * array per source read, and the reading overlaps the decryption.
   */
  readInto?(offset: number, out: Uint8Array, signal?: AbortSignal): Promise<number>;
}

/** Decrypted random access to one blob. */
export interface BlobReader {
  /** Plaintext length, authenticated by the final chunk. */
  readonly plaintextSize: number;
  /**
   * Decrypts plaintext bytes `[offset, offset + length)`, reading only the chunks they lie in; each
   * chunk is verified before any of its bytes is returned. The result may be a view into a larger array
   * (of verified plaintext of the same blob): copy it (`.slice()`) before transferring its `.buffer`.
   * Reads that follow one another (each starting where the last ended) have the next range read ahead.
   *
   * @throws {InvalidArgumentError} when the range is not inside `[0, plaintextSize]`.
   * @throws {DecryptionError} when a chunk does not verify or the source returns short data.
   * @throws {AbortedError} when `signal` is aborted.
   */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
  /**
   * {@link BlobReader.read} into the caller's array: decrypts the `out.length` plaintext bytes at `offset`
   * (fewer at the end of the plaintext) into `out` and resolves with how many. For a caller that reads on
   * into the same array (a player's buffer), no array is made per read: the chunks are decrypted
   * straight into `out`, each chunk's bytes written only once its tag verified. On failure the bytes of
   * `out` the range would have filled are zeroed (some may have held verified plaintext by then, none
   * ever an unverified byte); nothing past them is touched.
   *
   * @throws {InvalidArgumentError} when `out` is not a `Uint8Array` or `offset` is not inside `[0, plaintextSize]`.
   * @throws {DecryptionError} when a chunk does not verify or the source returns short data.
   * @throws {AbortedError} when `signal` is aborted.
   * @example
   * ```ts
   * const buffer = new Uint8Array(1 << 20);
   * for (let at = 0; at < reader.plaintextSize; ) at += await reader.readInto(at, buffer);
   * ```
   */
  readInto(offset: number, out: Uint8Array, signal?: AbortSignal): Promise<number>;
  /**
   * The plaintext bytes `[offset, offset + length)` in order, as each chunk verifies: a player's response
   * can start after the first chunk of a range arrived, instead of after the whole range was read. Reads
   * the source's {@link RangeSource.stream} when it has one, else spans through `read`. Nothing of a chunk
   * is yielded before its tag verified; a chunk that fails ends the iteration with the error, after the
   * chunks before it. Pieces are views (see {@link BlobReader.read}).
   *
   * @throws {InvalidArgumentError} when the range is not inside `[0, plaintextSize]` (at the first step).
   * @throws {DecryptionError} when a chunk does not verify or the source returns short or extra data.
   * @throws {AbortedError} when `signal` is aborted.
   */
  stream(offset: number, length: number, signal?: AbortSignal): AsyncGenerator<Uint8Array, void, undefined>;
}

/**
 * A {@link RangeSource} over bytes in memory (returns views into `bytes`, which must not change).
 *
 * @throws {InvalidArgumentError} when `bytes` is not a `Uint8Array`.
 * @example
 * ```ts
 * const reader = await openBlobRandomAccess(bufferRangeSource(blob), blobKey, { context: mediaBlobContext(ref) });
 * ```
 */
export function bufferRangeSource(bytes: Uint8Array): RangeSource {
  assertBytes(bytes, 'bytes');
  return {
    size: async () => bytes.length,
    read: async (offset, length, signal) => {
      if (signal?.aborted) throw new AbortedError();
      assertNonNegativeInteger(offset, 'offset');
      assertNonNegativeInteger(length, 'length');
      return bytes.subarray(offset, Math.min(bytes.length, offset + length));
    },
  };
}

/** Reads exactly `length` bytes or fails: a source that returns less than it announced is not authentic. */
async function readExactly(
  source: RangeSource,
  offset: number,
  length: number,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  if (signal?.aborted) throw new AbortedError();
  const bytes = await source.read(offset, length, signal);
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) throw new DecryptionError();
  return bytes;
}

/** Checks that `[offset, offset + length)` lies inside the plaintext. */
function assertRange(offset: number, length: number, plaintextSize: number): void {
  assertNonNegativeInteger(offset, 'offset');
  assertNonNegativeInteger(length, 'length');
  if (offset + length > plaintextSize) {
    throw new InvalidArgumentError(
      `expected a range inside the ${plaintextSize}-byte plaintext for \`offset\`/\`length\` but received ${offset}+${length}`,
    );
  }
}

/** Views of the full-size sealed chunks that `bytes` (a whole number of them) holds, in order. */
function sealedChunks(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += BLOB_SEALED_CHUNK_SIZE) {
    chunks.push(bytes.subarray(at, at + BLOB_SEALED_CHUNK_SIZE));
  }
  return chunks;
}

/**
 * Opens a blob for random access.
 *
 * @param source where the ciphertext is read from.
 * @param key 32-byte blob key.
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when the length is impossible (truncated or extended),
 * the commitment or the final chunk does not verify (wrong key or context, modification).
 * @throws {LimitError} `ERR_LIMIT_EXCEEDED` when the plaintext is longer than `maxPlaintextBytes`.
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a bad key or option.
 * @example
 * ```ts
 * const reader = await openBlobRandomAccess(fileRangeSource('video.bin'), blobKey, { context: unboundBlobContext() });
 * const firstMegabyte = await reader.read(0, Math.min(reader.plaintextSize, 1 << 20));
 * ```
 */
export async function openBlobRandomAccess(
  source: RangeSource,
  key: Uint8Array,
  options: BlobOptions,
): Promise<BlobReader> {
  assertBytes(key, 'key', BLOB_KEY_SIZE);
  const resolved = resolveBlobOptions(options);
  if (typeof source !== 'object' || source === null || typeof source.read !== 'function') {
    throw new InvalidArgumentError('expected a RangeSource with size() and read() for `source`');
  }
  const size = await source.size();
  const layout = blobLayout(size);
  if (layout === undefined) throw new DecryptionError();
  checkPlaintextLimit(layout.plaintextSize, resolved);

  // The header and the final chunk are read at once: where the source is a store across a network,
  // opening then waits for one round trip rather than two.
  const { finalIndex, finalSealedSize } = layout;
  const finalRead = new AbortController();
  const finalSealedRead = readExactly(source, chunkOffset(finalIndex), finalSealedSize, finalRead.signal);
  finalSealedRead.catch(() => undefined); // awaited below, or given up with the header
  let cipher: ChunkCipher;
  try {
    const header = await readExactly(source, 0, BLOB_HEADER_SIZE);
    const keys = openBlobHeader(key, header, resolved.context);
    cipher = await createChunkCipher(resolved.aesGcm, keys.aeadKey, keys.baseNonce);
    keys.aeadKey.fill(0);
  } catch (error) {
    finalRead.abort();
    throw error;
  }
  const finalPlain = await cipher.open(finalIndex, [await finalSealedRead]);
  return new RangeReader({ source, cipher, finalIndex, finalPlain }, layout.plaintextSize);
}

/** The chunks a plaintext range lies in. */
interface Covering {
  /** Index of the first chunk. */
  readonly first: number;
  /** Index of the last chunk (may be the final one). */
  readonly last: number;
  /** Chunks to read from the source: `[first, first + count)`, the final one never (verified at open). */
  readonly count: number;
}

/** The covering chunks of `[offset, offset + length)` (`length` > 0) of a blob whose final chunk is `finalIndex`. */
function covering(offset: number, length: number, finalIndex: number): Covering {
  const first = Math.floor(offset / BLOB_CHUNK_SIZE);
  const last = Math.floor((offset + length - 1) / BLOB_CHUNK_SIZE);
  return { first, last, count: Math.max(0, Math.min(last, finalIndex - 1) - first + 1) };
}

/** Where a read's plaintext goes: `array` holds the blob's plaintext from offset `start` on. */
interface PlainTarget {
  readonly array: Uint8Array;
  readonly start: number;
}

/** A {@link BlobReader} over an opened blob. */
class RangeReader implements BlobReader {
  readonly plaintextSize: number;
  readonly #blob: OpenBlobParts;
  /** Plaintext offset where the last read ended: a read that starts there is sequential. */
  #lastEnd = -1;
  /** The ciphertext of the range after a sequential read, read ahead for the next one. */
  #ahead: SealedLoad | undefined;
  /** The arrays a source with `readInto` reads windows into, reused from read to read. */
  readonly #arrays = new ReadArrays();

  constructor(blob: OpenBlobParts, plaintextSize: number) {
    this.#blob = blob;
    this.plaintextSize = plaintextSize;
  }

  async *stream(
    offset: number,
    length: number,
    signal?: AbortSignal,
  ): AsyncGenerator<Uint8Array, void, undefined> {
    assertRange(offset, length, this.plaintextSize);
    yield* streamChunks(this.#blob, offset, length, signal);
  }

  async read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array> {
    assertRange(offset, length, this.plaintextSize);
    // The covering chunks whole: none is cut, so each is opened straight into the result (opening a cut
    // chunk costs an array of its own, slower than the spare 32 KiB at most).
    const { array, start } = await this.#decrypt(offset, length, signal, (range) => ({
      array: getRuntime().alloc.output(this.#plaintextOf(range)),
      start: range.first * BLOB_CHUNK_SIZE,
    }));
    return array.subarray(offset - start, offset - start + length);
  }

  async readInto(offset: number, out: Uint8Array, signal?: AbortSignal): Promise<number> {
    assertBytes(out, 'out');
    assertRange(offset, 0, this.plaintextSize);
    const length = Math.min(out.length, this.plaintextSize - offset);
    // Straight into `out`, from the offset on: only the cut first and last chunk go through arrays of
    // their own, and no array of whole chunks is made (or copied out of) per read.
    await this.#decrypt(offset, length, signal, () => ({ array: out.subarray(0, length), start: offset }));
    return length;
  }

  /** The plaintext length of the chunks of `range`. */
  #plaintextOf(range: Covering): number {
    return (
      range.count * BLOB_CHUNK_SIZE +
      (range.last === this.#blob.finalIndex ? this.#blob.finalPlain.length : 0)
    );
  }

  /**
   * Decrypts the plaintext `[offset, offset + length)` (a checked range) into the array `target` gives
   * (asked for once, when the first chunks are there to be opened; it holds the plaintext from `start`
   * on, at most `offset`, and at least to the range's end), which is returned; zeroed on failure.
   */
  async #decrypt(
    offset: number,
    length: number,
    signal: AbortSignal | undefined,
    target: (range: Covering) => PlainTarget,
  ): Promise<PlainTarget> {
    const ahead = this.#ahead;
    this.#ahead = undefined;
    if (length === 0) {
      ahead?.abandon();
      return { array: new Uint8Array(0), start: offset };
    }
    const { finalIndex, finalPlain, source } = this.#blob;
    const range = covering(offset, length, finalIndex);
    let out: PlainTarget | undefined;
    // Every byte of it is written below (the runtime's output arrays may be uninitialised).
    const into = () => (out ??= target(range));
    try {
      if (range.count === 0) ahead?.abandon();
      else if (source.readInto === undefined) await this.#readSpans(range, signal, into);
      else {
        let load = ahead;
        if (!load?.serves(range)) {
          load?.abandon();
          load = new SealedLoad(source, range, this.#arrays, signal);
        }
        await this.#openWindows(load, range, signal, into);
        const sequential = offset === this.#lastEnd;
        this.#lastEnd = offset + length;
        if (sequential) this.#readAhead(offset + length, length);
      }
    } catch (error) {
      out?.array.fill(0);
      throw error;
    }
    const result = into();
    if (range.last === finalIndex)
      copyClipped(finalPlain, result.array, finalIndex * BLOB_CHUNK_SIZE - result.start);
    return result;
  }

  /**
   * Decrypts the chunks of `range` from the windows `load` reads, window by window as they arrive, into
   * the target array, asked of `into` once the first window arrived: the reads
   * go into the reader's reused arrays, so a read allocates only its result (none for `readInto`), and
   * the result is young when it is returned (an array that lives across several reads of the thread pool
   * is promoted by the garbage collector, and freed only by its full collections). `signal` is checked as
   * each window arrives (the load's reads may have started before it was aborted, or for an earlier read:
   * read ahead).
   */
  async #openWindows(
    load: SealedLoad,
    range: Covering,
    signal: AbortSignal | undefined,
    into: () => PlainTarget,
  ): Promise<void> {
    const { cipher } = this.#blob;
    try {
      for (const window of load.windows) {
        if (window.start >= range.count) break;
        const sealed = await window.arrived;
        if (signal?.aborted) throw new AbortedError();
        const end = Math.min(range.count, window.end);
        const { array, start } = into();
        await openClipped(
          cipher,
          range.first + window.start,
          sealedChunks(sealed.subarray(0, (end - window.start) * BLOB_SEALED_CHUNK_SIZE)),
          array,
          start,
        );
        load.done(window, sealed);
      }
    } finally {
      load.abandon();
    }
  }

  /**
   * Decrypts the chunks of `range` from a source that only `read`s into the target array (from `into`):
   * one source read per span (not per batch), the next span read while this one is decrypted.
   */
  async #readSpans(range: Covering, signal: AbortSignal | undefined, into: () => PlainTarget): Promise<void> {
    const { source, cipher } = this.#blob;
    const { array: out, start: outStart } = into();
    const lastRead = range.first + range.count - 1;
    const readSpan = (start: number) =>
      readExactly(
        source,
        chunkOffset(start),
        (Math.min(lastRead, start + READ_SPAN_CHUNKS - 1) - start + 1) * BLOB_SEALED_CHUNK_SIZE,
        signal,
      );
    let pending: Promise<Uint8Array> | undefined = readSpan(range.first);
    try {
      for (let start = range.first; pending !== undefined; start += READ_SPAN_CHUNKS) {
        const sealed = sealedChunks(await pending);
        pending = start + READ_SPAN_CHUNKS <= lastRead ? readSpan(start + READ_SPAN_CHUNKS) : undefined;
        // Batches of a span are opened together: concurrently for an asynchronous AES-GCM (WebCrypto).
        // Every one settles before a failure is reported: none writes into `out` after it was wiped.
        const opening: (void | Promise<void>)[] = [];
        for (let b = 0; b < sealed.length; b += BLOB_BATCH_CHUNKS) {
          opening.push(openClipped(cipher, start + b, sealed.slice(b, b + BLOB_BATCH_CHUNKS), out, outStart));
        }
        await settleAllThenThrow(opening);
      }
    } catch (error) {
      // The prefetched span is abandoned; keep its failure from surfacing as an unhandled rejection.
      pending?.catch(() => undefined);
      throw error;
    }
  }

  /** Starts reading the ciphertext of `[offset, offset + length)` (cut at the end) for the next read. */
  #readAhead(offset: number, length: number): void {
    const next = Math.min(length, this.plaintextSize - offset);
    if (next <= 0) return;
    const range = covering(offset, next, this.#blob.finalIndex);
    // Not the caller's signal: that read is over, and the next one brings its own.
    if (range.count > 0) this.#ahead = new SealedLoad(this.#blob.source, range, this.#arrays);
  }
}

/**
 * The arrays of {@link LATER_WINDOW_CHUNKS} sealed chunks a reader's windows are read into. Only
 * ciphertext goes in them, so they are reused as they are; a few are kept once free, so a reader that
 * reads on makes none after its first reads: no allocation, and memory the cache already holds, where a
 * fresh array costs a page fault per 4 KiB and a read into it runs at a fraction of the speed.
 */
class ReadArrays {
  readonly #free: Uint8Array[] = [];

  /** A free array, or a new one (not zero-filled: only the bytes a read put there are ever used). */
  take(): Uint8Array {
    return this.#free.pop() ?? getRuntime().alloc.output(LATER_WINDOW_CHUNKS * BLOB_SEALED_CHUNK_SIZE);
  }

  /** Gives back an array no read writes into any more. */
  give(array: Uint8Array): void {
    if (this.#free.length < KEPT_READ_ARRAYS) this.#free.push(array);
  }
}

/** One read of a {@link SealedLoad}: chunks `[start, end)` of its range. */
interface LoadWindow {
  readonly start: number;
  readonly end: number;
  /** Resolves with the window's sealed chunks (the first `end - start` of the array) once they arrived. */
  readonly arrived: Promise<Uint8Array>;
}

/**
 * The sealed chunks of a {@link Covering} read window by window from a source with `readInto`, each into
 * an array of the reader's: the first two windows are read at once, and each later one once the window
 * two before it was decrypted, so the next window is being read (or has arrived) while the reader
 * decrypts one, and a load holds two arrays at most.
 */
class SealedLoad {
  readonly windows: LoadWindow[] = [];
  readonly #range: Covering;
  readonly #arrays: ReadArrays;
  /** Per window: lets the window two after it be read (called once its array is no longer needed). */
  readonly #finished: (() => void)[] = [];
  /** Per window: true once its array went back (or was never taken). */
  readonly #released: boolean[] = [];
  #abandoned = false;

  constructor(source: RangeSource, range: Covering, arrays: ReadArrays, signal?: AbortSignal) {
    this.#range = range;
    this.#arrays = arrays;
    const readInto = (source.readInto as NonNullable<RangeSource['readInto']>).bind(source);
    const finishedWindows: Promise<void>[] = [];
    for (let start = 0; start < range.count; ) {
      const end = Math.min(range.count, start + (start === 0 ? FIRST_WINDOW_CHUNKS : LATER_WINDOW_CHUNKS));
      const index = this.windows.length;
      const offset = chunkOffset(range.first + start);
      const length = (end - start) * BLOB_SEALED_CHUNK_SIZE;
      const twoBefore = finishedWindows[index - 2];
      // Not after the window before it arrived: both reads are in flight at once, so the second has
      // arrived by the time the first was decrypted even when the thread pool is slow to pick it up.
      const arrived = Promise.resolve(twoBefore).then(async () => {
        if (this.#abandoned) throw new AbortedError();
        if (signal?.aborted) throw new AbortedError();
        const array = this.#arrays.take();
        try {
          // Fewer bytes than the chunks the blob's length promised: not authentic.
          if ((await readInto(offset, array.subarray(0, length), signal)) !== length) {
            throw new DecryptionError();
          }
        } catch (error) {
          // The read is over (settled), so the array can be used again.
          this.#arrays.give(array);
          throw error;
        }
        return array;
      });
      // Awaited by the read; a load abandoned by a read that failed or went elsewhere must not surface
      // as an unhandled rejection.
      arrived.catch(() => undefined);
      finishedWindows.push(
        new Promise<void>((resolve) => {
          this.#finished.push(resolve);
        }),
      );
      this.windows.push({ start, end, arrived });
      start = end;
    }
  }

  /**
   * True when a read of `range` can use this load: the same first chunk and no more chunks.
   */
  serves(range: Covering): boolean {
    return !this.#abandoned && range.first === this.#range.first && range.count <= this.#range.count;
  }

  /**
   * The reader is done with `window` (decrypted from `array`, what its read arrived in, or given up):
   * its array goes back, at once or once its read is over, and the window two after it may be read.
   */
  done(window: LoadWindow, array?: Uint8Array): void {
    const index = this.windows.indexOf(window);
    if (this.#released[index]) return;
    this.#released[index] = true;
    if (array) this.#arrays.give(array);
    else window.arrived.then((arrived) => this.#arrays.give(arrived), noop);
    this.#finished[index]?.();
  }

  /**
   * Nothing more is read from this load: windows not yet started are never read, and the arrays of
   * windows still being read go back once their reads are over (never while a read may write them).
   */
  abandon(): void {
    this.#abandoned = true;
    for (const window of this.windows) this.done(window);
  }
}

/** Does nothing (a settled read whose outcome no longer matters). */
function noop(): void {}

/**
 * Chunks per source request: 16 (256 KiB), the next requested when the consumer has taken the last.
 * A player's open-ended request (`bytes=0-`, the whole rest of the file) is often abandoned after a few
 * frames, and a seek's request at the next seek, so what an abandoned request downloaded and never played
 * stays within one window (windows that grow let a player that only partly played a blob download
 * nearly all of it: docs/blob-format.md, "Random access"). A range of at most {@link ONE_REQUEST_CHUNKS}
 * (512 KiB) is one request: a seek's 256 KiB covers 17 chunks, and splitting it 16 + 1 would cost a
 * second round trip. Within a request, chunks are released as they arrive.
 */
const WINDOW_CHUNKS = 16;
const ONE_REQUEST_CHUNKS = 2 * WINDOW_CHUNKS;

/** What {@link streamChunks} needs of an open reader. */
interface OpenBlobParts {
  readonly source: RangeSource;
  readonly cipher: ChunkCipher;
  /** Index of the final chunk, verified at open. */
  readonly finalIndex: number;
  /** Plaintext of the final chunk (not read again). */
  readonly finalPlain: Uint8Array;
}

/** The source's bytes `[offset, offset + length)`: its own stream, or one `read`. */
async function* sourcePieces(
  source: RangeSource,
  offset: number,
  length: number,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (source.stream) yield* source.stream(offset, length, signal);
  else yield await source.read(offset, length, signal);
}

/**
 * Yields the verified plaintext of `[offset, offset + length)` (already checked to lie inside the blob),
 * chunk batch by chunk batch, as the sealed chunks arrive.
 */
async function* streamChunks(
  blob: OpenBlobParts,
  offset: number,
  length: number,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array, void, undefined> {
  if (length === 0) return;
  const end = offset + length;
  const first = Math.floor(offset / BLOB_CHUNK_SIZE);
  const last = Math.floor((end - 1) / BLOB_CHUNK_SIZE);
  const lastRead = Math.min(last, blob.finalIndex - 1);
  /** The part of `plain` (chunks from `index` on, each full-size but the final one) inside the range. */
  const cut = (index: number, plain: Uint8Array) => {
    const start = index * BLOB_CHUNK_SIZE;
    const from = Math.max(offset, start) - start;
    const to = Math.min(end, start + plain.length) - start;
    return plain.subarray(from, Math.max(from, to));
  };
  // Sealed chunks are opened where they lie in a piece; one split across two pieces is gathered first.
  const chunks = new ChunkSplitter(BLOB_SEALED_CHUNK_SIZE);
  const covering = lastRead - first + 1;
  const windowChunks = covering <= ONE_REQUEST_CHUNKS ? covering : WINDOW_CHUNKS;
  for (let window = first; window <= lastRead; window += windowChunks) {
    const expected = (Math.min(lastRead, window + windowChunks - 1) - window + 1) * BLOB_SEALED_CHUNK_SIZE;
    let received = 0;
    let index = window;
    for await (const piece of sourcePieces(blob.source, chunkOffset(window), expected, signal)) {
      if (signal?.aborted) throw new AbortedError();
      if (!(piece instanceof Uint8Array)) throw new DecryptionError();
      received += piece.length;
      if (received > expected) throw new DecryptionError();
      const ready = chunks.push(piece);
      if (ready.length > 0) {
        const plain = await blob.cipher.open(index, ready);
        const inRange = cut(index, plain);
        index += ready.length;
        if (inRange.length > 0) yield inRange;
      }
    }
    // Fewer bytes than the window's chunks: the source is short, which an authentic blob never is.
    if (received !== expected) throw new DecryptionError();
  }
  if (last === blob.finalIndex) {
    const inRange = cut(blob.finalIndex, blob.finalPlain);
    if (inRange.length > 0) yield inRange;
  }
}
