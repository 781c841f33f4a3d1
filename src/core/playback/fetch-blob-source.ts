/**
 * A read-only blob source over `fetch` with HTTP Range requests: what `downloadMedia` reads from when it
 * is given a URL (a blob server, a CDN, an S3 presigned GET URL) instead of a store. Every request goes
 * through the shared checked ranged GET ({@link fetchRange}: `Content-Range` validated, servers that
 * ignore `Range` handled, typed errors), so this module only adds the URL per ref and the size.
 *
 * The size comes from a one-byte ranged GET (`Content-Range: bytes 0-0/<size>`), not from `HEAD`, because
 * a presigned URL is signed for GET only.
 *
 * @module
 */
import { describeValue } from '../bytes.js';
import { InvalidArgumentError } from '../errors.js';
import { urlScheme } from '../transport/base-url.js';
import { type FetchFunction, fetchRange } from '../transport/fetch-range.js';
import { fetchSize } from '../transport/fetch-size.js';
import type { ReadableBlobStore } from './resumable-download.js';

/** A blob's URL, or a function that gives it for a ref (called per request, so it may presign afresh). */
export type MediaUrl = string | URL | ((ref: string) => string | URL | Promise<string | URL>);

/** Options of {@link fetchBlobSource}. */
export interface FetchBlobSourceOptions {
  /** `fetch` to use (expo/fetch in React Native, a test's); default `globalThis.fetch`. */
  fetch?: FetchFunction;
  /** Extra request headers, e.g. `{ authorization: 'Bearer …' }`. */
  headers?: Record<string, string>;
}

/** True for what {@link fetchBlobSource} accepts as `url`. */
export function isMediaUrl(source: unknown): source is MediaUrl {
  return (
    typeof source === 'string' ||
    typeof source === 'function' ||
    (typeof URL !== 'undefined' && source instanceof URL)
  );
}

/**
 * A {@link ReadableBlobStore} whose reads are ranged `fetch` GETs of `url`.
 *
 * @throws {InvalidArgumentError} `ERR_INVALID_ARGUMENT` at once when `url` is not an absolute http(s)
 *   URL (string or URL) or a function, or `fetch` is not a function; from `head`/`get` when the
 *   function gives one that is not http(s) (`file:`, `javascript:`: never retried). From `head`/`get`, as {@link fetchRange}: {StorageError}
 *   `ERR_NOT_FOUND` (404), `ERR_DOWNLOAD_FAILED` (network, other status, wrong range).
 * @example
 * ```ts
 * import { fetch } from 'expo/fetch';
 * const source = fetchBlobSource((ref) => api.presign(ref), { fetch });
 * await downloadMedia(message, { source, blobKey, sink });
 * ```
 */
export function fetchBlobSource(url: MediaUrl, options: FetchBlobSourceOptions = {}): ReadableBlobStore {
  if (!isMediaUrl(url)) {
    throw new InvalidArgumentError(
      `expected a URL or a function of the ref for \`source\` but received ${describeValue(url)}`,
    );
  }
  if (typeof url !== 'function') {
    // A fixed URL is checked now, before any request: only http(s) (fetchRange says the same per request).
    const scheme = urlScheme(String(url))?.scheme;
    if (scheme !== 'http' && scheme !== 'https') {
      throw new InvalidArgumentError(
        `expected an absolute http: or https: URL for \`source\` but received ${scheme === undefined ? 'a string that is not one' : `a ${scheme}: URL`}`,
      );
    }
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') {
    throw new InvalidArgumentError(
      `expected a function for \`fetch\` but received ${describeValue(options.fetch)}`,
    );
  }
  const urlFor = async (ref: string): Promise<string> =>
    String(typeof url === 'function' ? await url(ref) : url);
  const common = { fetch: options.fetch, headers: options.headers };
  return {
    async head(ref) {
      return { size: await fetchSize(await urlFor(ref), { ...common, leg: 'asking the size', what: ref }) };
    },
    async get(ref, range, getOptions) {
      const answer = await fetchRange(await urlFor(ref), {
        ...common,
        ...(range === undefined ? {} : { range }),
        ...(getOptions?.signal === undefined ? {} : { signal: getOptions.signal }),
        what: ref,
      });
      if (answer.totalSize !== undefined) getOptions?.onSize?.(answer.totalSize);
      return answer.body;
    },
  };
}
