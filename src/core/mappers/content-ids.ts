/**
 * Ids derived from what a log says, so mapping the same log again writes the same ids: a server that
 * de-duplicates by id (Happy's `localId`) then keeps one copy, and a mapper restarted on a log that is
 * still growing continues with the ids a single run would have written.
 *
 * A chain state absorbs a digest of every event in order (a bounded sample of its JSON: every scalar
 * near the top, each string by its length and its first and last characters, so an event's cost does not
 * grow with its size); the `n`-th id made while an event is read is a function of the state after that
 * event and `n`. So ids depend on the content read so far and on nothing else (not the session, the
 * file's name, how it was read, or when), the same event at two places of a log gets two ids, and two
 * logs share ids only where they share their whole beginning.
 *
 * The hash is not cryptographic (ids are not secrets, and a digest per event has to cost less than
 * parsing it): a log crafted to collide with another log's ids can only make the server drop its own
 * messages as copies.
 *
 * @module
 */

/** Scalars of an event sampled, breadth first: enough to reach the ids and times providers put near the top. */
const MAX_SAMPLED_VALUES = 48;
/** Characters sampled at each end of a string (its length is absorbed too). */
const STRING_EDGE = 12;

const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * The id chain of one log: {@link ContentIds.nextEvent} before each event, {@link ContentIds.createId}
 * for each id the writer needs while the event is read.
 */
export class ContentIds {
  /** The chain's four 32-bit lanes. */
  readonly #state = new Int32Array([0x6a09e667, 0xbb67ae85 | 0, 0x3c6ef372, 0xa54ff53a | 0]);
  /** Ids made since the last event began. */
  #made = 0;

  /** Absorbs the next event (and the caller's stable id for its record, if any). */
  nextEvent(event: unknown, recordId?: string): void {
    this.#made = 0;
    absorbEvent(this.#state, event, recordId);
  }

  /** Marks the end of the input: the ids the end of a stream writes follow from everything read. */
  nextEnd(): void {
    this.#made = 0;
    absorbEvent(this.#state, END_OF_INPUT, undefined);
  }

  /** The next id: cuid2's shape (a letter, then 23 of `0-9 a-z`), a function of the chain and the count. */
  createId(): string {
    this.#made += 1;
    const state = this.#state;
    let a = state[0]! ^ Math.imul(this.#made, 0x9e3779b1);
    let b = state[1]! ^ this.#made;
    let c = state[2]!;
    let d = state[3]!;
    // Two rounds of cyrb128's finaliser spread the count over every lane.
    for (let round = 0; round < 2; round++) {
      a = Math.imul(c ^ (a >>> 18), 597399067);
      b = Math.imul(d ^ (b >>> 22), 2869860233);
      c = Math.imul(a ^ (c >>> 17), 951274213);
      d = Math.imul(b ^ (d >>> 19), 2716044179);
      a ^= b ^ c ^ d;
      b ^= a;
      c ^= a;
      d ^= a;
    }
    const first = a >>> 0;
    return (
      DIGITS[10 + (first % 26)]! +
      base36(Math.floor(first / 26), 5) +
      base36(b >>> 0, 6) +
      base36(c >>> 0, 6) +
      base36(d >>> 0, 6)
    );
  }
}

/** What the end of the input absorbs: a value no JSON event is. */
const END_OF_INPUT = Symbol('end of input');

/**
 * Absorbs a bounded, breadth-first sample of `event` into `state` (cyrb128's step per 32-bit word,
 * then its finaliser), in one function with the lanes in locals: it runs once per event.
 */
function absorbEvent(state: Int32Array, event: unknown, recordId: string | undefined): void {
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  const word = (k: number): void => {
    const a0 = a;
    a = b ^ Math.imul(a0 ^ k, 597399067);
    b = c ^ Math.imul(b ^ k, 2869860233);
    c = d ^ Math.imul(c ^ k, 951274213);
    d = a ^ Math.imul(d ^ k, 2716044179);
  };
  const string = (text: string): void => {
    const length = text.length;
    word(length);
    if (length <= 2 * STRING_EDGE) {
      for (let i = 0; i < length; i++) word(text.charCodeAt(i));
      return;
    }
    for (let i = 0; i < STRING_EDGE; i++) word(text.charCodeAt(i));
    for (let i = length - STRING_EDGE; i < length; i++) word(text.charCodeAt(i));
  };
  word(recordId === undefined ? 0x45564e54 : 0x52454354);
  if (recordId !== undefined) string(recordId);
  // No recursion: any depth costs the same.
  const queue: unknown[] = [event];
  for (let at = 0; at < queue.length; at++) {
    const value = queue[at];
    switch (typeof value) {
      case 'string':
        word(1);
        string(value);
        break;
      case 'number':
        FLOAT[0] = value;
        word(2);
        word(FLOAT_WORDS[0]!);
        word(FLOAT_WORDS[1]!);
        break;
      case 'boolean':
        word(value ? 3 : 4);
        break;
      case 'object':
        if (value === null) word(5);
        else if (Array.isArray(value)) {
          word(6);
          word(value.length);
          for (let i = 0; i < value.length && queue.length < MAX_SAMPLED_VALUES; i++) queue.push(value[i]);
        } else {
          word(7);
          for (const key in value) {
            if (queue.length >= MAX_SAMPLED_VALUES) break;
            word(key.length);
            word(key.charCodeAt(0));
            queue.push((value as Record<string, unknown>)[key]);
          }
        }
        break;
      case 'symbol':
        word(9);
        break;
      default:
        word(8);
    }
  }
  a = Math.imul(c ^ (a >>> 18), 597399067);
  b = Math.imul(d ^ (b >>> 22), 2869860233);
  c = Math.imul(a ^ (c >>> 17), 951274213);
  d = Math.imul(b ^ (d >>> 19), 2716044179);
  a ^= b ^ c ^ d;
  state[0] = a;
  state[1] = b ^ a;
  state[2] = c ^ a;
  state[3] = d ^ a;
}

const FLOAT = new Float64Array(1);
const FLOAT_WORDS = new Uint32Array(FLOAT.buffer);

/** `value` as exactly `digits` base-36 digits (higher digits dropped). */
function base36(value: number, digits: number): string {
  let text = '';
  for (let i = 0; i < digits; i++) {
    text = DIGITS[value % 36]! + text;
    value = Math.floor(value / 36);
  }
  return text;
}
