/**
 * Bounded memory for what a mapper remembers about the events it has read: a log may hold millions of
 * lines, and a mapper's memory has to stay flat in its length. Each structure here keeps the most recent
 * entries (between `capacity` and twice that many) in two generations: when the young one is full it
 * becomes the old one and the previous old one is dropped, so every operation is O(1) and nothing is
 * scanned. What the mappers remember this way (uuids seen, calls that ended, requests unanswered) is
 * looked up close to where it was written; an entry forgotten is read as never seen, which each user
 * of these structures handles as it handles an unknown id.
 *
 * @module
 */

/** How many entries a generation holds by default: between 32,768 and 65,536 are remembered. */
export const RECENT_CAPACITY = 32_768;

/** A map that remembers its most recent entries (see the module comment). */
export class RecentMap<K, V> {
  #young = new Map<K, V>();
  #old = new Map<K, V>();
  readonly #capacity: number;

  constructor(capacity = RECENT_CAPACITY) {
    this.#capacity = capacity;
  }

  get(key: K): V | undefined {
    const young = this.#young.get(key);
    return young !== undefined || this.#old.size === 0 ? young : this.#old.get(key);
  }

  has(key: K): boolean {
    return this.#young.has(key) || (this.#old.size > 0 && this.#old.has(key));
  }

  set(key: K, value: V): this {
    const young = this.#young;
    const size = young.size;
    young.set(key, value);
    // A key new to the young generation leaves the old one, and may fill the young one.
    if (young.size !== size) {
      if (this.#old.size > 0) this.#old.delete(key);
      if (young.size >= this.#capacity) {
        this.#old = young;
        this.#young = new Map();
      }
    }
    return this;
  }

  delete(key: K): boolean {
    const young = this.#young.delete(key);
    return this.#old.delete(key) || young;
  }

  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** Every entry, oldest generation first. */
  *entries(): IterableIterator<[K, V]> {
    yield* this.#old;
    yield* this.#young;
  }

  /** Every value, oldest generation first. */
  *values(): IterableIterator<V> {
    yield* this.#old.values();
    yield* this.#young.values();
  }

  clear(): void {
    this.#young.clear();
    this.#old.clear();
  }
}

/** A set that remembers its most recent members (see the module comment). */
export class RecentSet<T> {
  readonly #map: RecentMap<T, true>;

  constructor(capacity = RECENT_CAPACITY) {
    this.#map = new RecentMap(capacity);
  }

  has(value: T): boolean {
    return this.#map.has(value);
  }

  add(value: T): this {
    this.#map.set(value, true);
    return this;
  }

  delete(value: T): boolean {
    return this.#map.delete(value);
  }

  get size(): number {
    return this.#map.size;
  }
}

/** Bits of an {@link IdFilter}'s first filter: 2^19 (64 KiB). */
const FIRST_FILTER_BITS = 1 << 19;
/** Bits of its largest filter: 2^25 (4 MiB); the filters together stay under 8 MiB. */
const LARGEST_FILTER_BITS = 1 << 25;
/** Bits set per id. */
const HASHES = 5;

/** One Bloom filter of a power-of-two number of bits. */
interface Filter {
  bits: Int32Array;
  mask: number;
  count: number;
}

/**
 * Every id a stream has used, in bounded memory: a Bloom filter (five hashes of each id) that starts
 * at 64 KiB and adds a filter twice as large whenever the newest holds an id per 12 bits (about 0.5 %
 * false positives each), up to one of 4 MiB (the filters hold 5.5 million ids so, in 8 MiB; more still
 * go in the last one, less precisely). `mayHave` is never false for an id that was added; it is
 * sometimes true for one that was not, which costs the writer a fresh id where it could have kept the
 * one it was offered, never a repeated id.
 */
export class IdFilter {
  readonly #filters: Filter[] = [];

  add(id: string): void {
    let filter = this.#filters.at(-1);
    if (
      filter === undefined ||
      (filter.count * 12 >= filter.mask + 1 && filter.mask + 1 < LARGEST_FILTER_BITS)
    ) {
      filter = newFilter(filter === undefined ? FIRST_FILTER_BITS : (filter.mask + 1) * 2);
      this.#filters.push(filter);
    }
    hashId(id);
    const h1 = hash1;
    const h2 = hash2;
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) & filter.mask;
      filter.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
    filter.count += 1;
  }

  mayHave(id: string): boolean {
    hashId(id);
    const h1 = hash1;
    const h2 = hash2;
    search: for (const filter of this.#filters) {
      for (let i = 0; i < HASHES; i++) {
        const bit = (h1 + i * h2) & filter.mask;
        if ((filter.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) continue search;
      }
      return true;
    }
    return false;
  }
}

function newFilter(bits: number): Filter {
  return { bits: new Int32Array(bits >>> 5), mask: bits - 1, count: 0 };
}

/**
 * The last id hashed and its two hashes: a writer asks about the same id several times in a row (is it
 * a used message id, turn id, callId? then it adds it), so it is hashed once for all of them.
 */
let lastHashed: string | undefined;
let hash1 = 0;
let hash2 = 0;

/** Sets {@link hash1} and {@link hash2} to two independent 32-bit hashes of `text` (FNV-1a and a multiplicative one, the second odd). */
function hashId(text: string): void {
  if (text === lastHashed) return;
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995) ^ (b >>> 15);
  }
  hash1 = a >>> 0;
  hash2 = (b | 1) >>> 0;
  lastHashed = text;
}
