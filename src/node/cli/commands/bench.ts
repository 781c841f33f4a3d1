/**
 * `happy-media bench`: placeholder until its issue lands; it fails loudly rather than pretending.
 *
 * @module
 */
import type { Command } from 'commander';
import { HappyMediaError } from '../../../core/errors.js';
import { runAction } from '../run-action.js';

/** Registers `bench` on the program. */
export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('(not implemented yet)')
    .action(
      runAction(() => {
        throw new HappyMediaError('ERR_NOT_IMPLEMENTED', 'bench is not implemented yet');
      }),
    );
}
