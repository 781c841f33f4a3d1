/**
 * `happy-media decrypt`: placeholder until its issue lands; it fails loudly rather than pretending.
 *
 * @module
 */
import type { Command } from 'commander';
import { HappyMediaError } from '../../../core/errors.js';
import { runAction } from '../run-action.js';

/** Registers `decrypt` on the program. */
export function registerDecrypt(program: Command): void {
  program
    .command('decrypt')
    .description('(not implemented yet)')
    .action(
      runAction(() => {
        throw new HappyMediaError('ERR_NOT_IMPLEMENTED', 'decrypt is not implemented yet');
      }),
    );
}
