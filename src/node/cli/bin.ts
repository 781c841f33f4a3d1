#!/usr/bin/env node
import { main } from './main.js';

// `happy-media --help | head` closes stdout early; that is the reader's choice, not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

await main();
