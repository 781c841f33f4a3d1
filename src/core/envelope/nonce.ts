/**
 * Where a record's nonce comes from: the caller's, for test vectors only ({@link EncryptOptions}), or a
 * fresh random one.
 *
 * Random nonces are drawn from a buffer of CSPRNG output. A `crypto.getRandomValues` call costs the same
 * whatever the length, a fair share of sealing a small message (docs/encryption.md, "Speed"), so one call
 * fills 4 KiB, enough for 341 dataKey nonces.
 *
 * Only nonces come from here, never keys: a nonce is public (it is written in clear at the front of every
 * record), so holding future ones in memory discloses nothing. Every byte is handed out once (the cursor
 * only moves forward, and the buffer is refilled, not reused, when it runs out), so nonces are exactly as
 * random and as unique as calling `getRandomValues` each time.
 *
 * @module
 */
import { randomBytes } from '../bytes.js';

/** Options of the encrypt functions. */
export interface EncryptOptions {
  /**
   * A fixed nonce, for test vectors only. Never reuse a nonce with the same key: omit it and a fresh
   * random one is drawn from WebCrypto.
   */
  nonce?: Uint8Array;
}

const POOL_BYTES = 4096;
let pool: Uint8Array = new Uint8Array(0);
let at = 0;

/** `length` fresh random bytes for a public nonce (a new array; the caller may keep it). */
export function randomNonce(length: number): Uint8Array {
  if (length > POOL_BYTES) return randomBytes(length);
  if (at + length > pool.length) {
    pool = randomBytes(POOL_BYTES);
    at = 0;
  }
  const nonce = pool.slice(at, at + length);
  at += length;
  return nonce;
}
