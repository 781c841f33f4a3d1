/**
 * `happy-media encrypt`: placeholder until its issue lands; it fails loudly rather than pretending.
 *
 * @module
 */
import type { Command } from 'commander';
import { HappyMediaError } from '../../../core/errors.js';
import { runAction } from '../run-action.js';

/** Registers `encrypt` on the program. */
export function registerEncrypt(program: Command): void {
  program
    .command('encrypt')
    .description('(not implemented yet)')
    .action(
      runAction(() => {
        throw new HappyMediaError('ERR_NOT_IMPLEMENTED', 'encrypt is not implemented yet');
      }),
    );
}
