/**
 * Scratch bytes: arrays that live inside one call of ours and are dropped before it returns (the UTF-8 of
 * a JSON value about to be sealed, a dataKey record about to be base64-encoded). Nothing a caller receives
 * is ever scratch.
 *
 * Why a seam: a `new Uint8Array(n)` or a `TextEncoder` result gets an ArrayBuffer of its own, which V8
 * allocates outside its heap and tracks until a GC sweeps it, about 1.2 µs for 1 KiB in Node 20, against
 * 0.4 µs for a slice of Node's shared `Buffer` pool. Sealing a 1 KiB envelope allocated two such arrays,
 * a seventh of its time (measured, docs/encryption.md "Speed"). The universal default allocates ordinary
 * arrays; `happy-media/node` installs pooled `Buffer`s on import.
 *
 * A pooled array is a view into memory shared with other short-lived bytes of the process: that is why
 * scratch arrays never leave the call that made them (a caller could otherwise reach the other bytes
 * through `.buffer`, or transfer it away).
 *
 * @internal Not exported from the package: `happy-media/node` is the only installer.
 * @module
 */

/** Where scratch arrays come from. */
export interface ScratchBytes {
  /** Short name for diagnostics and tests, e.g. `plain` or `node-pool`. */
  readonly name: string;
  /** `length` bytes whose contents are unspecified: the caller writes every one of them before use. */
  alloc(length: number): Uint8Array;
  /** The UTF-8 encoding of `text` (lone surrogates become U+FFFD, as `TextEncoder` does). */
  utf8(text: string): Uint8Array;
}

const encoder = new TextEncoder();

/**
 * A new zero-filled array over a buffer of its own: what results handed to a caller are made of, and the
 * universal scratch arrays too.
 */
export const ownedBytes = (length: number): Uint8Array => new Uint8Array(length);

/** The universal implementation: ordinary arrays, each with a buffer of its own. */
export const plainScratchBytes: ScratchBytes = {
  name: 'plain',
  alloc: ownedBytes,
  utf8: (text) => encoder.encode(text),
};

let current: ScratchBytes = plainScratchBytes;

/** Installs where scratch arrays come from (`happy-media/node` installs Node's `Buffer` pool on import). */
export function setScratchBytes(implementation: ScratchBytes): void {
  current = implementation;
}

/** Where scratch arrays come from now. */
export function getScratchBytes(): ScratchBytes {
  return current;
}
