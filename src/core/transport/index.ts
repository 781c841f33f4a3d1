/**
 * Public surface of the transport layer: what a caller of the retrying operations needs (the options of
 * the one retry policy, whether a failure may be retried, the `fetch` a client takes). The checked ranged
 * `GET` (`fetch-range.ts`) and the retry loop (`retry.ts`) are plumbing: stores, downloads and Happy's
 * client use them, callers do not.
 *
 * @module
 */
export type { FetchFunction } from './fetch-range.js';
export { isRetryableError, type RetryPolicy } from './retry.js';
