/**
 * Waiting for every call of a batch before reacting to a failure, for code that must run on Hermes.
 *
 * @module
 */

/**
 * Resolves once every step has settled; then rejects with the failure of the first failed step in
 * order, if any. So no step is still running (and writing into a caller's array) when the caller
 * reacts to a failure, e.g. by wiping that array. `Promise.allSettled`'s guarantee, without it: the
 * Hermes VM of React Native's tooling has no `Promise.allSettled`. Steps that are not promises count as
 * already settled.
 */
export async function settleAllThenThrow(steps: readonly unknown[]): Promise<void> {
  const failures = await Promise.all(
    steps.map((step) =>
      Promise.resolve(step).then(
        () => undefined,
        (reason: unknown) => ({ reason }),
      ),
    ),
  );
  for (const failure of failures) if (failure !== undefined) throw failure.reason;
}
