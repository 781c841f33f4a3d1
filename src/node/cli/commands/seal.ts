/**
 * `happy-media seal`: placeholder until its issue lands; it fails loudly rather than pretending.
 *
 * @module
 */
import type { Command } from 'commander';
import { HappyMediaError } from '../../../core/errors.js';
import { runAction } from '../run-action.js';

/** Registers `seal` on the program. */
export function registerSeal(program: Command): void {
  program
    .command('seal')
    .description('(not implemented yet)')
    .action(
      runAction(() => {
        throw new HappyMediaError('ERR_NOT_IMPLEMENTED', 'seal is not implemented yet');
      }),
    );
}
