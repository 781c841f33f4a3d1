/**
 * The standard-base64 part of the runtime: what {@link toBase64}/{@link fromBase64} (and so every
 * envelope's `c`) use. The universal one is `@scure/base` (pure JS); `happy-media/node` installs one over
 * Node's native `Buffer` codec, because in pure JS base64 is most of an envelope's seal/open time
 * (docs/encryption.md, "Speed").
 *
 * Every implementation must accept exactly the same texts: standard alphabet, `=` padding, no whitespace,
 * zero bits after the last character (the canonical encoding); anything else throws.
 *
 * @module
 */
import { base64 } from '@scure/base';

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
export const scureBase64Codec: Base64Codec = Object.freeze({
  name: 'scure',
  encode: (bytes: Uint8Array) => base64.encode(bytes),
  decode: (text: string) => base64.decode(text),
});
