/**
 * happy-media, internal entry: what the CLI and the benchmarks share with the library without it being
 * public API. It is not in package.json `exports` (applications cannot import it) and carries no
 * compatibility promise; anything here that applications need belongs in `happy-media/node` instead.
 *
 * The public entries are `src/index.ts` (universal) and `src/node/index.ts` (Node); code under `bench/`
 * and `src/node/cli/` imports from those and from this file only, so renaming an export is a type error
 * in the caller, not a silently skipped benchmark.
 *
 * @packageDocumentation
 */
export { main } from './cli/main.js';
