/**
 * Same-size edits of a file's bytes, and the two ways a metadata walker reads the file and records them:
 * with random access (a plan made before the bytes are sent), or as the bytes pass in one stream.
 *
 * Every edit replaces bytes with as many bytes, so a stripped file has its original size: the upload
 * announces `ciphertextSize(size)` before the first byte is read, and the offsets an index holds (a
 * video's chunk offsets, a HEIF's item locations, an MPF's picture offsets) stay valid.
 *
 * @module
 */
import { InternalError, NotSupportedError } from '../../errors.js';
import { metadataStripRefusal } from './strip-refusal.js';

/** Bytes written over the file's at `offset`, or `length` bytes of `fill` there. */
export type ByteEdit =
  | { offset: number; bytes: Uint8Array }
  | { offset: number; length: number; fill: number };

/** Where the edit ends. */
export function editEnd(edit: ByteEdit): number {
  return edit.offset + ('bytes' in edit ? edit.bytes.length : edit.length);
}

/**
 * What a metadata walker reads the file through and records its edits into. Reads go forward: a walker
 * never reads before what it passed.
 */
export interface StripSource {
  /** The file's size in bytes. */
  readonly size: number;
  /** `length` bytes at `offset`, fewer only at the end of the file. */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** The walker will read nothing before `offset` again (in one stream, those bytes may go on). */
  pass(offset: number): void;
  /** Records an edit (an edit overlapping an earlier one gives way to it: see {@link EditList}). */
  edit(edit: ByteEdit): void;
}

/** Edits sorted by offset, never overlapping. */
export class EditList {
  readonly edits: ByteEdit[] = [];

  /**
   * Adds an edit. Where it overlaps one already there, the earlier wins: a fill is cut to the gaps, a
   * byte edit is dropped (only a hostile index makes two edits meet, e.g. a metadata track's chunk
   * offsets pointing into the `moov` box whose types are being rewritten).
   */
  add(edit: ByteEdit): void {
    const end = editEnd(edit);
    if (end <= edit.offset) return;
    // The first edit that ends after this one starts.
    let lo = 0;
    let hi = this.edits.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (editEnd(this.edits[mid]!) <= edit.offset) lo = mid + 1;
      else hi = mid;
    }
    const next = this.edits[lo];
    if (next === undefined || next.offset >= end) {
      this.edits.splice(lo, 0, edit);
      return;
    }
    if ('bytes' in edit) return;
    // A fill over earlier edits: keep the parts that fall in the gaps.
    let at = edit.offset;
    const gaps: ByteEdit[] = [];
    for (let i = lo; i < this.edits.length && this.edits[i]!.offset < end; i++) {
      const other = this.edits[i]!;
      if (other.offset > at) gaps.push({ offset: at, length: other.offset - at, fill: edit.fill });
      at = Math.max(at, editEnd(other));
    }
    if (at < end) gaps.push({ offset: at, length: end - at, fill: edit.fill });
    for (const gap of gaps) this.add(gap);
  }
}

/**
 * Writes the edits that fall in `[start, start + bytes.length)` over `bytes` (a copy when any does),
 * starting the search at `from`; returns the result and the index of the first edit not yet finished.
 */
export function applyEdits(
  edits: readonly ByteEdit[],
  from: number,
  start: number,
  bytes: Uint8Array,
): { bytes: Uint8Array; next: number } {
  const end = start + bytes.length;
  let out = bytes;
  let i = from;
  while (i < edits.length && edits[i]!.offset < end) {
    const edit = edits[i]!;
    const editStop = editEnd(edit);
    const a = Math.max(edit.offset, start);
    const b = Math.min(editStop, end);
    if (a < b) {
      if (out === bytes) out = bytes.slice();
      if ('bytes' in edit) out.set(edit.bytes.subarray(a - edit.offset, b - edit.offset), a - start);
      else out.fill(edit.fill, a - start, b - start);
    }
    if (editStop > end) break;
    i++;
  }
  return { bytes: out, next: i };
}

/** A walker over random access: it reads what it needs and the edits form a plan. */
export class PlanningSource implements StripSource {
  readonly list = new EditList();

  constructor(
    readonly size: number,
    private readonly reader: (offset: number, length: number) => Promise<Uint8Array>,
  ) {}

  read(offset: number, length: number): Promise<Uint8Array> {
    const clamped = Math.max(0, Math.min(length, this.size - offset));
    return clamped === 0 ? Promise.resolve(new Uint8Array(0)) : this.reader(offset, clamped);
  }

  pass(): void {}

  edit(edit: ByteEdit): void {
    this.list.add(edit);
  }
}

/** The error of an edit that a single pass found too late (see {@link StreamingSource}). */
export function lateEditError(): NotSupportedError {
  return metadataStripRefusal(
    new NotSupportedError(
      'this file describes metadata after the bytes that hold it (a video whose index follows its data and ' +
        'has a timed-metadata track, or a HEIF whose metadata item precedes its meta box), which one pass over ' +
        'a stream cannot remove: give the bytes as a Uint8Array, a source with random access ' +
        '(`{ stream, size, ranges }`, what expoFileSource gives), or a file path; or keep the metadata ' +
        '(keepMetadata: true) knowingly',
    ),
  );
}

/**
 * A walker over one stream: bytes are held from the first one not yet sent until the walker passes
 * them, then sent with their edits applied. The walker runs beside the stream; {@link push} hands it a
 * piece and resolves once it wants more (or is done). An edit of bytes already sent is a late edit:
 * the stream then fails at its end ({@link lateEditError}).
 */
export class StreamingSource implements StripSource {
  readonly list = new EditList();
  #pieces: Uint8Array[] = [];
  /** File offset of the first byte held (everything before it was sent). */
  #held = 0;
  #received = 0;
  #passed = 0;
  #nextEdit = 0;
  #ended = false;
  #late = false;
  #waiting: { need: number; resolve: () => void } | undefined;
  #blocked: (() => void) | undefined;

  constructor(
    readonly size: number,
    private readonly send: (bytes: Uint8Array) => void,
  ) {}

  /** True when an edit came after its bytes were sent. */
  get late(): boolean {
    return this.#late;
  }

  /**
   * The walker's next step: resolves once the walker waits for bytes not received yet, or finished.
   * `done` settles when the walker finishes.
   */
  settled(done: Promise<unknown>): Promise<void> {
    if (this.#waiting === undefined && this.#blocked === undefined) {
      return new Promise<void>((resolve) => {
        this.#blocked = resolve;
        done.then(
          () => resolve(),
          () => resolve(),
        );
      }).finally(() => {
        this.#blocked = undefined;
      });
    }
    return Promise.resolve();
  }

  /** Takes the next piece of the stream; what the walker passed is sent. */
  push(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.#pieces.push(piece);
    this.#received += piece.length;
    this.#flush();
    this.#wake();
  }

  /** The stream ended: reads past its end return what there is. */
  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** Sends everything still held (the walker finished, or there is no walker). */
  finish(): void {
    this.#passed = Number.POSITIVE_INFINITY;
    this.#flush();
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (offset < this.#held) {
      throw new InternalError(`the metadata walker read at ${offset} after passing ${this.#held}`);
    }
    const need = Math.min(offset + Math.max(0, length), this.size);
    while (this.#received < need && !this.#ended) {
      await new Promise<void>((resolve) => {
        this.#waiting = { need, resolve };
        // The stream's writer waits for this: the walker needs the next piece.
        this.#blocked?.();
      });
    }
    const stop = Math.min(need, this.#received);
    return this.#copy(offset, stop);
  }

  pass(offset: number): void {
    if (offset > this.#passed) this.#passed = offset;
    this.#flush();
  }

  edit(edit: ByteEdit): void {
    if (edit.offset < this.#held) {
      this.#late = true;
      return;
    }
    this.list.add(edit);
  }

  #wake(): void {
    const waiting = this.#waiting;
    if (waiting && (this.#received >= waiting.need || this.#ended)) {
      this.#waiting = undefined;
      waiting.resolve();
    }
  }

  /** Bytes [from, to) of what is held, as one array. */
  #copy(from: number, to: number): Uint8Array {
    const out = new Uint8Array(Math.max(0, to - from));
    let at = this.#held;
    for (const piece of this.#pieces) {
      const a = Math.max(from, at);
      const b = Math.min(to, at + piece.length);
      if (a < b) out.set(piece.subarray(a - at, b - at), a - from);
      at += piece.length;
      if (at >= to) break;
    }
    return out;
  }

  #flush(): void {
    const until = Math.min(this.#passed, this.#received);
    while (this.#held < until && this.#pieces.length > 0) {
      const piece = this.#pieces[0]!;
      const take = Math.min(piece.length, until - this.#held);
      const part = take === piece.length ? piece : piece.subarray(0, take);
      const { bytes, next } = applyEdits(this.list.edits, this.#nextEdit, this.#held, part);
      this.#nextEdit = next;
      if (take === piece.length) this.#pieces.shift();
      else this.#pieces[0] = piece.subarray(take);
      this.#held += take;
      this.send(bytes);
    }
  }
}
