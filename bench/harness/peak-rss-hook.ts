/**
 * Preloaded (`node --import`) into a program a suite measures as users run it (the `happy-media` bin):
 * when the process exits, writes one JSON line `{ ms, maxRssBytes }` to file descriptor 3, the time
 * since this hook loaded (the program's own module loading and work, without Node's start) and the
 * image's peak RSS. The program itself is not changed and needs no hook of its own.
 *
 * @module
 */
import { writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { peakRssBytes } from './peak-rss.js';

const start = performance.now();
process.on('exit', () => {
  writeSync(3, `${JSON.stringify({ ms: performance.now() - start, maxRssBytes: peakRssBytes() })}\n`);
});
