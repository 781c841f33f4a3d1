/**
 * Cuts a sequence of byte pieces of any sizes into whole chunks of one fixed size: a chunk that lies inside
 * one piece is handed out as a view of it (no copy), one that straddles pieces is gathered into a buffer of
 * its own and handed out as a copy; the bytes after the last whole chunk wait for the next piece.
 *
 * The encryptor cuts plaintext into 16 KiB chunks with it, and a streamed range read cuts ciphertext into
 * sealed chunks. (The decryptor holds a complete chunk back until a byte follows it, because a full-size
 * last chunk means truncation, so it keeps its own loop.)
 *
 * @module
 */

/** Whole chunks out of pieces; see the module comment. */
export class ChunkSplitter {
  readonly #size: number;
  readonly #pending: Uint8Array;
  #pendingLength = 0;

  /** @param size bytes per chunk. */
  constructor(size: number) {
    this.#size = size;
    this.#pending = new Uint8Array(size);
  }

  /**
   * The whole chunks `piece` completes, in order. Views of `piece` are valid as long as `piece` is; the
   * rest of `piece` is copied, so the caller may reuse `piece` once it is done with the chunks.
   */
  push(piece: Uint8Array): Uint8Array[] {
    const size = this.#size;
    const ready: Uint8Array[] = [];
    let at = 0;
    if (this.#pendingLength > 0) {
      const take = Math.min(size - this.#pendingLength, piece.length);
      this.#pending.set(piece.subarray(0, take), this.#pendingLength);
      this.#pendingLength += take;
      at = take;
      if (this.#pendingLength === size) {
        ready.push(this.#pending.slice());
        this.#pendingLength = 0;
      }
    }
    while (piece.length - at >= size) {
      ready.push(piece.subarray(at, at + size));
      at += size;
    }
    if (at < piece.length) {
      this.#pending.set(piece.subarray(at), this.#pendingLength);
      this.#pendingLength += piece.length - at;
    }
    return ready;
  }

  /** The bytes waiting for more (fewer than one chunk), as a view of the splitter's own buffer. */
  get rest(): Uint8Array {
    return this.#pending.subarray(0, this.#pendingLength);
  }

  /** Zeroes the buffer and forgets the waiting bytes (they may be plaintext). */
  wipe(): void {
    this.#pending.fill(0);
    this.#pendingLength = 0;
  }
}
