/**
 * `happy-media encrypt`: encrypts a file or stdin into a Cobblestone-256 media blob (v2, streaming, flat
 * memory) or, with `--format v1`, into Happy's whole-buffer v1 attachment blob.
 *
 * @module
 */
import type { Command } from 'commander';
import { BlobEncryptor } from '../../../core/blob/encryptor.js';
import { V1_BLOB_MAX_PLAINTEXT_BYTES } from '../../../core/envelope/layout.js';
import { encryptV1Blob } from '../../../core/envelope/v1-blob.js';
import { UsageError } from '../../../core/errors.js';
import {
  inputPieces,
  parseContextHex,
  parseFormat,
  readWholeInput,
  writeStdout,
} from '../../blob/cli-support.js';
import { pumpEngine } from '../../blob/engine-pipe.js';
import { KEY_ENV_VARIABLE, resolveKey } from '../../envelope/key-source.js';
import '../../blob/index.js';
import { writeAll, writeFileAllOrNothing } from '../../blob/private-output.js';
import { runAction } from '../run-action.js';

interface EncryptFlags {
  key?: string;
  keyFile?: string;
  contextHex?: string;
  format?: string;
}

/** Registers `encrypt` on the program. */
export function registerEncrypt(program: Command): void {
  program
    .command('encrypt')
    .description(
      'encrypt IN into a media blob at OUT (v2: Cobblestone-256, streaming; v1: Happy attachment blob)',
    )
    .argument('<IN>', 'plaintext file, or - for stdin')
    .argument('<OUT>', 'blob to write, or - for stdout; a file appears only when complete')
    .option(
      '--key <b64>',
      `32-byte blob key, base64 (prefer --key-file or $${KEY_ENV_VARIABLE}: argv is visible to other users)`,
    )
    .option('--key-file <path>', 'file holding the key (base64 text or 32 raw bytes)')
    .option('--context-hex <hex>', 'context string in hex (v2 only; default: the happy-media blob context)')
    .option('--format <v2|v1>', 'blob format', 'v2')
    .addHelpText(
      'after',
      '\nExample:\n  happy-media encrypt --key-file blob.key clip.mp4 clip.bin\n  HAPPY_MEDIA_KEY=... happy-media encrypt - - < in > out',
    )
    .action(
      runAction(async (inPath: string, outPath: string, flags: EncryptFlags) => {
        const format = parseFormat(flags.format);
        const context = parseContextHex(flags.contextHex);
        if (format === 'v1' && context !== undefined)
          throw new UsageError('--context-hex applies to --format v2 only');
        const key = await resolveKey(flags);

        if (format === 'v1') {
          const blob = encryptV1Blob(await readWholeInput(inPath, V1_BLOB_MAX_PLAINTEXT_BYTES), key);
          if (outPath === '-') await writeStdout(blob);
          else await writeFileAllOrNothing(outPath, (handle) => writeAll(handle, blob));
          return;
        }

        const encryptor = new BlobEncryptor(key, context === undefined ? {} : { context });
        if (outPath === '-') {
          await writeStdout(await encryptor.start());
          await pumpEngine(inputPieces(inPath), encryptor, writeStdout);
          return;
        }
        await writeFileAllOrNothing(outPath, async (handle) => {
          await writeAll(handle, await encryptor.start());
          await pumpEngine(inputPieces(inPath), encryptor, (bytes) => writeAll(handle, bytes));
        });
      }),
    );
}
