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
import {
  addBlobOptions,
  type BlobCommandFlags,
  chooseThreads,
  inputPieces,
  parseBlobFormatFlags,
  readWholeInput,
  writeStdout,
} from '../../blob/cli-support.js';
import { pumpEngine } from '../../blob/engine-pipe.js';
import { resolveKey } from '../../envelope/key-source.js';
import '../../blob/index.js';
import { encryptFileParallel } from '../../blob/parallel-files.js';
import { writeFileAllOrNothing } from '../../fs/atomic-file.js';
import { runAction } from '../run-action.js';

/** Registers `encrypt` on the program. */
export function registerEncrypt(program: Command): void {
  addBlobOptions(program.command('encrypt'))
    .description(
      'encrypt IN into a media blob at OUT (v2: Cobblestone-256, streaming; v1: Happy attachment blob)',
    )
    .argument('<IN>', 'plaintext file, or - for stdin')
    .argument('<OUT>', 'blob to write, or - for stdout; a file appears only when complete')
    .addHelpText(
      'after',
      '\nExample:\n  happy-media encrypt --key-file blob.key clip.mp4 clip.bin\n  HAPPY_MEDIA_KEY=... happy-media encrypt - - < in > out',
    )
    .action(
      runAction(async (inPath: string, outPath: string, flags: BlobCommandFlags) => {
        const { format, context } = parseBlobFormatFlags(flags);
        const key = await resolveKey(flags);

        if (format === 'v1') {
          const blob = encryptV1Blob(await readWholeInput(inPath, V1_BLOB_MAX_PLAINTEXT_BYTES), key);
          if (outPath === '-') await writeStdout(blob);
          else await writeFileAllOrNothing(outPath, (out) => out.write(blob));
          return;
        }

        const threads = await chooseThreads(flags, inPath, outPath !== '-');
        if (threads > 1) {
          // Large file → file: chunks sealed on worker threads, byte-for-byte what the engine writes.
          await encryptFileParallel(inPath, outPath, key, {
            threads,
            ...(context === undefined ? {} : { context }),
          });
          return;
        }
        const encryptor = new BlobEncryptor(key, context === undefined ? {} : { context });
        if (outPath === '-') {
          await writeStdout(await encryptor.start());
          await pumpEngine(inputPieces(inPath), encryptor, writeStdout);
          return;
        }
        await writeFileAllOrNothing(outPath, async (out) => {
          await out.write(await encryptor.start());
          await pumpEngine(inputPieces(inPath), encryptor, (bytes) => out.write(bytes));
        });
      }),
    );
}
