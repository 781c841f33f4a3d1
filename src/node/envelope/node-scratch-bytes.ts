/**
 * Scratch bytes over Node's shared `Buffer` pool (see `core/scratch-bytes.ts`): `Buffer.allocUnsafe` and
 * `Buffer.from(text, 'utf8')` cut arrays under 4 KiB out of one 8 KiB slab instead of giving each an
 * ArrayBuffer of its own. `happy-media/node` installs it on import.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import type { ScratchBytes } from '../../core/scratch-bytes.js';

/** Pooled `Buffer`s: contents of `alloc` are whatever the pool held, so every byte must be written. */
export const nodeScratchBytes: ScratchBytes = {
  name: 'node-pool',
  alloc: (length) => Buffer.allocUnsafe(length),
  utf8: (text) => Buffer.from(text, 'utf8'),
};
