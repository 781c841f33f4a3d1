/**
 * Identifiers we create: in cuid2's shape (24 characters: a lower-case letter, then 23 of `0-9 a-z`),
 * drawn straight from the platform's CSPRNG: about 119 random bits, so ids are collision-resistant
 * without coordination and not guessable, as cuid2's are. Not cuid2's own generator (`createId`: SHA3-512
 * over host entropy, then a big-number base-36 conversion in JavaScript): it costs about a thousand times
 * as much per id, and a mapper makes ids for every event (docs/protocol.md). Messages we read may carry
 * any id the schema accepts (see `IdSchema`).
 *
 * @module
 */
import { randomBytes } from '../bytes.js';

const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Length of the ids we create (cuid2's default). */
const ID_LENGTH = 24;

// Random bytes are drawn 4 KiB at a time (one getRandomValues call costs about as much as the id) and
// each byte is used once.
const pool: { bytes: Uint8Array; at: number } = { bytes: new Uint8Array(0), at: 0 };

function nextByte(): number {
  if (pool.at === pool.bytes.length) {
    pool.bytes = randomBytes(4096);
    pool.at = 0;
  }
  return pool.bytes[pool.at++]!;
}

/**
 * Creates a fresh message id (cuid2-shaped, from the CSPRNG). Also fits `turn`, `callId` and `agentId`
 * values, and media ids.
 *
 * @example
 * ```ts
 * createMessageId(); // 'pfh0haxfpzowht3oi213cqos'
 * ```
 */
export function createMessageId(): string {
  // Rejection sampling keeps every character uniform: 234 = 9 × 26 letters, 252 = 7 × 36 digits.
  let byte = nextByte();
  while (byte >= 234) byte = nextByte();
  let id = DIGITS[10 + (byte % 26)]!;
  while (id.length < ID_LENGTH) {
    byte = nextByte();
    if (byte < 252) id += DIGITS[byte % 36];
  }
  return id;
}
