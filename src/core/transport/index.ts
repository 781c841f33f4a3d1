/**
 * Public surface of the transport layer: a checked ranged `GET` over `fetch` (servers that ignore
 * `Range`, wrong `Content-Range`, typed errors) and the retry rules shared by every HTTP client.
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
  isRetryableError,
  isRetryableStatus,
  markRetryable,
  type RetryOptions,
  withRetries,
} from './retry.js';
