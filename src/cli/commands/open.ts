/**
 * `happy-media open [--key B64 | --key-file PATH] [--variant legacy|datakey] [--raw] [FILE|-]`: reads an
 * envelope `{"t":"encrypted","c":"..."}` and prints the v2 message inside as one line of JSON. `--raw`
 * prints any JSON value without the schema check. Nothing is printed unless the record authenticates.
 *
 * @module
 */
import type { Command } from 'commander';
import { openMessage, openRaw } from '../../envelope.js';
import { jsonLine } from '../json-line.js';
import { readJsonInput } from '../read-input.js';
import { runAction } from '../run-action.js';
import { addSessionKeyOptions, resolveSessionKey, type SessionKeyOptions } from '../session-key-options.js';

interface OpenOptions extends SessionKeyOptions {
  raw?: boolean;
}

/** Registers `open` on the program. */
export function registerOpen(program: Command): void {
  addSessionKeyOptions(program.command('open'))
    .description('decrypt an envelope {"t":"encrypted","c":"..."} and print the v2 message inside')
    .argument('[file]', 'envelope JSON, or - for stdin', '-')
    .option('--raw', 'print any JSON value inside, without the v2 schema check')
    .addHelpText('after', '\nExample:\n  happy-media open --key-file session.key envelope.json')
    .action(
      runAction(async (file: string, options: OpenOptions) => {
        const key = await resolveSessionKey(options);
        const envelope = await readJsonInput(file);
        const value = options.raw ? openRaw(envelope, key) : openMessage(envelope, key);
        process.stdout.write(jsonLine(value));
      }),
    );
}
