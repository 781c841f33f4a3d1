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
    const rest = (first / 26) >>> 0;
    CODES[0] = DIGIT_CODES[10 + (first - rest * 26)]!;
    digits(rest, 1, 5);
    digits(b >>> 0, 6, 6);
    digits(c >>> 0, 12, 6);
    digits(d >>> 0, 18, 6);
    return String.fromCharCode.apply(null, CODES);
  }
}

/** What the end of the input absorbs: a value no JSON event is. */
const END_OF_INPUT = Symbol('end of input');

/**
 * Absorbs a bounded, breadth-first sample of `event` into `state`: the sample's 32-bit words are
 * gathered first, then cyrb128's step runs over them in one loop with the lanes in locals, then its
 * finaliser. It runs once per event, so it has to cost a small part of parsing one. The words and their
 * order are the ones earlier versions absorbed word by word: the ids of a log mapped before stay the same
 * (`test/core/mappers/stable-ids.test.ts` holds them).
 */
function absorbEvent(state: Int32Array, event: unknown, recordId: string | undefined): void {
  const words = WORDS;
  let n = 0;
  words[n++] = recordId === undefined ? 0x45564e54 : 0x52454354;
  if (recordId !== undefined) n = stringWords(words, n, recordId);
  // No recursion: any depth costs the same. The queue is a fixed array filled from 0 by index (only
  // the first `end` slots are read, so what an event whose getter threw left behind is never read):
  // emptying it with `length = 0` let go of its storage, which every event then grew again.
  const queue = SAMPLE;
  let end = 0;
  queue[end++] = event;
  for (let at = 0; at < end; at++) {
    const value = queue[at];
    switch (typeof value) {
      case 'string':
        words[n++] = 1;
        n = stringWords(words, n, value);
        break;
      case 'number':
        FLOAT[0] = value;
        words[n++] = 2;
        words[n++] = FLOAT_WORDS[0]!;
        words[n++] = FLOAT_WORDS[1]!;
        break;
      case 'boolean':
        words[n++] = value ? 3 : 4;
        break;
      case 'object':
        if (value === null) words[n++] = 5;
        else if (Array.isArray(value)) {
          words[n++] = 6;
          words[n++] = value.length;
          for (let i = 0; i < value.length && end < MAX_SAMPLED_VALUES; i++) queue[end++] = value[i];
        } else {
          words[n++] = 7;
          for (const key in value) {
            if (end >= MAX_SAMPLED_VALUES) break;
            words[n++] = key.length;
            words[n++] = key.charCodeAt(0);
            queue[end++] = (value as Record<string, unknown>)[key];
          }
        }
        break;
      case 'symbol':
        words[n++] = 9;
        break;
      default:
        words[n++] = 8;
    }
  }
  // The event's values are not kept alive until the next event.
  queue.fill(undefined, 0, end);
  let a = state[0]!;
  let b = state[1]!;
  let c = state[2]!;
  let d = state[3]!;
  for (let i = 0; i < n; i++) {
    const k = words[i]!;
    const a0 = a;
    a = b ^ Math.imul(a0 ^ k, 597399067);
    b = c ^ Math.imul(b ^ k, 2869860233);
    c = d ^ Math.imul(c ^ k, 951274213);
    d = a ^ Math.imul(d ^ k, 2716044179);
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

/** The words of `text` (its length, then every character or its first and last {@link STRING_EDGE}) into `words` from `n`; the next free index. */
function stringWords(words: Int32Array, n: number, text: string): number {
  const length = text.length;
  words[n++] = length;
  if (length <= 2 * STRING_EDGE) {
    for (let i = 0; i < length; i++) words[n++] = text.charCodeAt(i);
    return n;
  }
  for (let i = 0; i < STRING_EDGE; i++) words[n++] = text.charCodeAt(i);
  for (let i = length - STRING_EDGE; i < length; i++) words[n++] = text.charCodeAt(i);
  return n;
}

/** The values being sampled: one array for every chain (absorbing never yields, so chains never share it at once). */
const SAMPLE: unknown[] = new Array<unknown>(MAX_SAMPLED_VALUES).fill(undefined);
/**
 * The words of the sample being absorbed, reused. The most a sample gives: the record id's tag, length
 * and edges, then per sampled value at most a string's tag, length and edges, and two words per key
 * that sampled a value.
 */
const WORDS = new Int32Array(
  2 + 2 * STRING_EDGE + MAX_SAMPLED_VALUES * (2 + 2 * STRING_EDGE) + 2 * MAX_SAMPLED_VALUES,
);

const FLOAT = new Float64Array(1);
const FLOAT_WORDS = new Uint32Array(FLOAT.buffer);

/** The character codes of an id being made (24 of them: cuid2's length). */
const CODES: number[] = new Array<number>(24).fill(0);
const DIGIT_CODES = Array.from(DIGITS, (digit) => digit.charCodeAt(0));

/**
 * The low `count` base-36 digits of `value` (an unsigned 32-bit integer) into {@link CODES} from `at`
 * (higher digits dropped). In 32-bit integer steps: `Math.floor(value / 36)` and `value % 36` on
 * doubles made this most of an id's cost.
 */
function digits(value: number, at: number, count: number): void {
  for (let i = at + count - 1; i >= at; i--) {
    const quotient = (value / 36) >>> 0;
    CODES[i] = DIGIT_CODES[value - quotient * 36]!;
    value = quotient;
  }
}
