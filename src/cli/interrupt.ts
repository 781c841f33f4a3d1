/**
 * Ctrl-C for a command that does work under way (an upload, a download, a long map): the first SIGINT or
 * SIGTERM aborts the work's signal with an `ERR_ABORTED` "interrupted", so what it wrote is cleaned up
 * and the command ends with its usual one-line error instead of dying mid-write.
 *
 * @module
 */
import { AbortedError } from '../errors.js';

/**
 * Runs `work` with a signal that SIGINT or SIGTERM aborts (reason: `AbortedError('interrupted')`), the
 * signal handlers registered only while it runs.
 *
 * @param work - the command's work, given the signal to pass on.
 * @param onInterrupt - what else the interrupt must end at once (e.g. an input a read waits on).
 * @returns what `work` returns.
 * @throws whatever `work` throws (an interrupted one: its `ERR_ABORTED`).
 * @example
 * ```ts
 * const result = await interruptible((signal) => sendMedia(file, { store, blobKey, signal }));
 * ```
 */
export async function interruptible<T>(
  work: (signal: AbortSignal) => Promise<T>,
  onInterrupt?: () => void,
): Promise<T> {
  const aborter = new AbortController();
  const onSignal = () => {
    aborter.abort(new AbortedError('interrupted'));
    onInterrupt?.();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await work(aborter.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
