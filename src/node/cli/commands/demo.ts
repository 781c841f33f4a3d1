/**
 * `happy-media demo`: placeholder until its issue lands; it fails loudly rather than pretending.
 *
 * @module
 */
import type { Command } from 'commander';
import { HappyMediaError } from '../../../core/errors.js';
import { runAction } from '../run-action.js';

/** Registers `demo` on the program. */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('(not implemented yet)')
    .action(
      runAction(() => {
        throw new HappyMediaError('ERR_NOT_IMPLEMENTED', 'demo is not implemented yet');
      }),
    );
}
