/**
 * `happy-media open [--key B64 | --key-file PATH] [--variant legacy|datakey] [--raw] [FILE|-]`: reads an
 * envelope `{"t":"encrypted","c":"..."}` and prints the v2 message inside as one line of JSON. `--raw`
 * prints any JSON value without the schema check. Nothing is printed unless the record authenticates.
 *
 * @module
 */
import { type Command, Option } from 'commander';
import { openMessage, openRaw, sessionKey } from '../../../core/envelope/index.js';
// Importing the Node envelope entry also installs the node:crypto AES-256-GCM.
import { type KeyOptions, resolveKey } from '../../envelope/index.js';
import { readJsonInput } from '../../envelope/read-input.js';
import { runAction } from '../run-action.js';

interface OpenOptions extends KeyOptions {
  variant: 'legacy' | 'datakey';
  raw?: boolean;
}

/** Registers `open` on the program. */
export function registerOpen(program: Command): void {
  program
    .command('open')
    .description('decrypt an envelope {"t":"encrypted","c":"..."} and print the v2 message inside')
    .argument('[file]', 'envelope JSON, or - for stdin', '-')
    .option('--key <base64>', 'the 32-byte session key (visible in the process list: prefer --key-file)')
    .option('--key-file <path>', 'file holding the base64 key (or set HAPPY_MEDIA_KEY)')
    .addOption(
      new Option(
        '--variant <variant>',
        'legacy: NaCl secretbox under the master secret; datakey: AES-256-GCM',
      )
        .choices(['legacy', 'datakey'])
        .default('datakey'),
    )
    .option('--raw', 'print any JSON value inside, without the v2 schema check')
    .addHelpText('after', '\nExample:\n  happy-media open --key-file session.key envelope.json')
    .action(
      runAction(async (file: string, options: OpenOptions) => {
        const key = sessionKey(options.variant, await resolveKey(options));
        const envelope = await readJsonInput(file);
        const value = options.raw ? openRaw(envelope, key) : openMessage(envelope, key);
        process.stdout.write(`${JSON.stringify(value)}\n`);
      }),
    );
}
