/**
 * Events a mapper holds until what they refer to arrives (a tool result before its call, a subagent's
 * line before the line it continues), in bounded memory: a log may hold results whose call never comes,
 * and holding all of them to the end grows with the log. Past a number of items or of (approximate)
 * bytes, the oldest held item is let go: the mapper reads it then as it would at the end of the input
 * (what never came is counted), so memory stays flat and nothing is dropped silently.
 *
 * @module
 */
import { isJsonObject } from './provider-json.js';

/** Most items held at once by default. */
export const MAX_HELD_ITEMS = 4096;
/** Most (approximate) bytes held at once by default: 64 MiB. */
export const MAX_HELD_BYTES = 64 * 1024 * 1024;

/** Values sampled by {@link approximateJsonSize}. */
const SIZE_SAMPLE = 64;

/**
 * About how many bytes a parsed JSON value holds, without serialising it: 16 per value plus 2 per
 * character of its strings, over its first {@link SIZE_SAMPLE} values breadth first (where a provider
 * event keeps its bulk: a tool result's text, an image's base64).
 */
export function approximateJsonSize(root: unknown): number {
  const queue: unknown[] = [root];
  let size = 0;
  for (let at = 0; at < queue.length; at++) {
    const value = queue[at];
    size += 16;
    if (typeof value === 'string') size += 2 * value.length;
    else if (Array.isArray(value)) {
      for (let i = 0; i < value.length && queue.length < SIZE_SAMPLE; i++) queue.push(value[i]);
    } else if (isJsonObject(value)) {
      for (const key in value) {
        if (queue.length >= SIZE_SAMPLE) break;
        queue.push(value[key]);
      }
    }
  }
  return size;
}

interface Held<T> {
  item: T;
  size: number;
  order: number;
}

/** Items held by the key they wait for, oldest let go first (see the module comment). */
export class WaitingRoom<T> {
  readonly #queues = new Map<string, Held<T>[]>();
  /** Arrival order → key, for the oldest item. */
  readonly #arrivals = new Map<number, string>();
  readonly #maxItems: number;
  readonly #maxBytes: number;
  #next = 0;
  #bytes = 0;

  constructor(limits: { maxItems?: number; maxBytes?: number } = {}) {
    this.#maxItems = limits.maxItems ?? MAX_HELD_ITEMS;
    this.#maxBytes = limits.maxBytes ?? MAX_HELD_BYTES;
  }

  /** Keys with something waiting. */
  get size(): number {
    return this.#queues.size;
  }

  /**
   * Holds `item` until `key` is released; returns the items let go to make room (oldest first, possibly
   * `item` itself when it alone is over the byte limit), for the caller to read as at the end.
   */
  hold(key: string, item: T, size: number): T[] {
    const held: Held<T> = { item, size, order: this.#next++ };
    const queue = this.#queues.get(key);
    if (queue === undefined) this.#queues.set(key, [held]);
    else queue.push(held);
    this.#arrivals.set(held.order, key);
    this.#bytes += size;
    const letGo: T[] = [];
    while (
      this.#arrivals.size > this.#maxItems ||
      (this.#bytes > this.#maxBytes && this.#arrivals.size > 0)
    ) {
      const oldestKey = this.#arrivals.values().next().value!;
      const oldest = this.#queues.get(oldestKey)!;
      // Within a key, items are in arrival order: the oldest item overall is first in its queue.
      const first = oldest.shift()!;
      if (oldest.length === 0) this.#queues.delete(oldestKey);
      letGo.push(this.#forget(first));
    }
    return letGo;
  }

  /** Everything waiting for `key`, in arrival order (none: an empty list). */
  release(key: string): T[] {
    const queue = this.#queues.get(key);
    if (queue === undefined) return [];
    this.#queues.delete(key);
    return queue.map((held) => this.#forget(held));
  }

  /** What waits for the key that began waiting first, with the key (undefined when nothing waits). */
  releaseFirst(): T[] | undefined {
    const first = this.#queues.keys().next();
    return first.done ? undefined : this.release(first.value);
  }

  /** Everything held, by key in the order keys began waiting. */
  releaseAll(): T[] {
    const all: T[] = [];
    for (const key of [...this.#queues.keys()]) all.push(...this.release(key));
    return all;
  }

  /**
   * Lets `held` go and returns its item, and the room keeps no reference to it. V8 may allocate the
   * room's records in the old generation from the start (allocation-site pretenuring: they often outlive
   * a young collection), and an old record is found dead only by a full collection: were it to keep
   * pointing at a released event, that event and everything in it would be copied and promoted by every
   * young collection until then. On Happy's recorded Claude sessions, in the processes where V8 made that
   * choice, the old generation grew to ~227 MB instead of ~80–104 MB and mapping took 1.3–1.4 times as
   * long (docs/performance.md).
   */
  #forget(held: Held<T>): T {
    this.#arrivals.delete(held.order);
    this.#bytes -= held.size;
    const item = held.item;
    (held as { item: T | undefined }).item = undefined;
    return item;
  }
}
