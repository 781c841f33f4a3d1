/**
 * `happy-media decrypt`: decrypts a media blob (v2 Cobblestone-256, streaming; or `--format v1`) into a
 * file that appears only when everything verified. Output to stdout goes through a private temp file
 * first, so not even a verified prefix of a bad blob reaches stdout.
 *
 * @module
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from '../../errors.js';
import { HAPPY_MAX_ATTACHMENT_BYTES } from '../../happy.js';
import {
  createNodeDecryptStream,
  decryptFile,
  decryptFileParallel,
  decryptV1Blob,
  writeAfterCompletion,
  writeFileAllOrNothing,
} from '../../node/index.js';
import {
  addBlobOptions,
  type BlobCommandFlags,
  chooseThreads,
  inputPieces,
  parseBlobFormatFlags,
  readWholeInput,
  streamThrough,
  writeStdout,
} from '../blob-command.js';
import { optionalIntegerFlag } from '../integer-flag.js';
import { resolveKey } from '../key-source.js';
import { runAction } from '../run-action.js';
import { UsageError } from '../usage-error.js';

interface DecryptFlags extends BlobCommandFlags {
  offset?: string;
  length?: string;
}

/** Decrypts into `outPath` (see `writeFileAllOrNothing` for what it may be), all or nothing. */
async function decryptToFile(
  inPath: string,
  outPath: string,
  key: Uint8Array,
  blob: ReturnType<typeof parseBlobFormatFlags>,
  range: { offset?: number; length?: number },
  threads: number,
): Promise<void> {
  const hasRange = range.offset !== undefined || range.length !== undefined;
  if (blob.format === 'v1') {
    const plain = decryptV1Blob(await readWholeInput(inPath, HAPPY_MAX_ATTACHMENT_BYTES), key);
    const start = range.offset ?? 0;
    const end = range.length === undefined ? plain.length : start + range.length;
    if (start > plain.length || end > plain.length) {
      throw new InvalidArgumentError(
        `expected a range inside the ${plain.length}-byte plaintext for --offset/--length but received ${start}+${end - start}`,
      );
    }
    await writeFileAllOrNothing(outPath, (out) => out.write(plain.subarray(start, end)));
    return;
  }
  const options = { context: blob.context };
  if (hasRange) {
    if (inPath === '-') throw new UsageError('--offset/--length need a file IN (random access), not stdin');
    await decryptFile(inPath, outPath, key, { ...options, ...range });
    return;
  }
  if (threads > 1 && inPath !== '-') {
    // Large file → file: chunks verified and written on worker threads, still all or nothing.
    await decryptFileParallel(inPath, outPath, key, { ...options, threads });
    return;
  }
  if (inPath !== '-') {
    await decryptFile(inPath, outPath, key, options);
    return;
  }
  // stdin → file: verified as it arrives into a temp file, which becomes OUT only when all of it verified.
  await writeFileAllOrNothing(outPath, (out) =>
    streamThrough(inputPieces(inPath), createNodeDecryptStream(key, options), (bytes) => out.write(bytes)),
  );
}

/** Registers `decrypt` on the program. */
export function registerDecrypt(program: Command): void {
  addBlobOptions(program.command('decrypt'))
    .description('decrypt the media blob IN into OUT; OUT appears only when every byte verified')
    .argument('<IN>', 'blob file, or - for stdin')
    .argument('<OUT>', 'plaintext file, or - for stdout (written only after full verification)')
    .option('--offset <n>', 'first plaintext byte to write (v2: reads only the chunks needed)')
    .option('--length <m>', 'number of plaintext bytes to write')
    .addHelpText(
      'after',
      '\nWithout --ref the blob must be bound to no ref (what encrypt makes without --ref); a blob from a\nstore is bound to the ref it is stored under: pass that ref.\n\nExample:\n  happy-media decrypt --key-file blob.key clip.bin clip.mp4\n  happy-media decrypt --key-file blob.key --ref media/tz4a98xxat96iws9zmbrgj3a blobs/media/tz4a98xxat96iws9zmbrgj3a clip.mp4\n  happy-media decrypt --key-file blob.key --offset 1048576 --length 65536 clip.bin part.mp4',
    )
    .action(
      runAction(async (inPath: string, outPath: string, flags: DecryptFlags) => {
        const blob = parseBlobFormatFlags(flags);
        const range = {
          ...(flags.offset === undefined ? {} : { offset: optionalIntegerFlag(flags.offset, '--offset') }),
          ...(flags.length === undefined ? {} : { length: optionalIntegerFlag(flags.length, '--length') }),
        };
        const key = await resolveKey(flags);
        // The output is always a file first: stdout gets a verified temp file's copy.
        const threads = await chooseThreads(flags, inPath, true);
        if (outPath !== '-') {
          await decryptToFile(inPath, outPath, key, blob, range, threads);
          return;
        }
        // stdout cannot be un-written: verify everything into a private temp file, then copy it out.
        await writeAfterCompletion(
          (temp) => decryptToFile(inPath, temp, key, blob, range, threads),
          writeStdout,
        );
      }),
    );
}
