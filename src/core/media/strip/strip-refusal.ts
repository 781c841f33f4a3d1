/**
 * The metadata strip's refusals: a file whose metadata it cannot neutralise (an index box over its limit,
 * metadata a single pass over a stream reaches too late). Their remedy is the caller's choice, sending the
 * file with its metadata (`keepMetadata: true`), which a front end names in its own words (the CLI's
 * flag): it tells these errors from others of the same code here.
 *
 * @module
 */

/** The errors the strip refused a file with. */
const refusals = new WeakSet<object>();

/** Marks `error` as a refusal of the metadata strip and returns it. */
export function metadataStripRefusal<E extends object>(error: E): E {
  refusals.add(error);
  return error;
}

/**
 * True for an error the metadata strip refused a file with, which `keepMetadata: true` avoids (an app can
 * then offer to send the file with its metadata).
 *
 * @example
 * ```ts
 * try { await sendMedia(input, options); } catch (error) { if (isMetadataStripRefusal(error)) askToKeepMetadata(); }
 * ```
 */
export function isMetadataStripRefusal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && refusals.has(error);
}
