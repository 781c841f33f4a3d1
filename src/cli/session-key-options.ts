/**
 * The session-key options `seal` and `open` share: `--key`, `--key-file` (or `HAPPY_MEDIA_KEY`) and
 * `--variant legacy|datakey`.
 *
 * @module
 */
import type { Command } from 'commander';
// The Node entry also installs the node:crypto AES-256-GCM for the dataKey variant.
import { type SessionKey, sessionKey } from '../envelope.js';
import { type KeyOptions, resolveKey } from './key-source.js';

/** Parsed session-key options. */
export interface SessionKeyOptions extends KeyOptions {
  /** Envelope variant the key is for. */
  variant: 'legacy' | 'datakey';
}

/** Adds `--key`, `--key-file` and `--variant` (default `datakey`) to `command`. */
export function addSessionKeyOptions(command: Command): Command {
  return command
    .option('--key <base64>', 'the 32-byte session key (visible in the process list: prefer --key-file)')
    .option('--key-file <path>', 'file holding the base64 key (or set HAPPY_MEDIA_KEY)')
    .addOption(
      command
        .createOption(
          '--variant <variant>',
          'legacy: NaCl secretbox under the master secret; datakey: AES-256-GCM',
        )
        .choices(['legacy', 'datakey'])
        .default('datakey'),
    );
}

/**
 * The session key the options name, for their variant.
 *
 * @throws {UsageError} `ERR_USAGE` for a missing, doubled or malformed key.
 * @throws {DiskError} `ERR_DISK` when the key file cannot be read.
 */
export async function resolveSessionKey(options: SessionKeyOptions): Promise<SessionKey> {
  return sessionKey(options.variant, await resolveKey(options));
}
