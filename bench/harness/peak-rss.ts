/**
 * Peak resident memory of this process image, for the child processes whose memory a suite reports.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { resourceUsage } from 'node:process';

/**
 * Peak RSS of this process image, bytes. On Linux, `getrusage` (`resourceUsage().maxRSS`) carries over
 * the high-water mark of the forked parent across exec, so a child of a big parent would report the
 * parent's size; `VmHWM` in /proc/self/status is this image's own peak. Elsewhere, fall back to maxRSS.
 */
export function peakRssBytes(): number {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) * 1024;
  } catch {
    // Not Linux.
  }
  // maxRSS is in kilobytes.
  return resourceUsage().maxRSS * 1024;
}
