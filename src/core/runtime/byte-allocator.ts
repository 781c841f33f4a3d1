/**
 * The allocation part of the runtime: where the arrays our hot paths fill come from.
 *
 * - **Scratch** arrays live inside one call of ours and are dropped before it returns (the UTF-8 of a JSON
 *   value about to be sealed, a dataKey record about to be base64-encoded). A `new Uint8Array(n)` or a
 *   `TextEncoder` result gets an ArrayBuffer of its own, which V8 allocates outside its heap and tracks
 *   until a GC sweeps it: several times what a slice of Node's shared `Buffer` pool costs
 *   (docs/encryption.md, "Speed"). A pooled array is a view into memory shared with other
 *   short-lived bytes of the process, so scratch arrays never leave the call that made them (a caller could
 *   otherwise reach the other bytes through `.buffer`, or transfer it away).
 * - **Output** arrays are handed to callers (a blob batch's plaintext or ciphertext): an ArrayBuffer of
 *   their own, but their contents are unspecified, so a runtime may skip zero-filling a megabyte that is
 *   written in full anyway. Whoever allocates one writes every byte before anyone sees it.
 *
 * The universal implementation allocates ordinary arrays; `happy-media/node` installs Node's.
 *
 * @module
 */

/** Where the arrays of the hot paths come from (see the module text for the two kinds). */
export interface ByteAllocator {
  /** Short name for diagnostics and tests, e.g. `plain` or `node`. */
  readonly name: string;
  /**
   * `length` bytes over an ArrayBuffer of their own, contents unspecified: the caller writes every one of
   * them before the array is handed out.
   */
  output(length: number): Uint8Array;
  /** `length` scratch bytes (may share memory; never handed out), contents unspecified. */
  scratch(length: number): Uint8Array;
  /** The UTF-8 encoding of `text` as scratch bytes (lone surrogates become U+FFFD, as `TextEncoder` does). */
  utf8(text: string): Uint8Array;
}

const encoder = new TextEncoder();

/**
 * A new zero-filled array over a buffer of its own: what results handed to a caller are made of where no
 * runtime allocator is asked (small envelope records), and the universal allocator's arrays.
 */
export const ownedBytes = (length: number): Uint8Array => new Uint8Array(length);

/** The universal implementation: ordinary arrays, each with a buffer of its own. */
export const plainByteAllocator: ByteAllocator = Object.freeze({
  name: 'plain',
  output: ownedBytes,
  scratch: ownedBytes,
  utf8: (text: string) => encoder.encode(text),
});
