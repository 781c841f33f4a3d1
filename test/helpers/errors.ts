/**
 * The one way tests read an error code (never a message): the code of the HappyMediaError a call throws
 * or a promise rejects with. Both FAIL when nothing is thrown, so a test can never pass because an error
 * went missing; any error that is not a HappyMediaError is rethrown as is. No vitest import: the Hermes
 * suite (test/hermes/suite.ts) bundles this file too.
 */
import { type ErrorCode, HappyMediaError } from '../../src/core/errors.js';

function codeOrRethrow(error: unknown): ErrorCode {
  if (error instanceof HappyMediaError) return error.code;
  throw error;
}

/**
 * Runs `fn` and returns the code of the HappyMediaError it throws.
 *
 * @throws when `fn` returns without throwing, or throws anything but a HappyMediaError.
 */
export function codeOf(fn: () => unknown): ErrorCode {
  try {
    fn();
  } catch (error) {
    return codeOrRethrow(error);
  }
  throw new Error('expected a HappyMediaError, but nothing was thrown');
}

/**
 * Awaits `work` (a promise, or a function that throws or returns one) and returns the code of the
 * HappyMediaError it fails with.
 *
 * @throws when `work` succeeds, or fails with anything but a HappyMediaError.
 */
export async function rejectionCodeOf(work: Promise<unknown> | (() => unknown)): Promise<ErrorCode> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    return codeOrRethrow(error);
  }
  throw new Error('expected a HappyMediaError, but the call succeeded');
}

/**
 * Awaits `work` and returns the HappyMediaError it fails with (for tests that look at more than the code:
 * its message, its `cause`, whether it is retryable).
 *
 * @throws when `work` succeeds, or fails with anything but a HappyMediaError.
 */
export async function rejectionOf(work: Promise<unknown> | (() => unknown)): Promise<HappyMediaError> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (error) {
    if (error instanceof HappyMediaError) return error;
    throw error;
  }
  throw new Error('expected a HappyMediaError, but the call succeeded');
}
