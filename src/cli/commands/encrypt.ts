/**
 * `happy-media encrypt`: encrypts a file or stdin into a Cobblestone-256 media blob (v2, streaming, flat
 * memory) or, with `--format v1`, into Happy's whole-buffer v1 attachment blob.
 *
 * Input that has no end of its own is bounded: stdin is read up to `--max-bytes` (default
 * {@link DEFAULT_STREAM_MAX_BYTES}), and a path that is not a regular file (`/dev/zero`, a FIFO) is refused
 * unless `--max-bytes` is given. A regular file is read whole unless `--max-bytes` says otherwise.
 *
 * @module
 */
import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { V1_BLOB_MAX_PLAINTEXT_BYTES } from '../../happy.js';
import {
  createNodeEncryptStream,
  encryptFile,
  encryptFileParallel,
  encryptV1Blob,
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
import { diskError, NOT_A_REGULAR_FILE, unreadableInput } from '../file-errors.js';
import { optionalIntegerFlag } from '../integer-flag.js';
import { resolveKey } from '../key-source.js';
import { runAction } from '../run-action.js';

/** Most plaintext read from stdin without `--max-bytes`: 4 GiB (the media server's default upload limit). */
export const DEFAULT_STREAM_MAX_BYTES = 4 * 1024 ** 3;

interface EncryptFlags extends BlobCommandFlags {
  maxBytes?: string;
}

/**
 * The plaintext limit for `inPath`: `--max-bytes`, else the stream default for stdin, else none for a
 * regular file.
 *
 * @throws ERR_UNREADABLE_INPUT for a device, pipe or directory without `--max-bytes`; ERR_DISK when
 *   `inPath` cannot be examined.
 */
async function plaintextLimit(inPath: string, maxBytes: number | undefined): Promise<number | undefined> {
  if (inPath === '-') return maxBytes ?? DEFAULT_STREAM_MAX_BYTES;
  let regular: boolean;
  try {
    regular = (await stat(inPath)).isFile();
  } catch (cause) {
    throw diskError('read', cause, inPath);
  }
  if (regular || maxBytes !== undefined) return maxBytes;
  throw unreadableInput(
    inPath,
    `${NOT_A_REGULAR_FILE}, which may never end; pass --max-bytes N to read at most N bytes from it, or redirect it to stdin`,
  );
}

/** Registers `encrypt` on the program. */
export function registerEncrypt(program: Command): void {
  addBlobOptions(program.command('encrypt'))
    .description(
      'encrypt IN into a media blob at OUT (v2: Cobblestone-256, streaming; v1: Happy attachment blob)',
    )
    .argument('<IN>', 'plaintext file, or - for stdin')
    .argument('<OUT>', 'blob to write, or - for stdout; a file appears only when complete')
    .option(
      '--max-bytes <n>',
      `most plaintext bytes to read (default for stdin ${DEFAULT_STREAM_MAX_BYTES}; needed for a device or pipe)`,
    )
    .addHelpText(
      'after',
      '\nWithout --ref the blob is bound to no ref: a standalone file that decrypt reads without --ref and\nno store plays. With --ref REF it is bound to REF, as send makes blobs: store it under REF.\n\nExample:\n  happy-media encrypt --key-file blob.key clip.mp4 clip.bin\n  HAPPY_MEDIA_KEY=... happy-media encrypt - - < in > out',
    )
    .action(
      runAction(async (inPath: string, outPath: string, flags: EncryptFlags) => {
        const blob = parseBlobFormatFlags(flags);
        const maxBytes = optionalIntegerFlag(flags.maxBytes, '--max-bytes');
        const key = await resolveKey(flags);
        const limit = await plaintextLimit(inPath, maxBytes);

        if (blob.format === 'v1') {
          const most = Math.min(limit ?? V1_BLOB_MAX_PLAINTEXT_BYTES, V1_BLOB_MAX_PLAINTEXT_BYTES);
          const sealed = encryptV1Blob(await readWholeInput(inPath, most), key);
          if (outPath === '-') await writeStdout(sealed);
          else await writeFileAllOrNothing(outPath, (out) => out.write(sealed));
          return;
        }

        const threads = await chooseThreads(flags, inPath, outPath !== '-');
        if (threads > 1) {
          // Large file → file: chunks sealed on worker threads, byte-for-byte what the engine writes.
          await encryptFileParallel(inPath, outPath, key, { threads, context: blob.context });
          return;
        }
        const options = {
          context: blob.context,
          ...(limit === undefined ? {} : { maxPlaintextBytes: limit }),
        };
        if (outPath === '-') {
          await streamThrough(inputPieces(inPath), createNodeEncryptStream(key, options), writeStdout);
        } else if (inPath === '-') {
          // stdin → file: sealed as it arrives into a temp file, which becomes OUT only when complete.
          await writeFileAllOrNothing(outPath, (out) =>
            streamThrough(inputPieces(inPath), createNodeEncryptStream(key, options), (bytes) =>
              out.write(bytes),
            ),
          );
        } else {
          await encryptFile(inPath, outPath, key, options);
        }
      }),
    );
}
