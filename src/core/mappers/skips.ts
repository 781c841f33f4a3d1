/**
 * Counted skips: what a mapper read but did not turn into a message, by reason. A mapper never throws
 * on provider input it does not understand; it counts it here (and tells `onSkip`, for logs), so a
 * caller can tell "nothing was lost" (only `not-displayed`) from "something was not understood".
 *
 * @module
 */

/**
 * Why an input was skipped. Stable strings: tests and logs branch on them.
 *
 * - `unknown-event`: a type or shape the mapper does not know (a newer provider, a foreign line).
 * - `malformed-event`: a known type with missing or wrongly typed fields.
 * - `not-displayed`: known and deliberately not part of the transcript (usage, init, summaries, progress).
 * - `duplicate`: the provider wrote it twice; the first copy was mapped.
 * - `unknown-call`: refers to a tool call that was never started (or has already ended).
 * - `unknown-parent`: names a spawning tool call that was never started; the message was written without `parentId`.
 * - `unmatched-permission`: a permission request or answer without its call or request.
 * - `out-of-order`: a turn boundary the stream state does not allow (the end of a turn that is not open).
 * - `unsupported-content`: a content block v2 has no message for (an image by URL, a server-side block).
 * - `invalid-media`: media bytes that cannot be decoded (bad base64); a `service` message says so.
 * - `media-too-large`: media over `maxMediaBytes`; a `service` message says so.
 * - `media-not-uploaded`: media while no `media` handler is configured; a `service` message says so.
 * - `media-upload-failed`: the `media` handler failed; a `service` message says so.
 * - `unreadable`: input that cannot be read at all: a JSONL line that is not JSON or is too long, a
 *   stored record that does not decrypt.
 */
export type SkipReason =
  | 'unknown-event'
  | 'malformed-event'
  | 'not-displayed'
  | 'duplicate'
  | 'unknown-call'
  | 'unknown-parent'
  | 'unmatched-permission'
  | 'out-of-order'
  | 'unsupported-content'
  | 'invalid-media'
  | 'media-too-large'
  | 'media-not-uploaded'
  | 'media-upload-failed'
  | 'unreadable';

/** Every {@link SkipReason}, in a fixed order (for reports). */
export const SKIP_REASONS: readonly SkipReason[] = [
  'unknown-event',
  'malformed-event',
  'not-displayed',
  'duplicate',
  'unknown-call',
  'unknown-parent',
  'unmatched-permission',
  'out-of-order',
  'unsupported-content',
  'invalid-media',
  'media-too-large',
  'media-not-uploaded',
  'media-upload-failed',
  'unreadable',
];

/** One skip, as told to `onSkip`. */
export interface MapperSkip {
  reason: SkipReason;
  /** What was skipped, for people: a type name or a short description, never message text or bytes. */
  detail: string;
}

/** Skip counts: the total and one count per reason that occurred. */
export interface SkipCounts {
  total: number;
  byReason: Partial<Record<SkipReason, number>>;
}

/**
 * Counts skips by reason and forwards each to an optional listener.
 *
 * @example
 * ```ts
 * const skips = new SkipCounter((skip) => console.warn(skip.reason, skip.detail));
 * skips.skip('unknown-event', 'type "foo"');
 * skips.counts(); // { total: 1, byReason: { 'unknown-event': 1 } }
 * ```
 */
export class SkipCounter {
  readonly #byReason = new Map<SkipReason, number>();
  #total = 0;
  readonly #listener: ((skip: MapperSkip) => void) | undefined;

  constructor(listener?: (skip: MapperSkip) => void) {
    this.#listener = listener;
  }

  /** Counts one skip. */
  skip(reason: SkipReason, detail: string): void {
    this.#byReason.set(reason, (this.#byReason.get(reason) ?? 0) + 1);
    this.#total += 1;
    this.#listener?.({ reason, detail });
  }

  /** How many skips had this reason. */
  count(reason: SkipReason): number {
    return this.#byReason.get(reason) ?? 0;
  }

  /** A snapshot of the counts. */
  counts(): SkipCounts {
    const byReason: Partial<Record<SkipReason, number>> = {};
    for (const reason of SKIP_REASONS) {
      const count = this.#byReason.get(reason);
      if (count !== undefined) byReason[reason] = count;
    }
    return { total: this.#total, byReason };
  }
}
