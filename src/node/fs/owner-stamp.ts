/**
 * Names that say who made a private temp file or directory, and when: `<pid>-<created>-<random>`, with the
 * creation time in base-36 milliseconds. A later run reads the stamp back to decide whether the owner is
 * still running (see `sweep.ts`); the random part keeps names unguessable and unique.
 *
 * @internal Not exported from `happy-media/node`.
 * @module
 */
import { randomBytes } from 'node:crypto';

/** Who made an entry and when. */
export interface OwnerStamp {
  /** Process id of the owner. */
  pid: number;
  /** Creation time, ms since the epoch. */
  createdMs: number;
}

/** Matches a stamp at the very end of a name part. */
const STAMP = /^(\d{1,10})-([0-9a-z]{1,11})-([0-9a-f]{16})$/;

/** A fresh stamp for this process: `<pid>-<created base 36>-<16 hex digits>`. */
export function newOwnerStamp(): string {
  return `${process.pid}-${Date.now().toString(36)}-${randomBytes(8).toString('hex')}`;
}

/** Reads a stamp made by {@link newOwnerStamp}; `undefined` for anything else. */
export function parseOwnerStamp(text: string): OwnerStamp | undefined {
  const match = STAMP.exec(text);
  if (!match) return undefined;
  return { pid: Number(match[1]), createdMs: Number.parseInt(match[2] as string, 36) };
}
