/**
 * The size of what a URL holds, asked the way every download client asks it: a ranged `GET` of its first
 * byte (a `HEAD` is refused by presigned GET URLs, and Node's `fetch` closes the connection after each
 * one). The answer tells it in one of three ways:
 * - a `206` whose `Content-Range` names the total (`bytes 0-0/N`);
 * - a `200` (the server ignored `Range`) with a `Content-Length`;
 * - a `200` without a length (a chunked answer, as a proxy that recompresses sends): the body itself is the
 *   whole representation, so where the caller allows it (`countUpTo`), the body is read to its end and its
 *   bytes counted. A server's quirk is thus a slower answer, never a wrong size (a size taken for 0 would
 *   later read as a blob that does not authenticate).
 *
 * @module
 */
import { StorageError } from '../errors.js';
import { type FetchRangeOptions, fetchRange } from './fetch-range.js';

/** Options of {@link fetchSize}: those of {@link fetchRange}, without the range. */
export interface FetchSizeOptions extends Omit<FetchRangeOptions, 'range'> {
  /**
   * The most bytes worth reading to count a body whose length no header tells (the largest the caller
   * expects, e.g. Happy's attachment cap). Omitted: such a body is not read, and the size is unknown.
   */
  countUpTo?: number;
}

/**
 * The size in bytes of the representation at `url`.
 *
 * @throws {StorageError} `ERR_DOWNLOAD_FAILED` when the server tells no size (and the body may not be
 *   counted, or is longer than `countUpTo`), or as {@link fetchRange} (statuses, network, timeouts).
 * @throws {AbortedError} `ERR_ABORTED` when `options.signal` aborts.
 * @example
 * ```ts
 * const size = await fetchSize(downloadUrl, { leg: 'download', what: ref, countUpTo: 10 * 1024 * 1024 });
 * ```
 */
export async function fetchSize(url: string | URL, options: FetchSizeOptions = {}): Promise<number> {
  const { countUpTo, ...rest } = options;
  const leg = rest.leg ?? 'download';
  const what = rest.what ?? 'the resource';
  const probe = await fetchRange(url, { ...rest, range: { offset: 0, length: 1 } });
  // The one byte is read, not cancelled, so the connection stays reusable for the next request.
  await drain(probe.body);
  if (probe.totalSize !== undefined) return probe.totalSize;
  if (probe.status !== 200 || countUpTo === undefined) throw noSize(leg, what);
  // The server ignored Range and told no length: the whole body, counted.
  const whole = await fetchRange(url, rest);
  if (whole.totalSize !== undefined) {
    await whole.body.cancel().catch(() => {});
    return whole.totalSize;
  }
  return countBytes(whole.body, countUpTo, leg, what);
}

/** Reads `body` to its end, refusing it past `limit` bytes; returns how many there were. */
async function countBytes(
  body: ReadableStream<Uint8Array>,
  limit: number,
  leg: string,
  what: string,
): Promise<number> {
  const reader = body.getReader();
  let size = 0;
  for (;;) {
    const next = await reader.read();
    if (next.done) return size;
    size += next.value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new StorageError(
        `${leg} failed: ${what} is longer than the ${limit} bytes it can be, and the server told no size`,
        { code: 'ERR_DOWNLOAD_FAILED' },
      );
    }
  }
}

/** Reads a body of at most one byte to its end; a failure is the next request's problem. */
async function drain(body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  try {
    while (!(await reader.read()).done);
  } catch {
    // Nothing of the answer is needed past its headers.
  }
}

function noSize(leg: string, what: string): StorageError {
  return new StorageError(
    `${leg} failed: the server told no size for ${what} (no Content-Range total or Content-Length)`,
    { code: 'ERR_DOWNLOAD_FAILED' },
  );
}
