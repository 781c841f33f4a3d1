/** Error helpers shared by tests that pin error codes (not messages). */
import { HappyMediaError } from '../../src/core/errors.js';

/** Runs `fn`: the code of the HappyMediaError it throws, or `NO_ERROR`; any other error is rethrown. */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof HappyMediaError) return error.code;
    throw error;
  }
  return 'NO_ERROR';
}
