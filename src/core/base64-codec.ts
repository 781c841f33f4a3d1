/**
 * Which standard-base64 implementation {@link toBase64}/{@link fromBase64} use. The universal default is
 * `@scure/base` (pure JS); `happy-media/node` installs one over Node's native `Buffer` codec on import,
 * because base64 was two thirds of an envelope's seal/open time (docs/encryption.md, "Speed").
 *
 * Every implementation must accept exactly the same texts: standard alphabet, `=` padding, no whitespace,
 * zero bits after the last character (the canonical encoding); anything else throws.
 *
 * @module
 */
import { base64 } from '@scure/base';
import { InvalidArgumentError } from './errors.js';

/** A standard padded base64 codec with strict decoding. */
export interface Base64Codec {
  /** Short name for diagnostics and benchmarks, e.g. `scure` or `node`. */
  readonly name: string;
  /** Encodes bytes as standard base64 with `=` padding. */
  encode(bytes: Uint8Array): string;
  /** Decodes the canonical standard padded base64 of some bytes; throws (any error) on anything else. */
  decode(text: string): Uint8Array;
  /**
   * Optional: {@link Base64Codec.decode}, except that the result may be a view into memory shared with
   * other short-lived bytes (Node's `Buffer` pool), saving the copy into an array of its own. Only for
   * bytes read and dropped inside one call (an envelope's record on its way to the cipher); never
   * returned to a caller.
   */
  decodeShared?(text: string): Uint8Array;
}

/** The universal implementation, over `@scure/base` (strict). */
export const scureBase64Codec: Base64Codec = {
  name: 'scure',
  encode: (bytes) => base64.encode(bytes),
  decode: (text) => base64.decode(text),
};

let current: Base64Codec = scureBase64Codec;

/**
 * Installs the base64 codec (`happy-media/node` installs Node's native one on import). It must encode the
 * same text as {@link scureBase64Codec} and reject the same texts.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` when `codec` lacks `name`, `encode` or `decode`.
 * @example
 * ```ts
 * setBase64Codec(scureBase64Codec); // force pure JS, e.g. for a cross-check
 * ```
 */
export function setBase64Codec(codec: Base64Codec): void {
  if (
    typeof codec !== 'object' ||
    codec === null ||
    typeof codec.encode !== 'function' ||
    typeof codec.decode !== 'function' ||
    typeof codec.name !== 'string'
  ) {
    throw new InvalidArgumentError('expected a Base64Codec with name, encode() and decode() for `codec`');
  }
  current = codec;
}

/** The base64 codec in use now. */
export function getBase64Codec(): Base64Codec {
  return current;
}
