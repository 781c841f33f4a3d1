/**
 * Handlers that run synchronously until something really waits. A provider's handler returns nothing
 * when it wrote everything at once, and a promise only from the point where it awaits an upload
 * ({@link SessionWriter.media}): the common event then costs no promise and no microtask hop, and the
 * rest of an event that does wait still runs after the upload, in order.
 *
 * @module
 */

/** What a handler step returns: nothing when it is done, a promise when it waits (for an upload). */
export type Step = void | Promise<void>;

/**
 * Runs `next` after `step`: at once when `step` is done, else once it resolved.
 *
 * @example
 * ```ts
 * return afterStep(writer.media(data, info, place), () => writer.endCall(key, place));
 * ```
 */
export function afterStep(step: Step | Promise<unknown>, next: () => Step): Step {
  if (step === undefined) return next();
  return step.then(next);
}

/**
 * Runs `each` over `items` in order, synchronously while each step is done; from the first step that
 * waits on, the remaining items run once it resolved.
 *
 * @example
 * ```ts
 * return eachStep(images, (image) => writer.media(image, { role: 'agent' }, place));
 * ```
 */
export function eachStep<T>(items: readonly T[], each: (item: T) => Step | Promise<unknown>, from = 0): Step {
  for (let i = from; i < items.length; i++) {
    const step = each(items[i]!);
    if (step !== undefined) return step.then(() => eachStep(items, each, i + 1));
  }
}

/**
 * An upload's promise as a step (its result is the writer's business, not the handler's).
 *
 * @example
 * ```ts
 * return uploadStep(writer.media(data, { role: 'agent' }, place));
 * ```
 */
export function uploadStep(upload: Promise<unknown>): Promise<void> {
  return upload.then(done);
}

function done(): void {}
