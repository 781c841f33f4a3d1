/**
 * `happy-media keygen [--out PATH]`: prints a fresh random 32-byte key as standard base64 (a session
 * data key, a legacy secret or a blob key: they are all 32 random bytes). With `--out`, writes it to a
 * new file readable by its owner only (0600) instead, so it never passes through a terminal or argv.
 *
 * @module
 */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { createDataKey, toBase64 } from '../../envelope.js';
import { DiskError } from '../../errors.js';
import { runAction } from '../run-action.js';

/** Registers `keygen` on the program. */
export function registerKeygen(program: Command): void {
  program
    .command('keygen')
    .description('print a fresh random 32-byte key (standard base64)')
    .option('--out <path>', 'write the key to a new file with mode 0600 instead of printing it')
    .addHelpText(
      'after',
      '\nExample:\n  happy-media keygen --out session.key\n  happy-media seal --key-file session.key message.json',
    )
    .action(
      runAction(async (options: { out?: string }) => {
        const line = `${toBase64(createDataKey())}\n`;
        if (options.out === undefined) {
          process.stdout.write(line);
          return;
        }
        try {
          // 'wx': never overwrite an existing key.
          await writeFile(options.out, line, { mode: 0o600, flag: 'wx' });
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          throw new DiskError(
            `cannot write the key to "${options.out}": ${code === 'EEXIST' ? 'the file exists (keys are never overwritten)' : (code ?? 'write failed')}`,
            { cause: error },
          );
        }
      }),
    );
}
