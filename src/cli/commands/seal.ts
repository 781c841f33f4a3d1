/**
 * `happy-media seal [--key B64 | --key-file PATH] [--variant legacy|datakey] [--raw] [FILE|-]`: reads one
 * Session Protocol v2 message (JSON) and prints its envelope `{"t":"encrypted","c":"..."}`. `--raw` seals
 * any JSON value without the schema check. The key may also come from `HAPPY_MEDIA_KEY`.
 *
 * @module
 */
import type { Command } from 'commander';
import { sealMessage, sealRaw } from '../../envelope.js';
import type { SessionMessage } from '../../index.js';
import { readJsonInput } from '../read-input.js';
import { runAction } from '../run-action.js';
import { addSessionKeyOptions, resolveSessionKey, type SessionKeyOptions } from '../session-key-options.js';

interface SealOptions extends SessionKeyOptions {
  raw?: boolean;
}

/** Registers `seal` on the program. */
export function registerSeal(program: Command): void {
  addSessionKeyOptions(program.command('seal'))
    .description('encrypt one v2 message (JSON) into the envelope Happy stores: {"t":"encrypted","c":"..."}')
    .argument('[file]', 'JSON input, or - for stdin', '-')
    .option('--raw', 'seal any JSON value, without the v2 schema check')
    .addHelpText(
      'after',
      '\nExample:\n  happy-media keygen --out session.key\n  echo \'{"id":"m1","time":1,"role":"user","type":"text","text":"hi"}\' | happy-media seal --key-file session.key',
    )
    .action(
      runAction(async (file: string, options: SealOptions) => {
        const key = await resolveSessionKey(options);
        const value = await readJsonInput(file);
        const envelope = options.raw ? sealRaw(value, key) : sealMessage(value as SessionMessage, key);
        process.stdout.write(`${JSON.stringify(envelope)}\n`);
      }),
    );
}
