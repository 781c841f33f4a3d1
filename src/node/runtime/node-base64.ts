/**
 * Standard base64 over Node's native `Buffer` codec: the same texts as the universal `@scure/base` codec,
 * in native code (base64 is a large share of sealing or opening a small envelope). `happy-media/node`
 * installs it on import (part of `nodeRuntime`).
 *
 * @module
 */
import { FormatError } from '../../core/errors.js';
import type { Base64Codec } from '../../core/runtime/base64-codec.js';

/** Decodes `text` with Node's native decoder and accepts it only if it is the canonical encoding. */
function decodeCanonical(text: string): Buffer {
  const decoded = Buffer.from(text, 'base64');
  if (decoded.toString('base64') !== text) throw new FormatError('not canonical standard padded base64');
  return decoded;
}

/**
 * `Buffer.from(text, 'base64')` is lenient (it skips unknown characters and accepts missing padding), so
 * the decoded bytes are re-encoded and compared: only the one canonical text of those bytes is accepted,
 * exactly what the strict universal decoder accepts.
 */
export const nodeBase64Codec: Base64Codec = {
  name: 'node',
  encode: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
  decode(text) {
    const decoded = decodeCanonical(text);
    // Small results live in Node's shared pool: copy them so `.buffer` holds nothing but these bytes.
    return decoded.byteLength === decoded.buffer.byteLength
      ? new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength)
      : new Uint8Array(decoded);
  },
  // The copy above is a noticeable share of a small envelope's open; a record that is only opened skips it.
  decodeShared: decodeCanonical,
};
