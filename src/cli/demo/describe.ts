/**
 * How the demo prints sizes and probe results.
 *
 * @module
 */
import type { MediaProbe } from '../../node/index.js';

/** `bytes` as `605 B` or `31.7 KiB`: short enough for one aligned line per sample. */
export function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** One line for a probe: kind, MIME, display size, duration, size and the start of the thumbhash. */
export function describeProbe(p: MediaProbe): string {
  const dims = p.width !== undefined && p.height !== undefined ? ` ${p.width}×${p.height}` : '';
  const duration = p.durationMs !== undefined ? ` ${(p.durationMs / 1000).toFixed(2)} s` : '';
  const hash = p.thumbhash ? `, thumbhash ${p.thumbhash.slice(0, 12)}…` : '';
  return `${p.kind} ${p.mimeType}${dims}${duration}, ${kib(p.size)}${hash}`;
}
