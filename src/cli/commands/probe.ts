/**
 * `happy-media probe FILE [FILE...]`: one JSON line per file with what it would be sent as.
 *
 * Every file is probed even when an earlier one fails; a file that cannot be read prints
 * `happy-media: ERR_UNREADABLE_INPUT: …` on stderr and makes the exit status 1 at the end. Content that
 * is not what it claims is not a failure: it prints as a `file` with a `warning`.
 *
 * `happy-media probe --version` prints which ffprobe and ffmpeg are used (where each comes from, its path
 * and its version line) and exits 1 when one cannot be run.
 *
 * @module
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from '../../errors.js';
import { ffmpegAvailability, type ProbeOptions, probeMedia } from '../../node/index.js';
import { parseIntegerFlag } from '../integer-flag.js';
import { reportCliError, runAction } from '../run-action.js';
import { UsageError } from '../usage-error.js';

/** A commander parser for a positive integer flag. */
function positiveInteger(name: string) {
  return (value: string): number => parseIntegerFlag(value, name, { min: 1 });
}

/** Registers `probe` on the program. */
export function registerProbe(program: Command): void {
  program
    .command('probe')
    .description('print kind, MIME type, size, dimensions, duration and thumbhash of each file (JSON lines)')
    .argument('[files...]', 'files to probe')
    .option('--version', 'print which ffprobe and ffmpeg are used (source, path, version) and exit')
    .option(
      '--timeout <ms>',
      'kill ffprobe/ffmpeg after this many milliseconds',
      positiveInteger('--timeout'),
    )
    .option('--max-pixels <n>', 'largest image decoded, in pixels', positiveInteger('--max-pixels'))
    .addHelpText(
      'after',
      '\nExample:\n  $ happy-media probe IMG_0001.HEIC clip.mp4 notes.txt\n' +
        '  {"kind":"photo","mimeType":"image/heic","size":1313423,"name":"IMG_0001.HEIC","width":3024,"height":4032,"thumbhash":"…"}\n\n' +
        'Exit status 0 unless a file could not be read (1). ffprobe/ffmpeg come from FFPROBE_PATH/FFMPEG_PATH,\n' +
        'else the PATH, else the copies bundled by the optional dependencies (see: happy-media probe --version).',
    )
    .action(
      runAction(
        async (files: string[], flags: { timeout?: number; maxPixels?: number; version?: boolean }) => {
          const options: ProbeOptions = {};
          if (flags.timeout !== undefined) options.probeTimeoutMs = flags.timeout;
          if (flags.version) {
            const tools = await ffmpegAvailability(options);
            for (const [name, t] of Object.entries(tools)) {
              process.stdout.write(
                `${name}: ${t.source} ${t.path}: ${t.available ? t.version : `not usable: ${t.error}`}\n`,
              );
              if (!t.available) process.exitCode = 1;
            }
            return;
          }
          if (files.length === 0) throw new UsageError('missing argument: the files to probe (or --version)');
          if (flags.maxPixels !== undefined) options.maxInputPixels = flags.maxPixels;
          let failed = false;
          for (const file of files) {
            try {
              const probe = await probeMedia(file, options);
              process.stdout.write(`${JSON.stringify(probe)}\n`);
            } catch (error) {
              if (error instanceof InvalidArgumentError) throw error;
              // Report and go on with the other files; the exit status says something failed.
              reportCliError(error);
              failed = true;
            }
          }
          if (failed) process.exitCode = 1;
        },
      ),
    );
}
