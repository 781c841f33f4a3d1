/**
 * Public surface of the transport layer: a checked ranged `GET` over `fetch` (servers that ignore
 * `Range`, wrong `Content-Range`, typed errors) and the one retry policy every retrying loop follows.
 *
 * @module
 */
export {
  downloadStatusError,
  type FetchByteRange,
  type FetchFunction,
  type FetchRangeOptions,
  fetchRange,
  type RangedBody,
} from './fetch-range.js';
export {
  DEFAULT_RETRY_POLICY,
  isRetryableError,
  isRetryableStatus,
  markRetryable,
  type RetryOptions,
  type RetryPolicy,
  withRetries,
} from './retry.js';
