/**
 * CRC-32 (ISO-HDLC, PNG's chunk checksum) of bytes and of runs of zeros, for PNG chunks rewritten in
 * place. A checksum, not a cryptographic primitive.
 *
 * @module
 */

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 state after `bytes`, from `state` (start with 0xffffffff; finish with {@link crc32Final}). */
export function crc32Update(state: number, bytes: Uint8Array): number {
  let c = state;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return c >>> 0;
}

/** CRC-32 state after `count` zero bytes. */
export function crc32UpdateZeros(state: number, count: number): number {
  let c = state;
  for (let i = 0; i < count; i++) c = TABLE[c & 0xff]! ^ (c >>> 8);
  return c >>> 0;
}

/** The checksum of a finished state. */
export function crc32Final(state: number): number {
  return (state ^ 0xffffffff) >>> 0;
}
