/**
 * The clock seam of the mappers: where message times come from when the provider gives none.
 *
 * @module
 */

/** A source of Unix times in milliseconds. */
export interface MapperClock {
  /** The current time, Unix ms. */
  now(): number;
}

/**
 * The system clock (`Date.now()`).
 *
 * @example
 * ```ts
 * createAgentMapper('claude', { clock: systemClock });
 * ```
 */
export const systemClock: MapperClock = { now: () => Date.now() };
