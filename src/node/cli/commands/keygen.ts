/**
 * `happy-media keygen`: placeholder until its issue lands; it fails loudly rather than pretending.
 *
 * @module
 */
import type { Command } from 'commander';
import { HappyMediaError } from '../../../core/errors.js';
import { runAction } from '../run-action.js';

/** Registers `keygen` on the program. */
export function registerKeygen(program: Command): void {
  program
    .command('keygen')
    .description('(not implemented yet)')
    .action(
      runAction(() => {
        throw new HappyMediaError('ERR_NOT_IMPLEMENTED', 'keygen is not implemented yet');
      }),
    );
}
