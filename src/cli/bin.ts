#!/usr/bin/env node
import { diskError } from './file-errors.js';
import { main } from './main.js';

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // `happy-media --help | head` closes stdout early; that is the reader's choice, not a failure.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  // Anything else (ENOSPC from `> /dev/full`, EIO) is the CLI's one-line ERR_DISK, not a stack trace. It
  // arrives as an event, outside the command's await, so it is reported here and ends the run.
  const failure = diskError('write to stdout', error);
  process.stderr.write(`happy-media: ${failure.code}: ${failure.message}\n`);
  process.exit(1);
});

await main();
