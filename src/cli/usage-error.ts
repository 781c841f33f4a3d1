/**
 * Bad command-line usage, the CLI's own error (`ERR_USAGE`, exit status 2): a flag missing, two that
 * cannot go together, a key or secret file that cannot be used. The library never throws it: where a
 * library error is the user's to fix on the command line, the CLI turns it into this one (or adds a hint
 * with `withHint`, run-action.ts).
 *
 * @module
 */
import { type errors, HappyMediaError } from '../node/index.js';

/** Bad command-line usage: the CLI exits with status 2. */
export class UsageError extends HappyMediaError {
  declare readonly code: 'ERR_USAGE';

  constructor(message: string, options?: errors.HappyMediaErrorOptions) {
    super('ERR_USAGE', message, options);
  }
}
