/**
 * Writes a plaintext range of a blob opened for random access to a file, all or nothing: the one way
 * `decryptFile` (a local blob file) and `play --offset/--length` (media in any store, in parts or not)
 * check a range against the plaintext and write it.
 *
 * @module
 */
import type { BlobReader } from '../../core/blob/random-access.js';
import { assertNonNegativeInteger } from '../../core/bytes.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { writeFileAllOrNothing } from '../fs/output-file.js';

/** Plaintext bytes decrypted per read (1 MiB): memory stays flat whatever the range's length. */
const RANGE_READ_BYTES = 1024 * 1024;

/** A plaintext range: from `offset` (default 0), `length` bytes (default: to the end). */
export interface PlaintextRange {
  /** First plaintext byte (default 0). */
  offset?: number | undefined;
  /** Number of plaintext bytes (default: to the end). */
  length?: number | undefined;
}

/**
 * Checks `range`'s numbers before anything is read (the bounds need the plaintext size, known later).
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a negative or fractional offset or length.
 */
export function checkPlaintextRange(range: PlaintextRange): void {
  if (range.offset !== undefined) assertNonNegativeInteger(range.offset, 'offset');
  if (range.length !== undefined) assertNonNegativeInteger(range.length, 'length');
}

/**
 * `range` as `[start, end)` inside `[0, plaintextSize]`; a range past the end is refused, never clamped.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a negative or fractional offset or length,
 *   an offset past the plaintext size, or a range that ends past it.
 */
export function plaintextRangeBounds(range: PlaintextRange, plaintextSize: number): [number, number] {
  checkPlaintextRange(range);
  const start = range.offset ?? 0;
  if (start > plaintextSize) {
    throw new InvalidArgumentError(
      `expected an offset at most ${plaintextSize} (the plaintext size) for \`offset\` but received ${start}`,
    );
  }
  const end = range.length === undefined ? plaintextSize : start + range.length;
  if (end > plaintextSize) {
    throw new InvalidArgumentError(
      `expected a range inside the ${plaintextSize}-byte plaintext for \`offset\`/\`length\` but received ${start}+${range.length}`,
    );
  }
  return [start, end];
}

/**
 * Writes plaintext `range` of `reader` into `outPath` (see `writeFileAllOrNothing` for what it may be),
 * reading only the chunks the range lies in, 1 MiB at a time; `outPath` appears only when every byte of
 * the range verified.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` for a range outside the plaintext (nothing read).
 * @throws {DecryptionError} `ERR_DECRYPTION_FAILED` when a chunk does not verify.
 * @throws {DiskError} `ERR_DISK` when writing fails.
 * @throws {AbortedError} `ERR_ABORTED` when `signal` is aborted.
 */
export async function writePlaintextRange(
  reader: BlobReader,
  outPath: string,
  range: PlaintextRange,
  signal?: AbortSignal,
): Promise<void> {
  const [start, end] = plaintextRangeBounds(range, reader.plaintextSize);
  await writeFileAllOrNothing(outPath, async (out) => {
    for (let at = start; at < end; at += RANGE_READ_BYTES) {
      await out.write(await reader.read(at, Math.min(RANGE_READ_BYTES, end - at), signal));
    }
  });
}
